import { describe, expect, it } from "vitest";
import { rng } from "../../src/core/rng.ts";
import { createBatchQueue } from "../../src/workers/batch-queue.ts";
import { createRankedQueue } from "../../src/workers/ranked-queue.ts";

interface E {
  readonly name: string;
  readonly length: number;
  readonly key: string | undefined;
  readonly rank: number;
}

/** Random pushes, withdrawals and takes, applied by `apply` (seeded: the same sequence for every queue). */
function randomOps(seed: number, ranks: readonly number[], apply: (op: { kind: "push"; entries: E[] } | { kind: "withdraw"; entries: E[] } | { kind: "take"; maxBatch: number }) => void): void {
  const random = rng(seed);
  const pushed: E[] = [];
  let n = 0;
  for (let step = 0; step < 150; step++) {
    const roll = random();
    if (roll < 0.5) {
      const rank = ranks[Math.floor(random() * ranks.length)] as number;
      const entries: E[] = [];
      for (let k = 1 + Math.floor(random() * 5); k > 0; k--) {
        const length = Math.floor(random() * 12);
        entries.push({ name: `e${n++}`, length, key: random() < 0.3 ? `same-${length}` : undefined, rank });
      }
      pushed.push(...entries);
      apply({ kind: "push", entries });
    } else if (roll < 0.6 && pushed.length > 0) {
      apply({ kind: "withdraw", entries: pushed.filter(() => random() < 0.2) });
    } else apply({ kind: "take", maxBatch: 1 + Math.floor(random() * 5) });
  }
}

describe("ranked batch queue", () => {
  it("chooses exactly as the unranked queue when every entry has one rank", () => {
    for (let seed = 1; seed <= 30; seed++) {
      for (const rank of [Infinity, 4]) {
        const plain = createBatchQueue<E>();
        const ranked = createRankedQueue<E>();
        randomOps(seed, [rank], (op) => {
          if (op.kind === "push") {
            for (const e of op.entries) {
              plain.push(e);
              ranked.push(e);
            }
          } else if (op.kind === "withdraw") {
            plain.withdraw(op.entries);
            ranked.withdraw(op.entries);
          } else {
            const a = plain.take(op.maxBatch);
            const b = ranked.take(op.maxBatch);
            expect(b.entries.map((e) => e.name)).toEqual(a.entries.map((e) => e.name));
            expect(b.slotOf).toEqual(a.slotOf);
          }
          expect(ranked.size).toBe(plain.size);
          expect(ranked.oldest()?.name).toBe(plain.oldest()?.name);
        });
      }
    }
  });

  it("leads every batch with the lowest rank queued, fills it only when that rank runs out, and loses no entry", () => {
    for (let seed = 1; seed <= 30; seed++) {
      const queue = createRankedQueue<E>();
      const queued = new Map<string, E>();
      randomOps(seed, [1, 2, 3, Infinity], (op) => {
        if (op.kind === "push") {
          for (const e of op.entries) {
            queue.push(e);
            queued.set(e.name, e);
          }
        } else if (op.kind === "withdraw") {
          queue.withdraw(op.entries);
          for (const e of op.entries) queued.delete(e.name);
        } else {
          const lowest = Math.min(...[...queued.values()].map((e) => e.rank));
          const batch = queue.take(op.maxBatch);
          for (const e of batch.entries) {
            expect(queued.delete(e.name)).toBe(true);
          }
          if (batch.entries.length === 0) return expect(queued.size).toBe(0);
          expect(batch.distinct).toBeLessThanOrEqual(op.maxBatch);
          // The lowest rank leads; another rank's entry is in the batch only riding along with an identical one, or when the lowest ran out.
          expect(batch.entries[0]?.rank).toBe(lowest);
          const leftOfLowest = [...queued.values()].some((e) => e.rank === lowest);
          const leadKeys = new Set(batch.entries.filter((e) => e.rank === lowest).map((e) => e.key));
          for (const e of batch.entries) if (e.rank !== lowest && leftOfLowest) expect(e.key !== undefined && leadKeys.has(e.key)).toBe(true);
        }
        expect(queue.size).toBe(queued.size);
      });
    }
  });
});
