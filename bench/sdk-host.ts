/**
 * The host for bench/sdk.ts: an express server that does a little synchronous work per
 * request (as a RAG handler assembling a prompt would), with or without a monitor that
 * samples every request. It reports its event-loop delay percentiles on SIGTERM.
 * RESAMPLE=1 adds live resampling with a stand-in model client: each call waits 200 ms (an
 * LLM's latency, as I/O: no CPU) and returns 5 answers with their token usage.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import express from "express";
import type { ResampleOptions } from "../src/sdk/resample-options.ts";
import { builtMonitor } from "./sdk-built.ts";

const { createMonitor } = await builtMonitor();

const withMonitor = process.env.WITH_MONITOR === "1";
const share = Number(process.env.SCORING_SHARE ?? 1);
const DAYS = [30, 30, 30, 60, 90];
const resample: ResampleOptions | undefined =
  process.env.RESAMPLE === "1"
    ? {
        n: 5,
        maxConcurrent: 2,
        maxCallsPerMinute: 600,
        sample: ({ n, signal }) =>
          new Promise((resolve, reject) => {
            const timer = setTimeout(() => resolve({ samples: Array.from({ length: n }, (_, i) => `You can return items within ${DAYS[(i + Date.now()) % DAYS.length]} days.`), usage: { promptTokens: 300, completionTokens: 12 * n } }), 200);
            signal.addEventListener("abort", () => {
              clearTimeout(timer);
              reject(signal.reason as Error);
            });
          }),
      }
    : undefined;
const monitor = withMonitor
  ? createMonitor({ env: { HF_HOME: "/nonexistent" }, sampling: { default: 1 }, scoring: { backend: "offline" }, queueSize: 10_000, workers: 1, scoringShare: share, ...(resample ? { resample } : {}) })
  : undefined;
await monitor?.ready();
const context = [
  "Returns: You may return most new, unopened items within 30 days of delivery for a full refund. Refunds are issued to the original payment method within 5 business days of receiving the return.",
  "Shipping: Standard shipping is free on orders over $50. Express shipping costs $15 and arrives in 2 business days.",
];
const app = express();
app.get("/ask", (_req, res) => {
  const answer = `You can return items within ${30 + (Date.now() % 3) * 30} days of delivery. Refunds take 5 business days.`;
  monitor?.observe({ route: "/ask", context, answer, question: "How long do I have to return an item?" });
  res.json({ answer });
});
const delay = monitorEventLoopDelay({ resolution: 1 });
const server = app.listen(0, "127.0.0.1", () => {
  const a = server.address();
  process.send?.({ port: typeof a === "object" && a ? a.port : 0 });
  delay.enable();
});
process.on("SIGTERM", () => {
  delay.disable();
  const stats = monitor?.stats();
  process.send?.({ p50: delay.percentile(50) / 1e6, p99: delay.percentile(99) / 1e6, max: delay.max / 1e6, stats });
  server.close();
  void (monitor ? monitor.shutdown(100) : Promise.resolve()).then(() => process.exit(0));
});
