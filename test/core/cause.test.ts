import { describe, expect, it } from "vitest";
import { CAUSE_MARGINS, answerCause, claimCause, isWeakFailure } from "../../src/core/cause.ts";

const unsupported = (score: number, contradiction = 0.02) => ({ verdict: "unsupported" as const, score, contradiction });
const evidence = (relevance: number | undefined) => ({ threshold: 0.4, relevance, relevanceThreshold: 0.45 });

describe("cause margins", () => {
  it("calls a failure weak when the claim's contribution lies less than a quarter of the threshold below it, a contradicted claim by the smaller of its score and 1 − contradiction", () => {
    expect(CAUSE_MARGINS.claim).toBe(0.25);
    expect(isWeakFailure(unsupported(0.38), 0.4)).toBe(true);
    expect(isWeakFailure(unsupported(0.31), 0.4)).toBe(true);
    expect(isWeakFailure(unsupported(0.29), 0.4)).toBe(false);
    // Contradicted: 0.45 support, 0.6 contradiction contributes 0.4: a near miss at 0.5; 0.8 contradiction contributes 0.2: clear.
    expect(isWeakFailure({ score: 0.45, contradiction: 0.6 }, 0.5)).toBe(true);
    expect(isWeakFailure({ score: 0.45, contradiction: 0.8 }, 0.5)).toBe(false);
    // The margin scales with the threshold: 0.15 is a near miss at a calibrated 0.17, a clear failure at 0.4.
    expect(isWeakFailure(unsupported(0.15), 0.17)).toBe(true);
    expect(isWeakFailure(unsupported(0.15), 0.4)).toBe(false);
  });

  it("names retrieval or generation only when the relevance lies at least the relevance margin from its threshold", () => {
    expect(CAUSE_MARGINS.relevance).toBe(0.05);
    expect(claimCause(unsupported(0.05), evidence(0.1))).toEqual({ cause: "retrieval" });
    expect(claimCause(unsupported(0.05), evidence(0.39))).toEqual({ cause: "retrieval" });
    expect(claimCause(unsupported(0.05), evidence(0.42))).toEqual({ cause: "unknown", reason: "borderline_relevance" });
    expect(claimCause(unsupported(0.05), evidence(0.48))).toEqual({ cause: "unknown", reason: "borderline_relevance" });
    expect(claimCause(unsupported(0.05), evidence(0.51))).toEqual({ cause: "generation" });
    expect(claimCause(unsupported(0.05), evidence(undefined))).toEqual({ cause: "unknown", reason: "relevance_unmeasured" });
  });

  it("decides a weak failure unknown before relevance, and a citation failure before either", () => {
    expect(claimCause(unsupported(0.35), evidence(0.05))).toEqual({ cause: "unknown", reason: "weak_failure" });
    expect(claimCause(unsupported(0.35), evidence(undefined))).toEqual({ cause: "unknown", reason: "weak_failure" });
    expect(claimCause({ verdict: "misattributed", score: 0.35, contradiction: 0 }, evidence(0.9))).toEqual({ cause: "citation" });
  });

  it("gives the answer the cause its named claims share, setting unknown ones aside, and says why it is unknown when none is named", () => {
    expect(answerCause([{ cause: "retrieval" }, { cause: "unknown", reason: "weak_failure" }])).toEqual({ cause: "retrieval" });
    expect(answerCause([{ cause: "generation" }, { cause: "unknown", reason: "borderline_relevance" }, { cause: "citation" }])).toEqual({ cause: "mixed" });
    expect(answerCause([{ cause: "unknown", reason: "weak_failure" }, { cause: "unknown", reason: "weak_failure" }])).toEqual({ cause: "unknown", reason: "weak_failure" });
    expect(answerCause([{ cause: "unknown", reason: "weak_failure" }, { cause: "unknown", reason: "borderline_relevance" }])).toEqual({ cause: "unknown", reason: "borderline_relevance" });
    expect(answerCause([{ cause: "unknown", reason: "weak_failure" }, { cause: "unknown", reason: "relevance_unmeasured" }])).toEqual({ cause: "unknown", reason: "relevance_unmeasured" });
    expect(answerCause([])).toEqual({ cause: "unknown", reason: "relevance_unmeasured" });
  });
});
