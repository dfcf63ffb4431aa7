import { describe, expect, it } from "vitest";
import { currentLabels } from "../../src/review/spool-files.ts";
import { majorityLabels } from "../../src/review/export.ts";
import { monitorPrecision } from "../../src/review/precision.ts";
import { precisionFixture } from "../helpers/review-spool.ts";
import { wilson } from "../helpers/wilson.ts";

const FROM = Date.parse("2026-11-01T00:00:00Z") / 1000;
const TO = Date.parse("2026-11-08T00:00:00Z") / 1000;


describe("the monitor's own precision", () => {
  const { records, labels } = precisionFixture();
  const majority = majorityLabels(currentLabels(labels)).labels;

  it("computes precision, miss rate and recall with intervals as by hand, with Prometheus' counts", () => {
    const p = monitorPrecision({ records, labels: majority, from: FROM, to: TO, counts: { flagged: 100, grounded: 900 } });
    expect(p.countsFrom).toBe("prometheus");
    // Precision 8/10 with Wilson [0.490157, 0.943319]; miss rate 1/20 with [0.008881, 0.236136].
    expect(p.flagged).toMatchObject({ answers: 100, reviewed: 10, notGrounded: 8, rate: 0.8 });
    expect(p.flagged.interval?.low).toBeCloseTo(0.490157, 6);
    expect(p.flagged.interval?.high).toBeCloseTo(0.943319, 6);
    expect(p.grounded).toMatchObject({ answers: 900, reviewed: 20, notGrounded: 1, rate: 0.05 });
    expect(p.grounded.interval?.low).toBeCloseTo(0.008881, 6);
    expect(p.grounded.interval?.high).toBeCloseTo(0.236136, 6);
    // Recall = 0.8·100 / (0.8·100 + 0.05·900) = 80 / 125 = 0.64; lowest from (0.490157, 0.236136), highest from (0.943319, 0.008881).
    const [pl, ph] = wilson(8, 10);
    const [ml, mh] = wilson(1, 20);
    expect(p.recall?.value).toBeCloseTo(0.64, 12);
    expect(p.recall?.low).toBeCloseTo((pl * 100) / (pl * 100 + mh * 900), 12);
    expect(p.recall?.high).toBeCloseTo((ph * 100) / (ph * 100 + ml * 900), 12);
    expect(p.recall?.low).toBeCloseTo(0.187413, 6);
    expect(p.recall?.high).toBeCloseTo(0.921885, 6);
  });

  it("estimates the period's answers from the spool's records over their sample rate without Prometheus", () => {
    const p = monitorPrecision({ records, labels: majority, from: FROM, to: TO });
    expect(p.countsFrom).toBe("spool");
    // 12 flagged kept at rate 1; 25 grounded samples kept at 5% stand for 500 grounded answers.
    expect(p.flagged.answers).toBe(12);
    expect(p.grounded.answers).toBeCloseTo(500, 9);
    // Recall = 0.8·12 / (0.8·12 + 0.05·500) = 9.6 / 34.6.
    expect(p.recall?.value).toBeCloseTo(9.6 / 34.6, 12);
    expect(p.recall?.low).toBeCloseTo(0.047454, 6);
    expect(p.recall?.high).toBeCloseTo(0.718243, 6);
  });

  it("trends by day over a week, each answer in the day it was scored", () => {
    const p = monitorPrecision({ records, labels: majority, from: FROM, to: TO });
    expect(p.trend.bucket).toBe("day");
    expect(p.trend.buckets).toHaveLength(7);
    // Day 1 (Nov 1) holds f0 and f7 (reviewed; f7 right) — both called not grounded — and g0, g7, g14, g21 (g0 a miss).
    const [first] = p.trend.buckets;
    expect(first).toMatchObject({ start: FROM, end: FROM + 86_400, flagged: { reviewed: 2, notGrounded: 2, rate: 1 }, grounded: { reviewed: 3, notGrounded: 1 } });
    expect(p.trend.buckets.reduce((n, b) => n + b.flagged.reviewed, 0)).toBe(10);
    expect(monitorPrecision({ records, labels: majority, from: FROM - 30 * 86_400, to: TO }).trend.bucket).toBe("week");
  });

  it("has no rates and no recall when nothing was reviewed", () => {
    const p = monitorPrecision({ records, labels: new Map(), from: FROM, to: TO });
    expect(p.flagged.rate).toBeNull();
    expect(p.flagged.interval).toBeNull();
    expect(p.recall).toBeNull();
  });
});
