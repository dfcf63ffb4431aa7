import { describe, expect, it } from "vitest";
import { fitLogistic } from "../../src/core/logistic.ts";
import { auroc, balancedAccuracy, bestBalancedThreshold, reliability } from "../../src/core/stats.ts";

describe("auroc", () => {
  it("is 1 for perfect separation, 0 for reversed, 0.5 for all ties", () => {
    expect(auroc([0.1, 0.2, 0.8, 0.9], [0, 0, 1, 1])).toBe(1);
    expect(auroc([0.9, 0.8, 0.2, 0.1], [0, 0, 1, 1])).toBe(0);
    expect(auroc([0.5, 0.5, 0.5, 0.5], [0, 1, 0, 1])).toBe(0.5);
  });

  it("counts tied positive/negative pairs as one half (mid-ranks)", () => {
    // Pairs (pos, neg): (0.5 vs 0.5) tie = 0.5, (0.5 vs 0.2) = 1, (0.9 vs 0.5) = 1, (0.9 vs 0.2) = 1 → 3.5 / 4.
    expect(auroc([0.2, 0.5, 0.5, 0.9], [0, 0, 1, 1])).toBeCloseTo(0.875, 12);
  });

  it("is NaN when a class is missing", () => {
    expect(auroc([0.1, 0.2], [1, 1])).toBeNaN();
  });
});

describe("balanced accuracy", () => {
  it("averages the true-positive and true-negative rates", () => {
    // TPR 1/2, TNR 2/2.
    expect(balancedAccuracy([0.9, 0.2, 0.1, 0.3], [1, 1, 0, 0], 0.5)).toBeCloseTo(0.75, 12);
  });

  it("finds the threshold that separates the classes", () => {
    const r = bestBalancedThreshold([0.1, 0.2, 0.6, 0.7], [0, 0, 1, 1]);
    expect(r.balancedAccuracy).toBe(1);
    expect(r.threshold).toBe(0.6);
  });
});

describe("reliability", () => {
  it("bins predictions and measures the calibration error", () => {
    const { bins, ece } = reliability([0.05, 0.05, 0.95, 0.95], [0, 0, 1, 1], 10);
    expect(bins[0]?.count).toBe(2);
    expect(bins[9]?.observedRate).toBe(1);
    expect(ece).toBeCloseTo(0.05, 12);
  });
});

describe("fitLogistic", () => {
  it("recovers the weights that generated the labels", () => {
    // Deterministic grid; labels drawn from p = σ(-1 + 2x) by a fixed low-discrepancy sequence.
    const x: number[][] = [];
    const y: number[] = [];
    for (let i = 0; i < 4000; i++) {
      const xi = (i % 40) / 10 - 2;
      const p = 1 / (1 + Math.exp(-(-1 + 2 * xi)));
      const u = (i * 0.6180339887) % 1;
      x.push([xi]);
      y.push(u < p ? 1 : 0);
    }
    const fit = fitLogistic(x, y, { l2: 0 });
    expect(fit.bias).toBeCloseTo(-1, 0);
    expect(fit.weights[0]).toBeCloseTo(2, 0);
  });
});
