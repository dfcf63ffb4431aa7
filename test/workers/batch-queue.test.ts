import { describe, expect, it } from "vitest";
import { rng } from "../../src/core/rng.ts";
import { createBatchQueue } from "../../src/workers/batch-queue.ts";

interface E {
  readonly name: string;
  readonly length: number;
  readonly key: string | undefined;
  readonly owner: number;
}

/**
 * The batch the batcher chose before it was indexed (a full sort of the queue by nearness to the
 * oldest's length, then by age): the reference the indexed queue must agree with.
 */
function sortedChoice(queue: readonly E[], maxBatch: number): Map<E, number> {
  const chosen = new Map<E, number>();
  const oldest = queue[0];
  if (!oldest) return chosen;
  const keys = new Map<string, number>();
  let distinct = 0;
  const byNearness = queue.map((e, i) => ({ e, i, d: Math.abs(e.length - oldest.length) })).sort((a, b) => a.d - b.d || a.i - b.i);
  for (const { e } of byNearness) {
    const same = e.key === undefined ? undefined : keys.get(e.key);
    if (same !== undefined) chosen.set(e, same);
    else if (distinct < maxBatch) {
      chosen.set(e, distinct);
      if (e.key !== undefined) keys.set(e.key, distinct);
      distinct++;
    }
  }
  return chosen;
}

describe("batch queue", () => {
  it("chooses every batch as a full sort of the queue by nearness to the oldest would, through arrivals, batches and withdrawals", () => {
    const random = rng(35);
    for (let trial = 0; trial < 40; trial++) {
      const maxBatch = 1 + Math.floor(random() * 6);
      const queue = createBatchQueue<E>();
      let reference: E[] = [];
      const byOwner = new Map<number, E[]>();
      let owner = 0;
      for (let step = 0; step < 120; step++) {
        const roll = random();
        if (roll < 0.5) {
          // A submitter's pairs: lengths from a small range (many ties), some identical within it.
          const mine: E[] = [];
          for (let k = 1 + Math.floor(random() * 5); k > 0; k--) {
            const length = Math.floor(random() * 12);
            const key = random() < 0.3 ? `o${owner}-same-${length}` : random() < 0.1 ? undefined : `o${owner}-${step}-${k}`;
            mine.push({ name: `o${owner}.${mine.length}`, length, key, owner });
          }
          for (const e of mine) queue.push(e);
          reference.push(...mine);
          byOwner.set(owner++, mine);
        } else if (roll < 0.85) {
          const expected = sortedChoice(reference, maxBatch);
          const { entries, slotOf, distinct } = queue.take(maxBatch);
          const got = new Map(entries.map((e, k) => [e, slotOf[k]]));
          expect(got).toEqual(expected);
          expect(distinct).toBe(new Set(expected.values()).size);
          reference = reference.filter((e) => !expected.has(e));
        } else if (byOwner.size > 0) {
          // A failed batch: one submitter's pairs still queued are withdrawn.
          const owners = [...byOwner.keys()];
          const failed = owners[Math.floor(random() * owners.length)] as number;
          queue.withdraw(byOwner.get(failed) ?? []);
          byOwner.delete(failed);
          reference = reference.filter((e) => e.owner !== failed);
        }
        expect(queue.size).toBe(reference.length);
        expect(queue.oldest()).toBe(reference[0]);
      }
    }
  });

  it("puts the oldest in the batch even when an older identical pair was withdrawn and a newer one rides in its group", () => {
    const queue = createBatchQueue<E>();
    const first = { name: "first", length: 5, key: "same", owner: 1 };
    const oldest = { name: "oldest", length: 5, key: "other", owner: 2 };
    const later = { name: "later", length: 5, key: "same", owner: 3 };
    for (const e of [first, oldest, later]) queue.push(e);
    queue.withdraw([first]);
    expect(queue.take(1).entries).toEqual([oldest]);
    expect(queue.take(1).entries).toEqual([later]);
    expect(queue.size).toBe(0);
  });

  it("answers an identical pair queued after its group was withdrawn on its own", () => {
    const queue = createBatchQueue<E>();
    const gone = { name: "gone", length: 5, key: "same", owner: 1 };
    const again = { name: "again", length: 5, key: "same", owner: 2 };
    queue.push(gone);
    queue.withdraw([gone]);
    queue.push(again);
    expect(queue.take(4)).toEqual({ entries: [again], slotOf: [0], distinct: 1 });
  });

  it("hands back every queued entry, oldest first, on clear, and is empty after", () => {
    const queue = createBatchQueue<E>();
    const es = [3, 1, 2].map((length, i) => ({ name: `e${i}`, length, key: undefined, owner: i }));
    for (const e of es) queue.push(e);
    queue.withdraw([es[1] as E]);
    expect(queue.clear()).toEqual([es[0], es[2]]);
    expect([queue.size, queue.oldest(), queue.take(4).entries]).toEqual([0, undefined, []]);
  });
});
