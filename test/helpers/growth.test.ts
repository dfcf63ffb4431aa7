import { describe, expect, it } from "vitest";
import { LINEAR_RATIO_BOUND, expectLinear, measureGrowth } from "./growth.ts";

const words = (n: number): string[] => Array.from({ length: n }, (_, i) => `message ${i}`);

describe("growth tests", () => {
  it("pass a keyed dedupe (linear)", () => {
    // Sizes that stay in the CPU cache: past it a hash set costs more per entry, which is not what is tested.
    expectLinear("Set dedupe", measureGrowth(words, (list) => new Set(list).size, { n: 2000, maxN: 8000 }));
  });

  it("catch a linear-scan dedupe (quadratic): the helper can fail", () => {
    const growth = measureGrowth(
      words,
      (list) => {
        const out: string[] = [];
        for (const w of list) if (!out.some((x) => x === w)) out.push(w);
        return out.length;
      },
      { n: 500 },
    );
    expect(growth.ratio).toBeGreaterThan(LINEAR_RATIO_BOUND);
  });
});
