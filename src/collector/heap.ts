import { setFlagsFromString } from "node:v8";

/**
 * `groundwatch serve`'s heap growth (collector.heapGrowthPercent): after a full collection V8 lets a
 * heap grow by a factor it picks from how fast the program allocates, up to 4× the live size when
 * the process may use gigabytes. Under the collector's ingest (JSON and OTLP decoding: much
 * short-lived garbage, little kept) that put the main thread's heap at 110–134 MB and the scoring
 * worker's at 70–90 MB with about 30–60 MB in use in each, and the process at 315–361 MB
 * (docs/benchmarks.md, the collector's memory). A factor of 2 holds it at 265–269 MB at the same
 * throughput; 1.5 held it no lower and cost about 15% of the OTLP + GenAI logs phase's throughput,
 * whose joiner keeps more live (more to mark at each of the more frequent full collections).
 */
export const DEFAULT_HEAP_GROWTH_PERCENT = 100;

/** The largest heapGrowthPercent accepted: 300 is V8's own ceiling (a factor of 4). */
export const MAX_HEAP_GROWTH_PERCENT = 300;

/** The V8 flag that fixes the growth factor at 1 + percent / 100 (0: V8 picks it). */
export function heapGrowthFlag(percent: number): string {
  return `--heap-growing-percent=${percent}`;
}

/**
 * Fixes the heap growth factor of every isolate in this process: the main thread's from its next full
 * collection, and the workers' (the flag is process-wide and read at each full collection). Call it
 * before the scoring workers start. `setFlags` is node:v8's, replaceable in tests.
 */
export function applyHeapGrowth(percent: number, setFlags: (flags: string) => void = setFlagsFromString): void {
  setFlags(heapGrowthFlag(percent));
}
