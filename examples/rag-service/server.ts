import { SpanKind, trace } from "@opentelemetry/api";
import express from "express";
import type { GroundwatchRequest } from "../../src/sdk/express.ts";
import { groundwatchMiddleware, routeTemplate } from "../../src/sdk/express.ts";
import { createMonitor } from "../../src/sdk/monitor.ts";
import { generate, retrieve } from "./knowledge.ts";
import { startTelemetry } from "./telemetry.ts";

const sdk = startTelemetry();
const monitor = createMonitor({
  sampling: { default: Number(process.env.GROUNDWATCH_SAMPLE_RATE ?? 1), routes: { "/api/ask": Number(process.env.ASK_SAMPLE_RATE ?? 1) } },
  scoring: { backend: process.env.GROUNDWATCH_BACKEND ?? "auto" },
});
const tracer = trace.getTracer("rag-service");
const app = express();
app.use(express.json({ limit: "64kb" }));
app.use(groundwatchMiddleware(monitor));

// A server span per request (no HTTP auto-instrumentation here), named after the route template.
app.post("/api/ask", (req: express.Request & GroundwatchRequest, res) => {
  tracer.startActiveSpan(`POST ${routeTemplate(req)}`, { kind: SpanKind.SERVER, attributes: { "http.route": routeTemplate(req) } }, (span) => {
    const question = typeof req.body?.question === "string" ? (req.body.question as string) : "";
    if (question === "") {
      res.status(400).json({ error: '"question" must be a non-empty string' });
      span.end();
      return;
    }
    // Retriever and LLM spans with OpenInference attributes, so a groundwatch collector fed
    // these traces can score them too (the docker-compose stack does that).
    const sources = tracer.startActiveSpan("retrieve", { attributes: { "openinference.span.kind": "RETRIEVER", "input.value": question } }, (r) => {
      const docs = retrieve(question);
      docs.forEach((d, i) => r.setAttribute(`retrieval.documents.${i}.document.content`, d));
      r.end();
      return docs;
    });
    const answer = tracer.startActiveSpan("generate", { attributes: { "openinference.span.kind": "LLM" } }, (g) => {
      const text = generate(question, sources);
      g.setAttributes({ "llm.output_messages.0.message.role": "assistant", "llm.output_messages.0.message.content": text });
      g.end();
      return text;
    });
    req.groundwatch?.observe({ context: sources, answer, question });
    res.json({ answer, sources });
    span.end();
  });
});
app.get("/stats", (_req, res) => {
  res.json(monitor.stats());
});

// Loopback unless HOST says otherwise (the compose stack sets 0.0.0.0 so the traffic container can reach it).
const host = process.env.HOST ?? "127.0.0.1";
const server = app.listen(Number(process.env.PORT ?? 3000), host, (error?: Error) => {
  if (error) {
    console.error(`rag-service: cannot listen on ${host}:${process.env.PORT ?? 3000}: ${error.message}`);
    process.exit(1);
  }
  const address = server.address();
  console.log(`rag-service listening on http://${host}:${typeof address === "object" && address ? address.port : ""}`);
});

let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  server.close();
  monitor
    .shutdown(10_000)
    .then(() => sdk.shutdown())
    .then(
      () => process.exit(0),
      () => process.exit(1),
    );
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
