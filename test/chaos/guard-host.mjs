/* global Buffer, console, performance, process, setInterval, URL */
// A RAG service host that guards its answers with groundwatch's SDK in-process (run with plain node
// on the built package, dist/), for the chaos suite's guard tests. GW_SCORING is the monitor's
// scoring options as JSON (a judge backend pointed at a test server, or the onnx backend on a
// generated graph); GW_IN_FLIGHT its inFlightPerWorker. The process keeps a heartbeat (a timer that
// counts) that /state reports, so a test sees the event loop kept turning through every fault.
// - POST /guard { input, options } → { decision (its evaluation left out), wallMs };
// - POST /observe [observations] → 202, each observed (sampled always);
// - GET /state → { stats, health, beats, order }: `order` is the system's own completion order, one
//   entry per observation scored (onEvaluation) and per guard decision (onDecision's tally);
// - GET /metrics → the monitor's metrics in Prometheus text;
// - POST /chaos/kill-workers → every scoring worker thread ends at once (test/chaos/fault-injector.cjs,
//   which must be preloaded with --require).
// It prints "listening on URL" once the monitor is ready.
import { createServer } from "node:http";
import { BroadcastChannel } from "node:worker_threads";
import { PrometheusExporter } from "@opentelemetry/exporter-prometheus";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import { createMonitor } from "../../dist/index.js";

const prometheus = new PrometheusExporter({ preventServerStart: true });
const meterProvider = new MeterProvider({ readers: [prometheus] });
/** Completions in the order the monitor made them: "observation" (scored) or "guard:<decision>". */
const order = [];
const monitor = createMonitor({
  env: { HF_HOME: "/nonexistent/groundwatch-test-hf-home", GROUNDWATCH_JUDGE_API_KEY: "k" },
  sampling: { default: 1 },
  workers: 1,
  ...(process.env.GW_IN_FLIGHT ? { inFlightPerWorker: Number(process.env.GW_IN_FLIGHT) } : {}),
  scoring: JSON.parse(process.env.GW_SCORING ?? '{"backend":"offline"}'),
  meterProvider,
  onEvaluation: () => {
    order.push("observation");
  },
});

let beats = 0;
setInterval(() => beats++, 25);

const server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://host");
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const reply = (status, body) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method === "GET" && url.pathname === "/state") return reply(200, { stats: monitor.stats(), health: monitor.health(), beats, order });
    if (req.method === "GET" && url.pathname === "/metrics") return prometheus.getMetricsRequestHandler(req, res);
    if (req.method === "POST" && url.pathname === "/guard") {
      const { input, options } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const started = performance.now();
      return void monitor.guard(input, options).then((decision) => {
        order.push(`guard:${decision.decision}`);
        reply(200, { decision: { ...decision, evaluation: undefined }, wallMs: performance.now() - started });
      });
    }
    if (req.method === "POST" && url.pathname === "/observe") {
      for (const o of JSON.parse(Buffer.concat(chunks).toString("utf8"))) monitor.observe({ sample: "always", ...o });
      return reply(202, { accepted: true });
    }
    if (req.method === "POST" && url.pathname === "/chaos/kill-workers") {
      const channel = new BroadcastChannel("groundwatch-chaos");
      channel.postMessage("exit");
      channel.close();
      return reply(200, { sent: true });
    }
    return reply(404, {});
  });
});

process.on("SIGTERM", () => {
  void monitor.shutdown(500).then(() => process.exit(0));
});

await monitor.ready();
server.listen(0, "127.0.0.1", () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
