/**
 * SDK overhead, measured side by side in one run:
 *  1. observe() for an unsampled, a sampled and a sampled-and-resampled call, as a ratio to
 *     starting and ending one span on the real OTel SDK (targets: ≤ 0.5× unsampled, ≤ 5× sampled);
 *  2. p99 event-loop delay of an express host under load while the scoring workers run
 *     at saturation, with and without live resampling, against the same host with no monitor
 *     (target: < 2 ms added).
 *
 * Both measure the built package (dist/, as hosts run it), so build first:
 *
 *   npx tsx scripts/build.ts && npm run bench:sdk
 *
 * (Run from src/ through tsx, every closure observe() creates also pays esbuild's keepNames
 * helper, a defineProperty call: observe() measured several times slower than it is.)
 */
import { fork } from "node:child_process";
import { cpus } from "node:os";
import { join } from "node:path";
import { Agent, request } from "node:http";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { LoggerProvider } from "@opentelemetry/sdk-logs";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { builtMonitor } from "./sdk-built.ts";

const { createMonitor } = await builtMonitor();

const CONTEXT = ["Returns: You may return most new, unopened items within 30 days of delivery for a full refund."];

function nsPerCall(fn: () => void, iterations: number): number {
  for (let i = 0; i < 2000; i++) fn();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) fn();
  return Number(process.hrtime.bigint() - t0) / iterations;
}

async function hotPath(): Promise<string[]> {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter, { maxQueueSize: 100_000 })] });
  const meterProvider = new MeterProvider();
  const loggerProvider = new LoggerProvider();
  const tracer = tracerProvider.getTracer("bench");
  const common = { env: { HF_HOME: "/nonexistent" }, scoring: { backend: "offline" }, tracerProvider, meterProvider, loggerProvider };
  const unsampled = createMonitor({ ...common, sampling: { default: 0 } });
  // A queue large enough for the whole run: every sampled call is an enqueue (scoring happens in the worker).
  const sampled = createMonitor({ ...common, sampling: { default: 1 }, queueSize: 1_000_000 });
  // Resampling on: every sampled call is also picked for resampling. The stand-in sampler answers
  // after 50 ms; observe() only queues, and the draw starts later, off the request path.
  const resampled = createMonitor({
    ...common,
    sampling: { default: 1 },
    queueSize: 1_000_000,
    resample: { maxCallsPerMinute: 100_000, sample: ({ n }) => new Promise((r) => setTimeout(() => r(Array.from({ length: n }, (_, i) => `Returns within ${30 * (i + 1)} days.`)), 50)) },
  });
  await Promise.all([unsampled.ready(), sampled.ready(), resampled.ready()]);
  const rows: string[] = [];
  const N = 200_000;
  // Everything runs inside an active request span, as in a host.
  await tracer.startActiveSpan("request", async (req) => {
    for (let round = 0; round < 3; round++) {
      const span = nsPerCall(() => tracer.startSpan("child").end(), N);
      const off = nsPerCall(() => unsampled.observe({ route: "/ask", context: CONTEXT, answer: "Returns within 30 days.", question: "How long do I have to return an item?" }), N);
      const on = nsPerCall(() => sampled.observe({ route: "/ask", context: CONTEXT, answer: "Returns within 30 days.", question: "How long do I have to return an item?" }), 20_000);
      const re = nsPerCall(() => resampled.observe({ route: "/ask", context: CONTEXT, answer: "Returns within 30 days.", question: "How long do I have to return an item?" }), 20_000);
      rows.push(`| ${round + 1} | ${span.toFixed(0)} | ${off.toFixed(0)} | ${(off / span).toFixed(2)}× | ${on.toFixed(0)} | ${(on / span).toFixed(2)}× | ${re.toFixed(0)} | ${(re / span).toFixed(2)}× |`);
    }
    req.end();
  });
  await Promise.all([unsampled.shutdown(100), sampled.shutdown(100), resampled.shutdown(100)]);
  await tracerProvider.shutdown();
  trace.disable();
  context.disable();
  return rows;
}

interface HostReport {
  p50: number;
  p99: number;
  max: number;
  stats?: { seen: number; scored: number; dropped: Record<string, number>; pending: number; resample: { calls: Record<string, number> } };
}

async function loadHost(withMonitor: boolean, share: number, resample: boolean, seconds: number, concurrency: number): Promise<HostReport & { requests: number }> {
  const child = fork(join(import.meta.dirname, "sdk-host.ts"), [], { execArgv: ["--import", "tsx"], env: { ...process.env, WITH_MONITOR: withMonitor ? "1" : "0", SCORING_SHARE: String(share), RESAMPLE: resample ? "1" : "0" } });
  const port = await new Promise<number>((resolve) => child.once("message", (m: { port: number }) => resolve(m.port)));
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  let requests = 0;
  const end = Date.now() + seconds * 1000;
  const one = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, path: "/ask", agent }, (res) => {
        res.resume();
        res.on("end", resolve);
      });
      req.on("error", reject);
      req.end();
    });
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        await one();
        requests++;
      }
    }),
  );
  agent.destroy();
  const report = new Promise<HostReport>((resolve) => child.once("message", (m: HostReport) => resolve(m)));
  child.kill("SIGTERM");
  const r = await report;
  return { ...r, requests };
}

async function main(): Promise<void> {
  console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), Node ${process.version}`);
  console.log("");
  console.log("observe() cost against one span start+end on the OTel SDK (ns per call; 3 rounds):");
  console.log("");
  console.log("| round | span start+end | observe, unsampled | ratio | observe, sampled | ratio | observe, sampled + resampled | ratio |");
  console.log("|---|---|---|---|---|---|---|---|");
  console.log((await hotPath()).join("\n"));
  console.log("");
  const seconds = Number(process.env.BENCH_SECONDS ?? 15);
  const rows: string[] = [];
  const runs: Array<[boolean, number, boolean]> = [
    [false, 1, false],
    [true, 1, false],
    [true, 0.5, false],
    [true, 1, true],
    [false, 1, false],
    [true, 1, false],
    [true, 0.5, false],
    [true, 1, true],
  ];
  for (const [withMonitor, share, resample] of runs) {
    const r = await loadHost(withMonitor, share, resample, seconds, 16);
    const s = r.stats;
    const calls = s && resample ? `; resampler calls ${Object.entries(s.resample.calls).filter(([, v]) => v > 0).map(([k, v]) => `${k} ${v}`).join(", ")}` : "";
    const label = withMonitor ? `monitor, rate 1.0, scoring share ${share}${resample ? ", resampling (n 5, 200 ms, ≤ 600/min)" : ""}` : "no monitor";
    rows.push(`| ${label} | ${(r.requests / seconds).toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.max.toFixed(1)} | ${s ? `${s.seen} seen, ${s.scored} scored, ${Object.values(s.dropped).reduce((a, b) => a + b, 0)} dropped (queue full), ${s.pending} pending${calls}` : "–"} |`);
  }
  console.log(`express host under load (${seconds} s per run, 16 concurrent keep-alive clients in another process; event-loop delay in ms):`);
  console.log("");
  console.log("| host | requests/s | p50 delay | p99 delay | max delay | monitor accounting |");
  console.log("|---|---|---|---|---|---|");
  console.log(rows.join("\n"));
}

await main();
