/**
 * Growth tests: does the cost of a function grow linearly with its input? Attacker-controlled text
 * (answers, documents, messages, routes) reaches regexes, dedupes and parsers; a quadratic one is a
 * stall waiting to happen. These helpers time the work at size N and at factor × N (8 by default)
 * and compare the cost per unit of input: linear work costs the same per unit at both sizes, n^1.5
 * work √8 ≈ 2.8× as much at the larger, quadratic 8×. Only that ratio is asserted, never a time.
 *
 * What makes the comparison hold on a busy machine (measured: docs/development.md, "Growth tests"):
 * - The process's CPU time, not the wall clock: time the process waits for a core does not count.
 * - Samples of equal length: one sample of the smaller size is `factor` runs of it back to back, as
 *   much work as one run of the larger. A short sample and a long one are not equally exposed to what
 *   slows a core for a while (a neighbour on the same physical core, a cache another process filled),
 *   so the fastest of many short samples ran faster than the fastest long one could.
 * - The two sizes alternate, so both see the machine as it is during the measurement.
 * - Page faults are counted. Memory taken fresh from the kernel costs a page fault per 4 KiB (a few µs,
 *   several times more on a busy machine), and whether a run gets fresh memory depends on its size:
 *   V8 gives an object over 128 KiB pages of its own, mapped for it and unmapped after it; glibc gives
 *   freed memory back past its trim threshold. Sizes on the two sides of such a threshold compare
 *   unlike costs, and expectLinear says so instead of reading the ratio.
 * - Noise only ever adds time: while the ratio is over the bound, another round of samples is taken
 *   (up to MAX_ROUNDS); work that really grows faster than linear stays over it in every round.
 */
import { expect } from "vitest";

export interface GrowthOptions {
  /** The smaller size (it is doubled until one run takes at least minMs, so the timings are measurable). */
  readonly n: number;
  /** The larger size is factor × the smaller (default 8). */
  readonly factor?: number;
  /** Samples of each size per round; the fastest counts (default 7; up to MAX_ROUNDS rounds while the ratio is over the bound). */
  readonly repeats?: number;
  /** The smaller size's run is at least this long, ms (default 1.5): long enough to time. */
  readonly minMs?: number;
  /** The largest the smaller size may grow to while searching for minMs (default 64 × n). */
  readonly maxN?: number;
}

export interface Growth {
  /** The sizes compared. */
  readonly small: number;
  readonly large: number;
  /** Fastest run at each size, ms of CPU time (the smaller's: its fastest sample ÷ factor). */
  readonly smallMs: number;
  readonly largeMs: number;
  /** largeMs ÷ smallMs: factor for linear work. */
  readonly ratio: number;
  /** Page faults of the sample with the fewest, per sample: `factor` runs of the smaller size, one of the larger. */
  readonly smallFaults: number;
  readonly largeFaults: number;
}

/**
 * The most the cost per unit of input may grow from N to factor × N: twice linear. It absorbs what
 * linear work legitimately pays more for at the larger size (a working set past a cache) and what is
 * left of the noise, and it is under n^1.5 work's √8 ≈ 2.8 and quadratic work's 8 at the default factor.
 */
export const LINEAR_GROWTH_BOUND = 2;

/** Rounds of `repeats` samples at most, taken while the ratio is over the bound. */
const MAX_ROUNDS = 4;

/**
 * What a page fault may cost on a busy machine, ms: about 0.0015 on an idle one here, 0.010–0.016 with
 * other processes taking fresh memory, and 0.014 in the busy runs where two growth tests failed
 * (docs/development.md, "Growth tests"). Used only by busyRatio.
 */
const BUSY_FAULT_MS = 0.015;

/** The ratio a factor allows: LINEAR_GROWTH_BOUND × factor. */
const boundFor = (factor: number): number => LINEAR_GROWTH_BOUND * factor;

interface Sample {
  /** CPU time, ms. */
  readonly ms: number;
  /** Minor page faults. */
  readonly faults: number;
}

/** A request to the driver: run `input` this many times back to back, as one sample. */
interface Step<T> {
  readonly input: T;
  readonly times: number;
}

/**
 * CPU time this process has used, ms (user + system), and its minor page faults. Not the wall clock:
 * when other processes share the cores, a long run is preempted where a short one is not, and
 * wall-clock ratios grow with the load, not with the work.
 */
function snapshot(): Sample {
  const u = process.resourceUsage();
  return { ms: (u.userCPUTime + u.systemCPUTime) / 1000, faults: u.minorPageFault };
}

const since = (start: Sample): Sample => {
  const now = snapshot();
  return { ms: now.ms - start.ms, faults: now.faults - start.faults };
};

/**
 * The measurement, as steps for a driver to run (synchronously or awaiting each run): the size
 * search, the warm-up (compilation and caches out of the timings), then rounds of alternating samples.
 */
function* measurement<T>(make: (n: number) => T, options: GrowthOptions): Generator<Step<T>, Growth, Sample> {
  const factor = options.factor ?? 8;
  const repeats = options.repeats ?? 7;
  const minMs = options.minMs ?? 1.5;
  const maxN = options.maxN ?? options.n * 64;
  let n = options.n;
  let smallInput = make(n);
  // The fastest of three runs: the first ones also compile the code.
  const fastestOf3 = function* (): Generator<Step<T>, number, Sample> {
    let ms = Infinity;
    for (let i = 0; i < 3; i++) ms = Math.min(ms, (yield { input: smallInput, times: 1 }).ms);
    return ms;
  };
  while ((yield* fastestOf3()) < minMs && n * 2 <= maxN) {
    n *= 2;
    smallInput = make(n);
  }
  const largeInput = make(n * factor);
  let fastest = Infinity;
  for (let i = 0; i < 3; i++) {
    yield { input: largeInput, times: 1 };
    fastest = Math.min(fastest, (yield { input: smallInput, times: factor }).ms / factor);
  }
  // At maxN a run may still be too short to time: each sample is then `runs` runs of each.
  const runs = Math.max(1, Math.ceil(minMs / Math.max(fastest, 1e-3)));
  let small: Sample = { ms: Infinity, faults: Infinity };
  let large: Sample = { ms: Infinity, faults: Infinity };
  const growth = (): Growth => ({
    small: n,
    large: n * factor,
    smallMs: small.ms / factor / runs,
    largeMs: large.ms / runs,
    ratio: (large.ms / Math.max(small.ms, 1e-3)) * factor,
    smallFaults: small.faults / runs,
    largeFaults: large.faults / runs,
  });
  for (let round = 0; round < MAX_ROUNDS && !(round > 0 && growth().ratio < boundFor(factor)); round++) {
    for (let i = 0; i < repeats; i++) {
      const s = yield { input: smallInput, times: factor * runs };
      const l = yield { input: largeInput, times: runs };
      small = { ms: Math.min(small.ms, s.ms), faults: Math.min(small.faults, s.faults) };
      large = { ms: Math.min(large.ms, l.ms), faults: Math.min(large.faults, l.faults) };
    }
  }
  return growth();
}

/** Times `run` on `make(n)` and `make(factor × n)`; inputs are built outside the timed part. */
export function measureGrowth<T>(make: (n: number) => T, run: (input: T) => unknown, options: GrowthOptions): Growth {
  const steps = measurement(make, options);
  let next = steps.next();
  while (!next.done) {
    const { input, times } = next.value;
    const start = snapshot();
    for (let k = 0; k < times; k++) run(input);
    next = steps.next(since(start));
  }
  return next.value;
}

/** The async form of measureGrowth, for work that awaits (a joiner's ingest, a stream). */
export async function measureGrowthAsync<T>(make: (n: number) => T, run: (input: T) => Promise<unknown>, options: GrowthOptions): Promise<Growth> {
  const steps = measurement(make, options);
  let next = steps.next();
  while (!next.done) {
    const { input, times } = next.value;
    const start = snapshot();
    for (let k = 0; k < times; k++) await run(input);
    next = steps.next(since(start));
  }
  return next.value;
}

/**
 * The ratio the same measurement would show with every page fault costing BUSY_FAULT_MS more: what a
 * busy machine can make of it. Page faults the two sizes take in proportion to their work change
 * nothing; those only the larger size takes (fresh memory past a threshold) raise it.
 */
export function busyRatio(growth: Growth): number {
  const factor = growth.large / growth.small;
  const smallBatchMs = growth.smallMs * factor + growth.smallFaults * BUSY_FAULT_MS;
  return ((growth.largeMs + growth.largeFaults * BUSY_FAULT_MS) / Math.max(smallBatchMs, 1e-3)) * factor;
}

/**
 * Asserts that the growth is linear: the cost per unit of input grows by less than
 * LINEAR_GROWTH_BOUND, as measured and as it would be measured on a busy machine (busyRatio).
 * Names the case and its figures on failure.
 */
export function expectLinear(what: string, growth: Growth): void {
  const factor = growth.large / growth.small;
  const figures = `${what}: ${growth.small} → ${growth.large} took ${growth.smallMs.toFixed(2)} → ${growth.largeMs.toFixed(2)} ms a run (×${growth.ratio.toFixed(1)}, linear is ×${factor}); page faults ${Math.round(growth.smallFaults)} (${factor} runs) → ${Math.round(growth.largeFaults)} (1 run)`;
  const busy = busyRatio(growth);
  const bound = boundFor(factor);
  const freshMemory =
    `${figures}; ×${busy.toFixed(1)} on a busy machine, where a page fault costs ${BUSY_FAULT_MS} ms: the larger size takes memory fresh ` +
    "from the kernel where the same work at the smaller reuses it (an object over 128 KiB gets pages of its own; glibc returns " +
    "freed memory past its trim threshold), so the ratio would follow the load: choose sizes on one side of the threshold";
  expect(Math.max(growth.ratio, busy), busy > growth.ratio && busy >= bound ? freshMemory : figures).toBeLessThan(bound);
}

/**
 * As expectLinear, for work that is n log n by design (a sort, a balanced tree): the ratio is first
 * divided by what n log n legitimately adds from N to factor × N, log(factor × N) ÷ log(N) (1.33 from
 * 500 to 4,000), so the bound stays twice that cost while quadratic work still lands far over it.
 */
export function expectNLogN(what: string, growth: Growth): void {
  const logs = Math.log(growth.large) / Math.log(growth.small);
  expectLinear(`${what} (÷ ${logs.toFixed(2)}, the growth of log n)`, { ...growth, ratio: growth.ratio / logs, largeMs: growth.largeMs / logs });
}
