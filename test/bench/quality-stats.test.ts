import { describe, expect, it } from "vitest";
import { compareQuality, percentileInterval, qualityFigures, stratifiedResamples, weightedAuroc, weightedRates } from "../../bench/quality-stats.ts";
import { rng } from "../../src/core/rng.ts";
import { auroc, balancedAccuracy } from "../../src/core/stats.ts";

/** A set of rows whose scores lean towards the label, with ties (scores on a grid of tenths). */
function sampleSet(n: number, seed: number, lean = 0.3): { scores: number[]; labels: number[] } {
  const next = rng(seed);
  const labels = Array.from({ length: n }, () => (next() < 0.5 ? 1 : 0));
  const scores = labels.map((y) => Math.round(Math.min(1, Math.max(0, next() * 0.7 + (y === 1 ? lean : 0))) * 10) / 10);
  return { scores, labels };
}

const orderOf = (scores: readonly number[]): number[] => scores.map((_, k) => k).sort((a, b) => (scores[a] ?? 0) - (scores[b] ?? 0));

describe("the quality bench's statistics", () => {
  it("weights every row once to the plain AUROC, ties counting one half", () => {
    const { scores, labels } = sampleSet(300, 7);
    expect(weightedAuroc(scores, labels, orderOf(scores), scores.map(() => 1))).toBeCloseTo(auroc(scores, labels), 12);
  });

  it("counts a row drawn twice as two rows", () => {
    const { scores, labels } = sampleSet(50, 11);
    const weights = scores.map((_, k) => (k % 3 === 0 ? 2 : k % 3 === 1 ? 1 : 0));
    const expanded = scores.flatMap((s, k) => Array.from({ length: weights[k] ?? 0 }, () => ({ s, y: labels[k] ?? 0 })));
    expect(weightedAuroc(scores, labels, orderOf(scores), weights)).toBeCloseTo(
      auroc(
        expanded.map((e) => e.s),
        expanded.map((e) => e.y),
      ),
      12,
    );
  });

  it("reads a supported row below the threshold as a false alarm and an unsupported one at or above it as a miss", () => {
    const scores = [0.9, 0.2, 0.6, 0.5, 0.1];
    const labels = [1, 1, 0, 0, 0];
    const r = weightedRates(scores, labels, 0.5, [1, 1, 1, 1, 1]);
    expect(r.falseAlarmRate).toBeCloseTo(1 / 2, 12);
    expect(r.missRate).toBeCloseTo(2 / 3, 12);
    expect(r.balancedAccuracy).toBeCloseTo(balancedAccuracy(scores, labels, 0.5), 12);
  });

  it("draws as many supported and unsupported rows as the set has in every resample", () => {
    const { labels } = sampleSet(101, 3);
    const pos = labels.filter((y) => y === 1).length;
    for (const w of stratifiedResamples(labels, 20, 5)) {
      expect(w.reduce((a, x, k) => a + (labels[k] === 1 ? x : 0), 0)).toBe(pos);
      expect(w.reduce((a, x) => a + x, 0)).toBe(labels.length);
    }
  });

  it("gives the same intervals for the same scores and seed, and an interval around the figure", () => {
    const { scores, labels } = sampleSet(400, 13);
    const a = qualityFigures("set", scores, labels, 0.5, { resamples: 300 });
    expect(qualityFigures("set", scores, labels, 0.5, { resamples: 300 })).toEqual(a);
    expect(a.aurocInterval.low).toBeLessThan(a.auroc);
    expect(a.aurocInterval.high).toBeGreaterThan(a.auroc);
    expect(a.balancedAccuracyInterval.low).toBeLessThanOrEqual(a.balancedAccuracy);
    expect(a.balancedAccuracyInterval.high).toBeGreaterThanOrEqual(a.balancedAccuracy);
  });

  it("finds no difference and says within interval when the two scorings agree", () => {
    const { scores, labels } = sampleSet(300, 17);
    const c = compareQuality("set", labels, { scores, threshold: 0.5 }, { scores: [...scores], threshold: 0.5 }, { resamples: 200 });
    expect(c.delta.auroc).toBe(0);
    expect(c.delta.aurocInterval).toEqual({ low: 0, high: 0 });
    expect(c.delta.balancedAccuracy).toBe(0);
    expect(c.verdict).toBe("within interval");
  });

  it("says lower beyond interval when the after AUROC falls below the before's interval, with a paired interval below 0", () => {
    const before = sampleSet(400, 19, 0.5);
    const after = sampleSet(400, 19, 0.1);
    expect(after.labels).toEqual(before.labels);
    const c = compareQuality("set", before.labels, { scores: before.scores, threshold: 0.5 }, { scores: after.scores, threshold: 0.5 }, { resamples: 200 });
    expect(c.after.auroc).toBeLessThan(c.before.aurocInterval.low);
    expect(c.verdict).toBe("lower beyond interval");
    expect(c.delta.aurocInterval.high).toBeLessThan(0);
    const back = compareQuality("set", before.labels, { scores: after.scores, threshold: 0.5 }, { scores: before.scores, threshold: 0.5 }, { resamples: 200 });
    expect(back.verdict).toBe("higher beyond interval");
  });

  it("leaves resamples without a figure out of the interval", () => {
    expect(percentileInterval([NaN, 0.2, 0.4, NaN])).toEqual({ low: 0.2, high: 0.4 });
    expect(percentileInterval([NaN])).toEqual({ low: NaN, high: NaN });
  });
});
