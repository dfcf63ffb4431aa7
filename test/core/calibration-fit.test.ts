import { describe, expect, it } from "vitest";
import type { CausedFitRow, FitRow } from "../../src/core/calibration-fit.ts";
import { classOutcomes, fitThreshold, groundedAt, ratesAt, storableBetween } from "../../src/core/calibration-fit.ts";
import { expectNLogN, measureGrowth } from "../helpers/growth.ts";
import { rng } from "../../src/core/rng.ts";

const row = (label: 0 | 1, score: number, blocked?: FitRow["blocked"]): FitRow => ({ label, score, ...(blocked ? { blocked } : {}) });

describe("fitting a threshold by the verdict rule", () => {
  // Issue 36: calibrate counted a contradicted answer scoring over the threshold as passed; the scorer never passes it.
  it("counts an answer with a contradicted claim as flagged at every threshold", () => {
    const rows = [row(1, 0.9), row(1, 0.8), row(0, 0.3), row(0, 0.7, "contradicted"), row(1, 0.6, "contradicted")];
    const fit = fitThreshold(rows, "youden");
    expect(fit.groundedPassed + fit.groundedFlagged).toBe(3);
    expect(fit).toMatchObject({ groundedPassed: 2, ungroundedPassed: 0, tpr: 2 / 3, fpr: 0 });
    expect(ratesAt(rows, 0)).toMatchObject({ groundedPassed: 2, ungroundedPassed: 1 });
    expect(groundedAt(row(1, 1, "contradicted"), 0)).toBe(false);
  });

  // Issue 36: the threshold was stored rounded up (0.167391), above 29 grounded answers scoring 0.16739068.
  it("stores a threshold that classifies the fitted rows exactly as the rates say, ties at the cut included", () => {
    const rows: FitRow[] = [...Array.from({ length: 29 }, () => row(1, 0.16739068)), row(1, 0.9), row(0, 0.1673906), row(0, 0.05), row(0, 0.16739068)];
    const fit = fitThreshold(rows, "youden");
    expect(fit.threshold).toBeGreaterThan(0.1673906);
    expect(fit.threshold).toBeLessThanOrEqual(0.16739068);
    // What the file holds is what the scorer reads back.
    const stored = JSON.parse(JSON.stringify(fit.threshold)) as number;
    expect(ratesAt(rows, stored)).toEqual(fit);
    expect(fit.groundedPassed).toBe(30);
  });

  it("agrees, for random sets, with counting every candidate cut's verdicts one by one", () => {
    const rand = rng(7);
    for (let trial = 0; trial < 200; trial++) {
      const rows = Array.from({ length: 1 + Math.floor(rand() * 40) }, (): FitRow => {
        const label = rand() < 0.5 ? 1 : 0;
        const score = Math.round(rand() * 20) / 20;
        return row(label, score, rand() < 0.15 ? "contradicted" : undefined);
      });
      for (const criterion of ["youden", "f1", "accuracy", "target_fpr", "target_recall"] as const) {
        const fit = fitThreshold(rows, criterion, 0.2);
        expect(ratesAt(rows, fit.threshold)).toEqual(fit);
        expect(fit.threshold).toBeGreaterThanOrEqual(0);
        expect(fit.threshold).toBeLessThanOrEqual(1);
        // No cut does better by the criterion than the one chosen (by brute force over every score and above them).
        const cuts = [...new Set(rows.map((r) => r.score)), 1.0000001].map((t) => ratesAt(rows, Math.min(t, 1)));
        if (criterion === "youden") expect(Math.max(...cuts.map((c) => c.tpr - c.fpr))).toBeCloseTo(fit.tpr - fit.fpr, 12);
        if (criterion === "accuracy") expect(Math.max(...cuts.map((c) => c.accuracy))).toBeCloseTo(fit.accuracy, 12);
      }
    }
  });

  it("keeps a short decimal strictly between the two scores it falls between", () => {
    expect(storableBetween(0.1673906, 0.16739068)).toBe(0.16739064);
    expect(storableBetween(0.12, 0.2)).toBe(0.16);
    expect(storableBetween(0.3, 0.4)).toBe(0.35);
    expect(storableBetween(undefined, 0.16739068)).toBe(0.16739);
    // Adjacent doubles leave no room between them: the higher score itself.
    expect(storableBetween(0.3, 0.30000000000000004)).toBe(0.30000000000000004);
  });

  it("grows as n log n with the set's size", () => {
    const rand = rng(3);
    const rows = Array.from({ length: 8 * 4096 }, (): FitRow => row(rand() < 0.5 ? 1 : 0, rand(), rand() < 0.1 ? "contradicted" : undefined));
    expectNLogN(
      "threshold fit",
      measureGrowth(
        (n) => rows.slice(0, n),
        (r) => fitThreshold(r, "youden"),
        { n: 2048, maxN: 2048 },
      ),
    );
  });
});

describe("what each class gets from the threshold in force and the new one", () => {
  it("counts grounded answers passed and not-grounded ones caught, by labelled cause", () => {
    const rows: CausedFitRow[] = [
      { label: 1, score: 0.9 },
      { label: 1, score: 0.4 },
      { label: 0, score: 0.45, cause: "generation" },
      { label: 0, score: 0.2, cause: "generation" },
      { label: 0, score: 0.8, cause: "citation", blocked: "citation_not_retrieved" },
      { label: 0, score: 0.1, cause: "retrieval" },
      { label: 0, score: 0.6 },
    ];
    expect(classOutcomes(rows, 0.5, 0.3, ["retrieval", "generation"])).toEqual([
      { name: "grounded", label: 1, rows: 2, right: { inForce: 1, proposed: 2 } },
      { name: "retrieval", label: 0, rows: 1, right: { inForce: 1, proposed: 1 } },
      { name: "generation", label: 0, rows: 2, right: { inForce: 2, proposed: 1 } },
      { name: "citation", label: 0, rows: 1, right: { inForce: 1, proposed: 1 } },
      { name: "unlabelled", label: 0, rows: 1, right: { inForce: 0, proposed: 0 } },
    ]);
  });
});
