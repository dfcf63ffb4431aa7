/* global Buffer, console, process, setTimeout */
// A RAG service host for the chaos suite, run with plain node on the built package (dist/), with
// OTLP exporters pointed at an endpoint that is down. It answers requests and observes each
// answer through groundwatch's express middleware; the request body says which hostile input
// the handler passes to observe(). It prints "listening on URL" once the monitor is ready.
import { BroadcastChannel } from "node:worker_threads";
import { OTLPLogExporter } from "@opentelemetry/exporter-logs-otlp-proto";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-proto";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { BatchLogRecordProcessor, LoggerProvider } from "@opentelemetry/sdk-logs";
import { MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import express from "express";
import { createMonitor, groundwatchMiddleware } from "../../dist/index.js";

const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter(), { scheduledDelayMillis: 200 })] });
const meterProvider = new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter(), exportIntervalMillis: 500, exportTimeoutMillis: 400 })] });
const loggerProvider = new LoggerProvider({ processors: [new BatchLogRecordProcessor({ exporter: new OTLPLogExporter(), scheduledDelayMillis: 200 })] });

const monitor = createMonitor({
  sampling: { default: 1 },
  scoring: { backend: "offline" },
  workers: 1,
  timeoutMs: Number(process.env.GW_TIMEOUT_MS ?? 20_000),
  queueBytes: Number(process.env.GW_QUEUE_BYTES ?? 16 * 1024 * 1024),
  tracerProvider,
  meterProvider,
  loggerProvider,
});

const DOCS = ["Returns are accepted within 30 days of delivery for a full refund.", "Refunds reach the original payment method within 5 business days."];
const GOOD = "Returns are accepted within 30 days of delivery.";
const words = ["river", "stone", "lamp", "violet", "orbit", "maple", "copper", "harbor", "signal", "meadow"];

/** The observation a request asks for: ordinary, or one of the hostile shapes a red team used. */
function inputFor(kind, n) {
  switch (kind) {
    case "good":
      return { context: DOCS, answer: GOOD };
    case "throwing-getter":
      return {
        context: DOCS,
        answer: GOOD,
        get attributes() {
          throw new Error("attribute getter throws");
        },
      };
    case "throwing-answer":
      return {
        context: DOCS,
        get answer() {
          throw new Error("answer getter throws");
        },
      };
    case "proxy":
      return { answer: GOOD, context: new Proxy(DOCS, { get: () => { throw new Error("proxy trap throws"); } }) };
    case "huge-samples":
      // 1,500 distinct resamples: without a cap, millions of entailment calls.
      return { context: DOCS, answer: GOOD, question: "How long do I have to return an item?", samples: Array.from({ length: 1500 }, (_, i) => `Returns are accepted within ${i + 1} days, says the ${words[i % 10]} policy ${i}.`) };
    case "long-token":
      return { context: [`${DOCS[0]} ${"x".repeat(100_000)}`], answer: `${GOOD} ${"y".repeat(100_000)}` };
    case "base64":
      return { context: [DOCS[0], Buffer.alloc(150_000, n % 251).map((b, i) => (b * 31 + i * 7) % 256).toString("base64")], answer: GOOD };
    case "flood":
      return { context: Array.from({ length: 4 }, (_, i) => `${DOCS[i % 2]} ${"lorem ipsum dolor sit amet ".repeat(17_000)}`), answer: GOOD };
    default:
      return undefined;
  }
}

const app = express();
app.use(express.json());
app.use(groundwatchMiddleware(monitor));
let served = 0;
app.post("/answer", (req, res) => {
  const input = inputFor(String(req.body?.kind), served++);
  if (!input) return void res.status(400).json({ error: "unknown kind" });
  req.groundwatch?.observe(input);
  res.json({ answer: "ok" });
});
app.get("/state", (_req, res) => {
  res.json({ stats: monitor.stats(), health: monitor.health(), rss: process.memoryUsage().rss });
});
app.post("/chaos/kill-workers", (_req, res) => {
  const channel = new BroadcastChannel("groundwatch-chaos");
  channel.postMessage("exit");
  channel.close();
  res.json({ sent: true });
});

await monitor.ready();
const server = app.listen(0, "127.0.0.1", (error) => {
  if (error) throw error;
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});

process.once("SIGTERM", () => {
  const started = Date.now();
  server.close();
  // The monitor keeps its own deadline; the exporters' flush to a dead endpoint is bounded here.
  const bounded = (p) => Promise.race([p, new Promise((r) => setTimeout(r, 1500))]);
  monitor
    .shutdown(2000)
    .then(() => {
      const s = monitor.stats();
      console.log(`monitor shut down in ${Date.now() - started} ms: ${JSON.stringify(s)}`);
      return bounded(Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown(), loggerProvider.shutdown()]));
    })
    .then(
      () => process.exit(0),
      () => process.exit(1),
    );
});
