import { describe, expect, it } from "vitest";
import type { CascadeRow, CascadeSet } from "../../src/core/cascade-fit.ts";
import { answerDecision, cascadeFigures, fitCascade } from "../../src/core/cascade-fit.ts";

/** `n` one-claim answers scored `score`, `right` of them labelled as the score says (supported at 0.5 and above). */
function rows(score: number, n: number, right: number): CascadeRow[] {
  const says = score >= 0.5 ? 1 : 0;
  return Array.from({ length: n }, (_, i) => ({ label: (i < right ? says : 1 - says) as 0 | 1, claims: [{ score, contradiction: 0 }] }));
}

/** A set whose cheap tier is sure and right at the ends (0.95 and 0.02), unsure in the middle. */
function separable(name: string): CascadeSet {
  const half = [...rows(0.95, 100, 100), ...rows(0.8, 100, 80), ...rows(0.3, 100, 70), ...rows(0.02, 100, 99)];
  return { name, fit: half, check: half };
}

describe("fitting the cascade's thresholds", () => {
  it("chooses the widest thresholds whose decided answers are right 97% of the time on every set", () => {
    const fit = fitCascade([separable("a"), separable("b")]);
    expect(fit.thresholds).toEqual({ supportAbove: 0.805, unsupportBelow: 0.295 });
    expect(fit.decides).toBe(true);
    const a = fit.sets[0]?.check;
    expect(a?.saved).toBe(0.5);
    expect(a?.accuracy).toBeCloseTo(199 / 200, 6);
  });

  it("decides nothing (1 / 0) and says so when no region holds on every set", () => {
    const bad: CascadeSet = { name: "bad", fit: [...rows(0.95, 100, 50), ...rows(0.02, 100, 50)], check: [...rows(0.95, 100, 50), ...rows(0.02, 100, 50)] };
    const fit = fitCascade([separable("a"), bad]);
    expect(fit.thresholds).toEqual({ supportAbove: 1, unsupportBelow: 0 });
    expect(fit.decides).toBe(false);
    expect(fit.notes.join("\n")).toMatch(/supported side: no threshold is right 97% of the time on every fit half/);
    expect(fit.sets.every((s) => s.check.decidedClaims === 0)).toBe(true);
  });

  it("drops a side that holds on the fit halves but not on a check half", () => {
    const set: CascadeSet = { name: "drifting", fit: separable("x").fit, check: [...rows(0.95, 100, 60), ...rows(0.02, 100, 100)] };
    const fit = fitCascade([set]);
    expect(fit.thresholds.supportAbove).toBe(1);
    expect(fit.thresholds.unsupportBelow).toBeGreaterThan(0);
    expect(fit.notes.join("\n")).toMatch(/supported side: 0\.\d+ is right 97% of the time on every fit half but not on every check half \(drifting 60\/100\)/);
  });

  it("decides an answer unsupported when one claim is, supported only when all are, and never on a likely contradicted claim", () => {
    const t = { supportAbove: 0.9, unsupportBelow: 0.1 };
    expect(answerDecision({ label: 0, claims: [{ score: 0.95, contradiction: 0 }, { score: 0.05, contradiction: 0 }] }, t)).toEqual({ decision: "unsupported", decidedClaims: 2 });
    expect(answerDecision({ label: 1, claims: [{ score: 0.95, contradiction: 0 }, { score: 0.5, contradiction: 0 }] }, t)).toEqual({ decision: undefined, decidedClaims: 1 });
    expect(answerDecision({ label: 1, claims: [{ score: 0.95, contradiction: 0.6 }] }, t)).toEqual({ decision: undefined, decidedClaims: 0 });
    expect(answerDecision({ label: 1, claims: [] }, t)).toEqual({ decision: undefined, decidedClaims: 0 });
    expect(cascadeFigures([], t).accuracy).toBeNaN();
  });
});
