import { describe, expect, it } from "vitest";
import { aurocWithInterval, calibrationVerdict, chooseThreshold, explainCalibrationFailure, hanleyMcNeilSe, labelsToSettle, wilsonInterval } from "../../src/core/calibration.ts";

describe("AUROC interval", () => {
  it("matches a hand computation of the Hanley–McNeil standard error", () => {
    // A = 0.9, 50/50: Q1 = 0.9/1.1 = 0.81818, Q2 = 2·0.81/1.9 = 0.85263,
    // V = (0.09 + 49·(Q1 − 0.81) + 49·(Q2 − 0.81)) / 2500 = 0.0010319 → SE = 0.03212.
    expect(hanleyMcNeilSe(0.9, 50, 50)).toBeCloseTo(0.03212, 4);
  });

  it("applies a continuity correction at perfect separation instead of a zero-width interval", () => {
    const est = aurocWithInterval([0.1, 0.2, 0.3, 0.7, 0.8, 0.9], [0, 0, 0, 1, 1, 1]);
    expect(est.auroc).toBe(1);
    expect(est.continuityCorrected).toBe(true);
    expect(est.low).toBeLessThan(1);
    expect(est.high).toBe(1);
  });

  it("includes 0.5 for a weak signal on few labels, and estimates how many more would settle it", () => {
    const scores = [0.4, 0.6, 0.5, 0.55, 0.45, 0.7, 0.3, 0.65];
    const labels = [0, 1, 0, 1, 1, 1, 0, 0];
    const est = aurocWithInterval(scores, labels);
    expect(est.low).toBeLessThan(0.5);
    const more = labelsToSettle(est);
    expect(more).toBeGreaterThan(0);
  });

  it("says no realistic set would settle a null effect", () => {
    expect(labelsToSettle({ auroc: 0.5, low: 0.3, high: 0.7, positives: 10, negatives: 10, continuityCorrected: false })).toBeUndefined();
  });
});

describe("threshold criteria", () => {
  const scores = [0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9];
  const labels = [0, 0, 0, 1, 0, 1, 1, 1];
  // The threshold returned is the one to store: midway between the chosen score and the next lower one.
  it("maximises Youden's J", () => {
    expect(chooseThreshold(scores, labels, "youden")).toMatchObject({ threshold: 0.35, tpr: 1, fpr: 0.25 });
  });
  it("keeps the false-positive rate at or under a target", () => {
    expect(chooseThreshold(scores, labels, "target_fpr", 0)).toMatchObject({ threshold: 0.65, fpr: 0, tpr: 0.75 });
  });
  it("keeps recall at a target with the highest threshold", () => {
    expect(chooseThreshold(scores, labels, "target_recall", 1)).toMatchObject({ threshold: 0.35, tpr: 1 });
  });
  it("maximises accuracy and F1", () => {
    expect(chooseThreshold(scores, labels, "accuracy").accuracy).toBe(0.875);
    expect(chooseThreshold(scores, labels, "f1").f1).toBeCloseTo(8 / 9, 9);
  });
});

describe("Wilson interval", () => {
  it("brackets the proportion and stays within [0, 1]", () => {
    const w = wilsonInterval(5, 100);
    expect(w.low).toBeCloseTo(0.0215, 3);
    expect(w.high).toBeCloseTo(0.1118, 3);
    expect(wilsonInterval(0, 10).low).toBe(0);
  });
});

describe("calibration verdict", () => {
  it("passes an interval above 0.5, calls one below anti-correlated, and one that includes 0.5 weak", () => {
    expect(calibrationVerdict({ low: 0.51, high: 1 })).toBe("pass");
    expect(calibrationVerdict({ low: 0, high: 0.49 })).toBe("anti-correlated");
    expect(calibrationVerdict({ low: 0.295, high: 1 })).toBe("weak");
    expect(calibrationVerdict({ low: 0.5, high: 0.9 })).toBe("weak");
  });

  it("explains a failed verdict and what to do, and nothing for a pass", () => {
    const auroc = { value: 0.667, low: 0.295, high: 1 };
    expect(explainCalibrationFailure({ verdict: "pass", auroc, labelsToSettle: 0 })).toBeUndefined();
    const weak = explainCalibrationFailure({ verdict: "weak", auroc, labelsToSettle: 40 });
    expect(weak?.meaning).toBe("the AUROC's 95% interval (0.295–1.000) includes 0.5, so the labelled set has not shown that the score separates grounded from ungrounded answers, and the threshold fitted on it is not evidence");
    expect(weak?.advice).toContain("about 40 more labelled rows would settle it");
    expect(explainCalibrationFailure({ verdict: "weak", auroc, labelsToSettle: null })?.advice).toContain("no realistic labelled set would settle it");
    expect(explainCalibrationFailure({ verdict: "anti-correlated", auroc: { value: 0.1, low: 0, high: 0.3 }, labelsToSettle: 0 })?.advice).toContain("1 must mean grounded");
    expect(explainCalibrationFailure({ verdict: undefined, auroc: undefined, labelsToSettle: undefined })?.meaning).toContain("records no AUROC interval or verdict");
  });
});
