/**
 * One SDK cell of bench/model-tier.ts, in a process of its own (so that its peak RSS is the
 * monitor's): createMonitor from dist/ with the onnx backend, every observation sampled, driven
 * closed loop by BENCH_CELL's clients; latency from observe() to the monitor's onEvaluation for it.
 * Sends its figures to the parent over IPC. GROUNDWATCH_* in the environment reach the monitor.
 */
import type { MetricData } from "@opentelemetry/sdk-metrics";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { closedLoop, clientRoute, completionWaiter, quantile, warmupSeconds } from "./closed-loop.ts";
import { ragObservation } from "./rag-workload.ts";
import { procStatusMb } from "./serve-process.ts";
import { builtMonitor } from "./sdk-built.ts";

/** What the parent asks for. */
export interface SdkCell {
  readonly dir: string;
  readonly variant: string;
  readonly clients: number;
  readonly seconds: number;
  readonly seed: number;
  /** Index of this cell's first observation in the workload sequence. */
  readonly base: number;
  readonly timeoutMs: number;
}

/** What the child reports. */
export interface SdkCellResult {
  readonly completed: number;
  readonly lost: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly elapsedS: number;
  /** Pairs sent to the backend in the timed window (groundwatch.entailment.calls), undefined when the build has no such counter. */
  readonly calls: number | undefined;
  readonly saved: number | undefined;
  readonly peakRssMb: number;
}

/** A reader the bench collects from when it wants. */
class PullReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

async function counter(reader: PullReader, name: string): Promise<number | undefined> {
  const { resourceMetrics } = await reader.collect();
  const metrics: MetricData[] = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).filter((m) => m.descriptor.name === name);
  if (metrics.length === 0) return undefined;
  const values: unknown[] = metrics.flatMap((m) => (m.dataPoints as ReadonlyArray<{ readonly value: unknown }>).map((p) => p.value));
  return values.reduce<number>((a, v) => a + (typeof v === "number" ? v : 0), 0);
}

const diff = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined ? undefined : a - (b ?? 0));

async function main(): Promise<void> {
  const cell = JSON.parse(process.env.BENCH_CELL ?? "{}") as SdkCell;
  const { createMonitor } = await builtMonitor();
  const reader = new PullReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const waiter = completionWaiter();
  const monitor = createMonitor({ scoring: { backend: "onnx", model: cell.dir, variant: cell.variant }, sampling: { default: 1 }, meterProvider, onEvaluation: (e) => waiter.done(e.route) });
  await monitor.ready();
  let n = cell.base;
  const one = (client: number, k: number): Promise<boolean> => {
    const route = clientRoute(client, k);
    const obs = ragObservation(cell.seed, n++);
    const scored = waiter.wait(route, cell.timeoutMs);
    monitor.observe({ route, context: obs.context, answer: obs.answer, question: obs.question });
    return scored;
  };
  // Warm-up, not timed: one observation through the whole path, then the loops' first round.
  const t0 = performance.now();
  if (!(await one(0, ROUTE_WARMUP))) throw new Error("the warm-up observation was not scored");
  const warmupS = warmupSeconds(cell.clients, performance.now() - t0, cell.seconds);
  const at = (s: number): Promise<Array<number | undefined>> => new Promise((resolve) => setTimeout(() => resolve(Promise.all([counter(reader, "groundwatch.entailment.calls"), counter(reader, "groundwatch.entailment.saved")])), s * 1000));
  const [atStart, atEnd] = [at(warmupS), at(warmupS + cell.seconds)];
  const loop = await closedLoop(cell.clients, warmupS, cell.seconds, one);
  const [before, after] = await Promise.all([atStart, atEnd]);
  const result: SdkCellResult = {
    completed: loop.completed,
    lost: loop.lost,
    p50Ms: quantile(loop.latenciesMs, 0.5),
    p99Ms: quantile(loop.latenciesMs, 0.99),
    elapsedS: loop.elapsedS,
    calls: diff(after[0], before[0]),
    saved: diff(after[1], before[1]),
    peakRssMb: procStatusMb(process.pid, "VmHWM"),
  };
  process.send?.(result);
  // Drains what is still in flight (past the window, not counted): stopping onnxruntime's workers
  // mid-run would abort the process.
  await monitor.shutdown(TIMEOUT_DRAIN_MS);
  process.exit(0);
}

/** How long the child waits for the observations still in flight at the end of the window. */
const TIMEOUT_DRAIN_MS = 120_000;

/** The warm-up observation's k: its route is the client's last (the timed loop starts at k = 0). */
const ROUTE_WARMUP = 3;

await main();
