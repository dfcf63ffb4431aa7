import { describe, it } from "vitest";
import { rng } from "../../src/core/rng.ts";
import { createDynamicBatcher } from "../../src/workers/batcher.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";

interface Pair {
  readonly key: string;
  readonly length: number;
}

/** N pairs of varied lengths (seeded), a few of them identical, as one worker's queue fills under load. */
function queueOf(n: number): Pair[] {
  const random = rng(n);
  return Array.from({ length: n }, (_, i) => {
    const length = 40 + Math.floor(random() * 2_000);
    return { key: i % 17 === 0 ? `same-${length}` : `pair-${i}`, length };
  });
}

describe("dynamic batcher growth (redteam-4 L7)", () => {
  it("dispatches a queue of N pairs in time near linear in N, not a full sort of the queue per batch", () => {
    // Every slot free and no wait bound: one submission of N pairs goes out at once as N / maxBatch
    // batches at once. The batches never settle, so only the dispatching is timed.
    const dispatchAll = (pairs: readonly Pair[]): void => {
      const batcher = createDynamicBatcher<Pair, number>({
        maxBatch: 16,
        waitMs: 0,
        slots: () => Number.MAX_SAFE_INTEGER,
        lengthOf: (p) => p.length,
        keyOf: (p) => p.key,
        run: () => new Promise<readonly number[]>(() => undefined),
      });
      void batcher.submit(pairs);
      if (batcher.queued !== 0) throw new Error(`${batcher.queued} pair(s) left queued`);
    };
    expectLinear("dispatching a queue of N pairs", measureGrowth(queueOf, dispatchAll, { n: 1_000, maxN: 16_000, repeats: 5 }));
  });
});
