import { describe, expect, it } from "vitest";
import type { ResolvedCitation } from "../../src/core/citations.ts";
import type { ContextWindow } from "../../src/core/context.ts";
import { claimsWithinBudget } from "../../src/core/plan.ts";
import type { Evidence } from "../../src/core/result.ts";
import type { ClaimJudging, JudgedWindow } from "../../src/core/verdict.ts";
import { answerContribution, isContradicted, judgeClaim, misattributedCitations } from "../../src/core/verdict.ts";

const CLAIM = { index: 0, text: "Refunds take 5 days.", start: 0, end: 20 };

function win(doc: number, id = doc): ContextWindow {
  return { id, doc, start: 0, end: 10, text: `window ${id}`, tokens: 3, terms: [], sentences: [] };
}

function judged(w: ContextWindow, entailment: number, contradiction = 0): JudgedWindow {
  return { w, r: { entailment, contradiction, neutral: Math.max(0, 1 - entailment - contradiction), notes: [`note ${w.id}`] } };
}

function cite(docs: number[], missing: string[] = []): ResolvedCitation {
  return { marker: { text: "[1]", start: 20, end: 23, targets: [] }, docs, missing };
}

const evidence = (w: ContextWindow): Evidence => ({ doc: w.doc, start: 0, end: 5, text: w.text, window: { start: w.start, end: w.end } });
const HOW: ClaimJudging = { documents: [{ text: "a", id: "policy" }, { text: "b", id: "faq" }], threshold: 0.5, supportIn: evidence, conflictIn: evidence };

describe("the verdict rules", () => {
  it("calls a claim contradicted only when the contradiction is likely and beats its support, and lets it pull the answer score down", () => {
    expect(isContradicted(0.3, 0.6)).toBe(true);
    expect(isContradicted(0.7, 0.6)).toBe(false);
    expect(isContradicted(0.1, 0.4)).toBe(false);
    expect(answerContribution(0.3, 0.9)).toBeCloseTo(0.1);
    expect(answerContribution(0.8, 0.1)).toBe(0.8);
  });

  it("judges an uncited claim by its best window, and shows the contradicting sentence when it is contradicted", () => {
    const supported = judgeClaim(CLAIM, [judged(win(0), 0.2), judged(win(1), 0.9)], [], HOW);
    expect(supported).toMatchObject({ verdict: "supported", score: 0.9, notes: ["note 1"], evidence: { doc: 1 } });
    const contradicted = judgeClaim(CLAIM, [judged(win(0), 0.2, 0.8), judged(win(1), 0.3)], [], HOW);
    expect(contradicted).toMatchObject({ verdict: "contradicted", score: 0.3, contradiction: 0.8, contradictingEvidence: { doc: 0 } });
  });

  it("decides a claim citing a document that was not retrieved without its windows", () => {
    const r = judgeClaim(CLAIM, [judged(win(0), 0.9)], [cite([], ["7"])], HOW);
    expect(r).toMatchObject({ verdict: "unsupported", score: 0, evidence: null, reason: "citation_not_retrieved" });
    expect(r.notes).toEqual(['cites "7", not among the 2 retrieved documents']);
    expect(r.citations?.map((c) => c.status)).toEqual(["not_retrieved"]);
  });

  it("calls a cited claim misattributed when its source does not support it and another document does, and counts the marker", () => {
    const r = judgeClaim(CLAIM, [judged(win(0), 0.1), judged(win(1), 0.9)], [cite([0])], HOW);
    expect(r).toMatchObject({ verdict: "misattributed", score: 0.1, evidence: { doc: 1 } });
    expect(r.notes[0]).toBe('not supported by the cited source [1] ("policy"); supported by [2] ("faq")');
    expect(r.citations?.map((c) => c.status)).toEqual(["misattributed"]);
    const ok = judgeClaim(CLAIM, [judged(win(0), 0.8)], [cite([0])], HOW);
    expect(misattributedCitations([r, ok, r])).toBe(2);
  });
});

describe("the entailment budget", () => {
  it("checks the leading claims whose windows fit, and all of them without a budget", () => {
    const checks = [[win(0), win(1)], [win(0)], [win(1), win(0)]];
    expect(claimsWithinBudget(checks, undefined)).toBe(3);
    expect(claimsWithinBudget(checks, 3)).toBe(2);
    expect(claimsWithinBudget(checks, 1)).toBe(0);
  });
});
