import { describe, expect, it } from "vitest";
import { createOrderedNumbers } from "../../src/workers/ordered-numbers.ts";
import { rng } from "../../src/core/rng.ts";
import { expectNLogN, measureGrowth } from "../helpers/growth.ts";

/** The neighbours of x in a sorted array, the slow and obvious way. */
const below = (sorted: readonly number[], x: number): number | undefined => sorted.filter((v) => v < x).at(-1);
const above = (sorted: readonly number[], x: number): number | undefined => sorted.find((v) => v > x);

describe("ordered numbers", () => {
  it("answer the neighbours a sorted array would, through additions and deletions in any order", () => {
    const random = rng(7);
    const set = createOrderedNumbers();
    const reference = new Set<number>();
    for (let step = 0; step < 3_000; step++) {
      const x = Math.floor(random() * 200) - 50;
      if (random() < 0.6) {
        set.add(x);
        reference.add(x);
      } else {
        set.delete(x);
        reference.delete(x);
      }
      const sorted = [...reference].sort((a, b) => a - b);
      const probe = random() * 260 - 80;
      expect(set.size).toBe(reference.size);
      expect([set.below(probe), set.above(probe)]).toEqual([below(sorted, probe), above(sorted, probe)]);
      expect([set.below(x), set.above(x)]).toEqual([below(sorted, x), above(sorted, x)]);
    }
  });

  it("keep one copy of a number added twice, and ignore deleting one that is absent", () => {
    const set = createOrderedNumbers();
    set.add(3);
    set.add(3);
    set.delete(4);
    expect(set.size).toBe(1);
    set.delete(3);
    expect([set.size, set.below(10), set.above(-10)]).toEqual([0, undefined, undefined]);
  });

  it("refuse NaN, which has no place in an order", () => {
    expect(() => createOrderedNumbers().add(Number.NaN)).toThrow(RangeError);
  });

  it("stay balanced when numbers arrive sorted: n additions and look-ups cost n log n, not n²", () => {
    const run = (n: number): void => {
      const set = createOrderedNumbers();
      for (let i = 0; i < n; i++) set.add(i);
      for (let i = 0; i < n; i++) set.above(i);
      for (let i = 0; i < n; i++) set.delete(i);
    };
    // n log n by design: the ratio is read per n log n. 500 against 4,000 numbers keeps both trees in the
    // CPU's caches (at 2,000 against 16,000 the larger one was ×15–21 per number on an idle machine).
    expectNLogN("sorted additions, look-ups and deletions", measureGrowth((n) => n, run, { n: 500, maxN: 500 }));
  });
});
