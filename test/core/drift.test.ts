import { describe, expect, it } from "vitest";
import { createDriftTracker, ksStatistic, ksTest } from "../../src/core/drift.ts";

describe("two-sample Kolmogorov–Smirnov", () => {
  it("is 0 for identical samples and 1 for disjoint ones", () => {
    expect(ksStatistic([0.1, 0.2, 0.3], [0.3, 0.2, 0.1])).toBe(0);
    expect(ksStatistic([0.1, 0.2], [0.8, 0.9])).toBe(1);
  });

  it("counts all tied values before comparing the CDFs", () => {
    // a = {0, 0, 1, 1}, b = {0, 1, 1, 1}: at 0 the CDFs are 0.5 and 0.25 → D = 0.25.
    // Comparing mid-tie (after the first 0 of each) would give a wrong intermediate value.
    expect(ksStatistic([0, 0, 1, 1], [0, 1, 1, 1])).toBeCloseTo(0.25, 12);
    expect(ksStatistic([1, 1, 1, 1], [1, 1, 1, 1])).toBe(0);
  });

  it("gives a small p-value for clearly different samples and a large one for the same distribution", () => {
    const low = Array.from({ length: 100 }, (_, i) => (i % 50) / 100);
    const high = Array.from({ length: 100 }, (_, i) => 0.5 + (i % 50) / 100);
    expect(ksTest(low, high).pValue).toBeLessThan(1e-6);
    const same = Array.from({ length: 100 }, (_, i) => ((i * 37) % 100) / 100);
    expect(ksTest(low.map((x) => x * 2), same).pValue).toBeGreaterThan(0.5);
  });
});

describe("drift tracker", () => {
  it("gives no verdict on fewer than the minimum scores", () => {
    const t = createDriftTracker({ windowSize: 50, minScores: 20, reference: Array.from({ length: 50 }, () => 0.8) });
    for (let i = 0; i < 19; i++) t.add(0.2);
    expect(t.result()).toBeUndefined();
    t.add(0.2);
    expect(t.result()?.statistic).toBe(1);
  });

  it("uses the first full window as the reference when none is given, and ignores non-finite scores", () => {
    const t = createDriftTracker({ windowSize: 20, minScores: 20 });
    for (let i = 0; i < 20; i++) t.add(0.9);
    t.add(Number.NaN);
    for (let i = 0; i < 20; i++) t.add(0.1);
    expect(t.result()).toMatchObject({ statistic: 1, n: 20, m: 20 });
  });
});
