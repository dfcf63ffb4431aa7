/* global Buffer, console, process, URL */
// A RAG service host with groundwatch's SDK in-process and the onnx backend (run with plain node on
// the built package, dist/), for the chaos suite's inference tests. GW_MODEL is the model directory,
// GW_TIMEOUT_MS the time budget per observation (default: the SDK's). POST /answer with an observation
// observes it; GET /state says the monitor's stats, health and evaluations so far; POST /shutdown?ms=N
// shuts the monitor down within N ms and exits 0; POST /exit calls process.exit(0) at once, without a
// shutdown; SIGTERM shuts down within GW_SIGTERM_MS (default 100) and exits 0. It prints "listening on
// URL" once the monitor is ready.
import { createServer } from "node:http";
import { createMonitor } from "../../dist/index.js";

let evaluations = 0;
const monitor = createMonitor({
  env: { HF_HOME: "/nonexistent/groundwatch-test-hf-home" },
  sampling: { default: 1 },
  workers: 1,
  ...(process.env.GW_TIMEOUT_MS ? { timeoutMs: Number(process.env.GW_TIMEOUT_MS) } : {}),
  scoring: { backend: "onnx", model: process.env.GW_MODEL, nliCacheBytes: 0 },
  onEvaluation: () => {
    evaluations++;
  },
});

const shutdown = async (ms) => {
  await monitor.shutdown(ms);
  console.log(`shut down: ${JSON.stringify(monitor.stats())}`);
  process.exit(0);
};
process.on("SIGTERM", () => void shutdown(Number(process.env.GW_SIGTERM_MS ?? 100)));

const server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://host");
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const reply = (status, body) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method === "GET" && url.pathname === "/state") return reply(200, { stats: monitor.stats(), health: monitor.health(), evaluations });
    if (req.method === "POST" && url.pathname === "/answer") {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      for (const o of Array.isArray(body) ? body : [body]) monitor.observe(o);
      return reply(202, { accepted: true });
    }
    if (req.method === "POST" && url.pathname === "/shutdown") {
      reply(202, {});
      return void shutdown(Number(url.searchParams.get("ms") ?? 100));
    }
    if (req.method === "POST" && url.pathname === "/exit") {
      res.writeHead(202).end("", () => process.exit(0));
      return undefined;
    }
    return reply(404, {});
  });
});

await monitor.ready();
server.listen(0, "127.0.0.1", () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
