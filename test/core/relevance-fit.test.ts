import { describe, expect, it } from "vitest";
import { MIN_RELEVANCE_FIT_EXAMPLES, balancedAccuracyAt, fitRelevanceThreshold, swapPartners } from "../../src/core/relevance-fit.ts";

const examples = (relevant: readonly number[], irrelevant: readonly number[]): Array<{ score: number; relevant: boolean }> => [
  ...relevant.map((score) => ({ score, relevant: true })),
  ...irrelevant.map((score) => ({ score, relevant: false })),
];
const spread = (n: number, from: number, to: number): number[] => Array.from({ length: n }, (_, i) => from + ((to - from) * i) / Math.max(1, n - 1));

describe("swapPartners", () => {
  it("gives every row a partner whose key is another text, the same on every run", () => {
    const keys = ["a", "a", "b", "c", "c", "d", "e", "e", "e", "f"];
    const partners = swapPartners(keys, 27);
    partners.forEach((p, i) => {
      expect(p).toBeDefined();
      expect(keys[p ?? i]).not.toBe(keys[i]);
    });
    expect(swapPartners(keys, 27)).toEqual(partners);
  });

  it("gives no partner when every row shares one key", () => {
    expect(swapPartners(["x", "x", "x"], 1)).toEqual([undefined, undefined, undefined]);
  });
});

describe("fitRelevanceThreshold", () => {
  it("puts the threshold between separable relevant and swapped scores, with its balanced accuracy and AUROC", () => {
    const fit = fitRelevanceThreshold(examples(spread(30, 0.6, 0.9), spread(30, 0.1, 0.4)));
    expect(fit.fitted).toBe(true);
    if (!fit.fitted) return;
    expect(fit.threshold).toBeCloseTo(0.5, 6);
    expect(fit.balancedAccuracy).toBe(1);
    expect(fit.auroc.auroc).toBe(1);
    expect(fit).toMatchObject({ relevant: 30, irrelevant: 30, tpr: 1, fpr: 0 });
  });

  it("maximises balanced accuracy, not accuracy, when one kind outnumbers the other", () => {
    // 200 swapped scores at 0.55 would pull an accuracy-maximising threshold above them; 25 relevant at 0.6, 25 at 0.5.
    const fit = fitRelevanceThreshold(examples([...Array<number>(25).fill(0.6), ...Array<number>(25).fill(0.5)], [...Array<number>(200).fill(0.3), ...Array<number>(25).fill(0.55)]));
    expect(fit.fitted && fit.threshold).toBeCloseTo(0.4, 6);
    expect(fit.fitted && fit.balancedAccuracy).toBeCloseTo((1 + 200 / 225) / 2, 6);
  });

  it("keeps no threshold from a handful of examples, and says why", () => {
    const fit = fitRelevanceThreshold(examples([0.9, 0.8, 0.7], [0.1, 0.2, 0.3]));
    expect(fit).toMatchObject({ fitted: false, relevant: 3, irrelevant: 3 });
    expect(!fit.fitted && fit.reason).toContain(`at least ${MIN_RELEVANCE_FIT_EXAMPLES} of each`);
  });

  it("drops scores that are not relevance scores before counting", () => {
    const fit = fitRelevanceThreshold(examples([...spread(20, 0.6, 0.9), Number.NaN, 2], spread(20, 0.1, 0.4)));
    expect(fit).toMatchObject({ fitted: true, relevant: 20, irrelevant: 20 });
  });
});

describe("balancedAccuracyAt", () => {
  it("averages the rates of relevant at or above the threshold and irrelevant below it", () => {
    expect(balancedAccuracyAt(examples([0.9, 0.4], [0.1, 0.6]), 0.5)).toBe(0.5);
    expect(balancedAccuracyAt(examples([0.9], []), 0.5)).toBeNaN();
  });
});
