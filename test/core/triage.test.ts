import { describe, expect, it } from "vitest";
import type { NliPair, NliResult } from "../../src/core/backend.ts";
import { createGroundednessScorer } from "../../src/core/groundedness.ts";
import type { GroundednessResult, GroundednessSettings, TriageSettings } from "../../src/core/result.ts";
import { DECIDE_NOTHING, triageDecision } from "../../src/core/triage.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import { createFakeBackend } from "../helpers/fake-backend.ts";

const SETTINGS: GroundednessSettings = { threshold: 0.5, topK: 1, tokenBudget: 60 };
const CONTEXT = [
  "The warehouse ships orders within two days. Returns are accepted for thirty days.",
  "Support answers email on weekdays. The office is closed on public holidays.",
];

/**
 * The cheap tier, scripted by a word of the claim: "ships" 0.95 (sure it is supported), "phone"
 * 0.03 (sure it is not), "returns" 0.5 (unsure), "holidays" 0.97 with contradiction 0.7 (likely
 * contradicted). Counts the pairs it is asked about.
 */
function cheapTier(): TriageSettings & { asked: NliPair[] } {
  const asked: NliPair[] = [];
  const judge = (h: string): NliResult => {
    const t = h.toLowerCase();
    if (t.includes("holidays")) return { entailment: 0.97, neutral: 0, contradiction: 0.7 };
    if (t.includes("ships")) return { entailment: 0.95, neutral: 0.04, contradiction: 0.01 };
    if (t.includes("phone")) return { entailment: 0.03, neutral: 0.96, contradiction: 0.01 };
    return { entailment: 0.5, neutral: 0.49, contradiction: 0.01 };
  };
  return {
    asked,
    supportAbove: 0.9,
    unsupportBelow: 0.1,
    backend: {
      ...createFakeBackend(),
      name: "offline",
      tier: "triage",
      classify(pairs: readonly NliPair[]) {
        asked.push(...pairs);
        return Promise.resolve(pairs.map((p) => judge(p.hypothesis)));
      },
    },
  };
}

const claimOf = (r: GroundednessResult, word: string) => r.claims.find((c) => c.text.toLowerCase().includes(word));
const sentTo = (calls: readonly NliPair[][], word: string): number => calls.flat().filter((p) => p.hypothesis.toLowerCase().includes(word)).length;

describe("the cascade (triage in front of the model)", () => {
  it("decides the claims the cheap tier is sure of without a model call and sends the rest", async () => {
    const model = createFakeBackend();
    const triage = cheapTier();
    const scorer = createGroundednessScorer(model, testAnalyzer(), { ...SETTINGS, triage });
    const r = await scorer.score({ answer: "The warehouse ships every order in two days. Support answers by phone. Returns are taken back for thirty days.", context: CONTEXT });
    // The sure claims cost no model call; the unsure one goes to the model.
    expect(sentTo(model.calls, "ships")).toBe(0);
    expect(sentTo(model.calls, "phone")).toBe(0);
    expect(sentTo(model.calls, "returns")).toBe(1);
    expect(r.entailmentCalls).toBe(1);
    expect(r.callsSaved).toEqual({ verbatim: 0, cache: 0, triage: 2 });
    const ships = claimOf(r, "ships");
    expect(ships).toMatchObject({ verdict: "supported", score: 0.95, decidedBy: "triage" });
    expect(ships?.notes[0]).toMatch(/^decided by triage without a model call: offline score 0\.950 at or above 0\.9/);
    // An unsupported claim's score sits well below the threshold: min(offline, threshold / 2).
    expect(claimOf(r, "phone")).toMatchObject({ verdict: "unsupported", score: 0.03, decidedBy: "triage" });
    const returns = claimOf(r, "returns");
    expect(returns?.decidedBy).toBeUndefined();
    expect(returns?.score).toBe(0.9);
    expect(r.verdict).toBe("ungrounded");
  });

  it("lifts a decided supported claim to the threshold and caps a decided unsupported one at half of it", async () => {
    const triage = { ...cheapTier(), supportAbove: 0.9, unsupportBelow: 0.1 };
    const scorer = createGroundednessScorer(createFakeBackend(), testAnalyzer(), { ...SETTINGS, threshold: 0.96, triage });
    const r = await scorer.score({ answer: "The warehouse ships every order in two days. Support answers by phone.", context: CONTEXT });
    expect(claimOf(r, "ships")).toMatchObject({ verdict: "supported", score: 0.96 });
    expect(claimOf(r, "phone")).toMatchObject({ verdict: "unsupported", score: 0.03 });
    const low = await createGroundednessScorer(createFakeBackend(), testAnalyzer(), { ...SETTINGS, threshold: 0.04, triage }).score({ answer: "Support answers by phone.", context: CONTEXT });
    expect(low.claims[0]).toMatchObject({ verdict: "unsupported", score: 0.02 });
  });

  it("always sends a claim the cheap tier finds likely contradicted to the model", async () => {
    const model = createFakeBackend();
    const scorer = createGroundednessScorer(model, testAnalyzer(), { ...SETTINGS, triage: cheapTier() });
    const r = await scorer.score({ answer: "The office is open on public holidays.", context: CONTEXT });
    expect(sentTo(model.calls, "holidays")).toBe(1);
    expect(r.claims[0]?.decidedBy).toBeUndefined();
    expect(r).not.toHaveProperty("callsSaved");
  });

  it("always sends a claim that cites a source to the model", async () => {
    const model = createFakeBackend();
    const scorer = createGroundednessScorer(model, testAnalyzer(), { ...SETTINGS, triage: cheapTier() });
    const r = await scorer.score({ answer: "The warehouse ships every order in two days [1].", context: CONTEXT });
    expect(sentTo(model.calls, "ships")).toBeGreaterThan(0);
    expect(r.claims[0]?.decidedBy).toBeUndefined();
  });

  it("does not ask the cheap tier about claims the verbatim shortcut already decides", async () => {
    const model = createFakeBackend();
    const triage = cheapTier();
    const scorer = createGroundednessScorer(model, testAnalyzer(), { ...SETTINGS, triage });
    const r = await scorer.score({ answer: "The warehouse ships orders within two days.", context: CONTEXT });
    expect(triage.asked).toHaveLength(0);
    expect(model.calls.flat()).toHaveLength(0);
    expect(r.callsSaved).toEqual({ verbatim: 1, cache: 0, triage: 0 });
  });

  it("sends every claim to the model when the cheap tier fails", async () => {
    const model = createFakeBackend();
    const triage = { ...cheapTier(), backend: { ...createFakeBackend(), classify: () => Promise.reject(new Error("down")) } };
    const scorer = createGroundednessScorer(model, testAnalyzer(), { ...SETTINGS, triage });
    const r = await scorer.score({ answer: "The warehouse ships every order in two days. Support answers by phone.", context: CONTEXT });
    expect(model.calls.flat()).toHaveLength(2);
    expect(r.claims.every((c) => c.decidedBy === undefined)).toBe(true);
  });

  it("decides nothing with thresholds 1 and 0", () => {
    for (const score of [0.001, 0.5, 0.999]) expect(triageDecision({ score, contradiction: 0 }, false, DECIDE_NOTHING)).toBeUndefined();
  });
});

describe("the cascade's cheap tier, checked", () => {
  it("decides nothing when the cheap tier replies with the wrong number of judgements", async () => {
    const model = createFakeBackend();
    const triage = { ...cheapTier(), backend: { ...createFakeBackend(), classify: () => Promise.resolve([]) } };
    const scorer = createGroundednessScorer(model, testAnalyzer(), { ...SETTINGS, triage });
    const r = await scorer.score({ answer: "The warehouse ships every order in two days. Support answers by phone.", context: CONTEXT });
    expect(model.calls.flat()).toHaveLength(2);
    expect(r.claims.every((c) => c.decidedBy === undefined)).toBe(true);
  });
});
