import { describe, expect, it } from "vitest";
import { createDriftTracker, effectiveSize, ksStatistic, ksTest, weightedKsTest } from "../../src/core/drift.ts";
import { rng } from "../../src/core/rng.ts";

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

describe("weighted two-sample Kolmogorov–Smirnov", () => {
  const a = [0.1, 0.2, 0.2, 0.4, 0.7];
  const b = [0.2, 0.3, 0.5, 0.9];

  it("is the usual test without weights, and with equal weights", () => {
    expect(weightedKsTest({ scores: a }, { scores: b })).toEqual(ksTest(a, b));
    const equal = weightedKsTest({ scores: a, weights: a.map(() => 3) }, { scores: b });
    expect(equal.statistic).toBeCloseTo(ksTest(a, b).statistic, 12);
    expect(equal.pValue).toBeCloseTo(ksTest(a, b).pValue, 12);
    expect(equal.effectiveN).toBeCloseTo(5, 12);
  });

  it("compares weighted CDFs as copies of each score would (scipy's ks_2samp on the copies gives D = 0.375), but counts the scores, not the copies", () => {
    const weights = [1, 2, 1, 3, 1];
    const copies = a.flatMap((s, i) => Array.from({ length: weights[i] ?? 1 }, () => s));
    const weighted = weightedKsTest({ scores: a, weights }, { scores: b });
    expect(weighted.statistic).toBeCloseTo(0.375, 12);
    expect(ksTest(copies, b).statistic).toBeCloseTo(0.375, 12);
    // Five scores are worth fewer than five equally weighted ones, never the eight copies: the p-value is larger.
    expect(weighted.effectiveN).toBeLessThan(5);
    expect(weighted.pValue).toBeGreaterThan(ksTest(copies, b).pValue);
  });

  it("sizes a sample whose weights are unrelated to its scores as Kish does, and one whose weights follow its scores smaller", () => {
    expect(effectiveSize({ scores: a })).toBe(5);
    const random = rng(11);
    const scores = Array.from({ length: 4000 }, () => random());
    const unrelated = scores.map(() => (random() < 0.5 ? 1 : 4));
    const kish = (w: number[]): number => w.reduce((x, y) => x + y, 0) ** 2 / w.reduce((x, y) => x + y * y, 0);
    expect(effectiveSize({ scores, weights: unrelated }) / kish(unrelated)).toBeGreaterThan(0.95);
    expect(effectiveSize({ scores, weights: unrelated })).toBeLessThanOrEqual(kish(unrelated));
    // A review sample: every score under 0.5 kept (weight 1), 5% of the rest (weight 20). The high half rests on few answers.
    const kept = scores.filter((s) => s < 0.5 || random() < 0.05);
    const weights = kept.map((s) => (s < 0.5 ? 1 : 20));
    expect(effectiveSize({ scores: kept, weights })).toBeLessThan(0.9 * kish(weights));
  });
});

describe("drift tracker", () => {
  it("gives no verdict on fewer than the minimum scores", () => {
    const t = createDriftTracker({ windowSize: 50, minScores: 20, reference: { scores: Array.from({ length: 50 }, () => 0.8) } });
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

  it("gives no verdict against a weighted reference worth fewer than the minimum scores, whatever its rows", () => {
    // 30 rows, 10 of them weighing 20: worth at most 12 equally weighted answers (Kish: 220² / 4,020).
    const scores = Array.from({ length: 30 }, (_, i) => i / 30);
    const weights = scores.map((_, i) => (i >= 20 ? 20 : 1));
    const t = createDriftTracker({ windowSize: 40, minScores: 20, reference: { scores, weights } });
    for (let i = 0; i < 40; i++) t.add(i / 40);
    expect(t.result()).toBeUndefined();
    const u = createDriftTracker({ windowSize: 40, minScores: 10, reference: { scores, weights } });
    for (let i = 0; i < 40; i++) u.add(i / 40);
    expect(u.result()?.effectiveN).toBeLessThan(20);
  });
});
