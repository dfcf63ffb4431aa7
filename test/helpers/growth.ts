/**
 * Growth tests: does the cost of a function grow linearly with its input? Attacker-controlled text
 * (answers, documents, messages, routes) reaches regexes, dedupes and parsers; a quadratic one is a
 * stall waiting to happen. These helpers time the work at size N and at 4N and compare: linear work
 * takes ~4× as long, quadratic ~16×. Only the ratio is asserted, never an absolute time, and each
 * side is the best of several interleaved runs of the process's CPU time (not the wall clock), so
 * other work on the machine does not count.
 */
import { expect } from "vitest";

export interface GrowthOptions {
  /** The smaller size (it is doubled until one run takes at least minMs, so the timings are measurable). */
  readonly n: number;
  /** The larger size is factor × the smaller (default 4). */
  readonly factor?: number;
  /** Runs per size and round; the fastest counts (default 7; up to 4 rounds while the ratio is over the bound). */
  readonly repeats?: number;
  /** The smaller size's fastest run is at least this long, ms (default 1.5): long enough to time, short enough to stay in cache. */
  readonly minMs?: number;
  /** The largest the smaller size may grow to while searching for minMs (default 64 × n). */
  readonly maxN?: number;
}

export interface Growth {
  /** The sizes compared. */
  readonly small: number;
  readonly large: number;
  /** Fastest run at each size, ms of CPU time. */
  readonly smallMs: number;
  readonly largeMs: number;
  /** largeMs ÷ smallMs. */
  readonly ratio: number;
}

/**
 * The most a linear cost may grow from N to 4N here: twice the 4× of linear work, to absorb timer
 * and scheduling noise, and half the 16× of quadratic work.
 */
export const LINEAR_RATIO_BOUND = 8;

/**
 * Rounds of `repeats` timings at most. Noise (another test file on the same core, a GC) only ever
 * adds time, so when a round's ratio is over the bound the fastest runs are looked for in another
 * round; a cost that really grows faster than linear stays over it in every round.
 */
const MAX_ROUNDS = 4;

const boundFor = (factor: number): number => (LINEAR_RATIO_BOUND * factor) / 4;

/**
 * CPU time this process has used, ms (user + system). Not the wall clock: when other processes
 * share the cores, a long run is preempted where a short one is not, and wall-clock ratios grow
 * with the load, not with the work.
 */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function timeOnce<T>(run: (input: T) => unknown, input: T): number {
  const t0 = cpuMs();
  run(input);
  return cpuMs() - t0;
}

/** Times `run` on `make(n)` and `make(factor × n)`; inputs are built outside the timed part. */
export function measureGrowth<T>(make: (n: number) => T, run: (input: T) => unknown, options: GrowthOptions): Growth {
  const factor = options.factor ?? 4;
  const repeats = options.repeats ?? 7;
  const minMs = options.minMs ?? 1.5;
  const maxN = options.maxN ?? options.n * 64;
  let n = options.n;
  let smallInput = make(n);
  run(smallInput); // warm-up: compilation and caches out of the timings
  while (timeOnce(run, smallInput) < minMs && n * 2 <= maxN) {
    n *= 2;
    smallInput = make(n);
    run(smallInput);
  }
  const largeInput = make(n * factor);
  run(largeInput);
  let smallMs = Infinity;
  let largeMs = Infinity;
  for (let round = 0; round < MAX_ROUNDS && !(largeMs / smallMs < boundFor(factor)); round++) {
    for (let i = 0; i < repeats; i++) {
      smallMs = Math.min(smallMs, timeOnce(run, smallInput));
      largeMs = Math.min(largeMs, timeOnce(run, largeInput));
    }
  }
  return { small: n, large: n * factor, smallMs, largeMs, ratio: largeMs / Math.max(smallMs, 1e-3) };
}

/** The async form of measureGrowth, for work that awaits (a joiner's ingest, a stream). */
export async function measureGrowthAsync<T>(make: (n: number) => T, run: (input: T) => Promise<unknown>, options: GrowthOptions): Promise<Growth> {
  const factor = options.factor ?? 4;
  const repeats = options.repeats ?? 7;
  const minMs = options.minMs ?? 1.5;
  const maxN = options.maxN ?? options.n * 64;
  const timeOnceAsync = async (input: T): Promise<number> => {
    const t0 = cpuMs();
    await run(input);
    return cpuMs() - t0;
  };
  let n = options.n;
  let smallInput = make(n);
  await run(smallInput);
  while ((await timeOnceAsync(smallInput)) < minMs && n * 2 <= maxN) {
    n *= 2;
    smallInput = make(n);
    await run(smallInput);
  }
  const largeInput = make(n * factor);
  await run(largeInput);
  let smallMs = Infinity;
  let largeMs = Infinity;
  for (let round = 0; round < MAX_ROUNDS && !(largeMs / smallMs < boundFor(factor)); round++) {
    for (let i = 0; i < repeats; i++) {
      smallMs = Math.min(smallMs, await timeOnceAsync(smallInput));
      largeMs = Math.min(largeMs, await timeOnceAsync(largeInput));
    }
  }
  return { small: n, large: n * factor, smallMs, largeMs, ratio: largeMs / Math.max(smallMs, 1e-3) };
}


/** Asserts that the growth is linear (ratio within LINEAR_RATIO_BOUND for a factor of 4), naming the case and its figures on failure. */
export function expectLinear(what: string, growth: Growth): void {
  const figures = `${what}: ${growth.small} → ${growth.large} took ${growth.smallMs.toFixed(2)} → ${growth.largeMs.toFixed(2)} ms (×${growth.ratio.toFixed(1)})`;
  expect(growth.ratio, figures).toBeLessThan(boundFor(growth.large / growth.small));
}
