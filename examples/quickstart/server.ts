import express from "express";
import { createMonitor, groundwatchMiddleware } from "groundwatch";
// 1. OpenTelemetry is started by tracing.js, loaded first with `node --import ./tracing.js server.js`.
import { sdk } from "./tracing.js";

// 2. The monitor: which routes to sample, and how to score. onEvaluation shows each result here
//    too, so you see something without a telemetry backend.
const monitor = createMonitor({
  sampling: { default: 0.05, routes: { "/api/answer": 1.0 } },
  scoring: { backend: "auto" },
  onEvaluation: ({ route, result }) => console.log(`groundwatch: ${route} ${result.verdict}${result.score === null ? "" : ` (score ${result.score.toFixed(2)})`}`),
});

// Stand-ins for your retriever and model.
async function retrieve(_question: string): Promise<string[]> {
  return ["Returns are accepted within 30 days of delivery.", "Refunds reach the original payment method within 5 business days."];
}
async function llm(question: string, docs: string[]): Promise<string> {
  return question.includes("refund") ? (docs[1] ?? "") : "Returns are accepted within 90 days.";
}
async function* llmStream(question: string, docs: string[]): AsyncGenerator<string> {
  for (const token of (await llm(question, docs)).split(/(?<= )/)) yield token; // an OpenAI stream works the same
}

// 3. The middleware gives each request `req.groundwatch.observe(...)`, labelled with its route template.
const app = express();
app.use(express.json());
app.use(groundwatchMiddleware(monitor));

app.post("/api/answer", async (req, res) => {
  const question = String(req.body?.question ?? "");
  const docs = await retrieve(question);
  const answer = await llm(question, docs);
  req.groundwatch?.observe({ context: docs, answer, question }); // returns at once, never throws
  res.json({ answer });
});

// 4. A streamed answer, guarded: each sentence is checked before it is sent; an unsupported one is
//    replaced. A client that goes away cancels the stream and its checks.
app.post("/api/answer/stream", async (req, res) => {
  const question = String(req.body?.question ?? "");
  const docs = await retrieve(question);
  const stop = new AbortController();
  res.on("close", () => stop.abort());
  const input = { route: "/api/answer/stream", context: docs, question };
  for await (const event of monitor.guardStream(llmStream(question, docs), input, { mode: "sentence", signal: stop.signal })) res.write(event.text);
  res.end();
});

const server = app.listen(Number(process.env.PORT ?? 3000), "127.0.0.1", (error) => {
  if (error) throw error;
  console.log(`listening on http://127.0.0.1:${(server.address() as { port: number }).port}`);
});

// 5. On SIGTERM: stop taking requests, score what is queued (5 s at most), flush telemetry, exit.
process.once("SIGTERM", () => {
  server.close();
  monitor
    .shutdown(5_000)
    .then(() => sdk.shutdown())
    .then(
      () => process.exit(0),
      () => process.exit(1),
    );
});
