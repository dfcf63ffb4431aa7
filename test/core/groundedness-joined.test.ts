import { describe, expect, it } from "vitest";
import type { NliPair, NliResult } from "../../src/core/backend.ts";
import { createGroundednessScorer } from "../../src/core/groundedness.ts";
import type { GroundednessSettings } from "../../src/core/result.ts";
import { createOfflineBackend } from "../../src/nli/offline/backend.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import { createFakeBackend } from "../helpers/fake-backend.ts";

const CLAIM = "The Team plan includes 5 seats and priority support.";
const SEATS = "The Team plan includes 5 seats.";
const SUPPORT = "The Team plan includes priority support.";
const SETTINGS: GroundednessSettings = { threshold: 0.5, topK: 3, tokenBudget: 400 };

/** Entails a hypothesis only when the premise states both its facts (seats and priority support); contradicts on "not". */
function bothFactsBackend() {
  return createFakeBackend({
    classify: (pairs: readonly NliPair[]): Promise<NliResult[]> =>
      Promise.resolve(
        pairs.map(({ premise }) => {
          if (/\bnot\b/.test(premise) && !premise.includes("seats")) return { entailment: 0.05, neutral: 0.15, contradiction: 0.8 };
          return premise.includes("seats") && premise.includes("priority") ? { entailment: 0.95, neutral: 0.04, contradiction: 0.01 } : { entailment: 0.2, neutral: 0.75, contradiction: 0.05 };
        }),
      ),
  });
}

describe("a claim joining two evidence sentences is judged against both together", () => {
  it("offline backend: supported, with both sentences as its evidence (each sentence alone left it unsupported)", async () => {
    const analyzer = testAnalyzer();
    const backend = createOfflineBackend({ analyzer });
    const threshold = backend.recommendedThreshold ?? 0.5;
    const result = await createGroundednessScorer(backend, analyzer, { ...SETTINGS, threshold }).score({ answer: CLAIM, context: [SEATS, SUPPORT] });
    const claim = result.claims[0];
    expect(claim?.verdict).toBe("supported");
    expect(claim?.score).toBeGreaterThanOrEqual(threshold);
    expect(claim?.evidence).toEqual({ doc: 0, start: 0, end: SEATS.length, text: SEATS, window: { start: 0, end: SEATS.length }, also: { doc: 1, start: 0, end: SUPPORT.length, text: SUPPORT, window: { start: 0, end: SUPPORT.length } } });
    expect(result.verdict).toBe("grounded");
  });

  it("any backend: one pair more, the two sentences as one premise, and the evidence names both", async () => {
    const backend = bothFactsBackend();
    const result = await createGroundednessScorer(backend, testAnalyzer(), SETTINGS).score({ answer: CLAIM, context: [SEATS, SUPPORT] });
    expect(backend.calls.flat().map((p) => p.premise)).toEqual([SEATS, SUPPORT, `${SEATS} ${SUPPORT}`]);
    expect(result.entailmentCalls).toBe(3);
    expect(result.claims[0]?.score).toBeCloseTo(0.95);
    expect(result.claims[0]?.evidence?.also?.text).toBe(SUPPORT);
  });

  it("sends the joined pair only within what is left of maxEntailmentCalls", async () => {
    const tight = bothFactsBackend();
    const within = await createGroundednessScorer(tight, testAnalyzer(), { ...SETTINGS, maxEntailmentCalls: 2 }).score({ answer: CLAIM, context: [SEATS, SUPPORT] });
    expect(tight.calls.flat()).toHaveLength(2);
    expect(within.claims[0]?.verdict).toBe("unsupported");
    expect(within.claims[0]?.evidence?.also).toBeUndefined();
    const roomy = bothFactsBackend();
    const joined = await createGroundednessScorer(roomy, testAnalyzer(), { ...SETTINGS, maxEntailmentCalls: 3 }).score({ answer: CLAIM, context: [SEATS, SUPPORT] });
    expect(roomy.calls.flat()).toHaveLength(3);
    expect(joined.claims[0]?.verdict).toBe("supported");
  });

  it("spends the spare budget on the claims in order, one joined pair each at most", async () => {
    const answer = `${CLAIM} The Pro plan includes 10 seats and phone support.`;
    const context = [SEATS, SUPPORT, "The Pro plan includes 10 seats.", "The Pro plan includes phone support."];
    const joinedSent = async (maxEntailmentCalls: number): Promise<string[]> => {
      const backend = bothFactsBackend();
      await createGroundednessScorer(backend, testAnalyzer(), { ...SETTINGS, topK: 2, maxEntailmentCalls }).score({ answer, context });
      return backend.calls.flat().flatMap((p) => (context.includes(p.premise) ? [] : [p.premise]));
    };
    expect(await joinedSent(5)).toEqual([`${SEATS} ${SUPPORT}`]);
    expect(await joinedSent(6)).toEqual([`${SEATS} ${SUPPORT}`, "The Pro plan includes 10 seats. The Pro plan includes phone support."]);
  });

  it("never hides a contradiction: a claim a sentence contradicts stays contradicted whatever the joined pair says", async () => {
    const backend = bothFactsBackend();
    const denied = "The Team plan does not include priority support.";
    const result = await createGroundednessScorer(backend, testAnalyzer(), SETTINGS).score({ answer: CLAIM, context: [SEATS, denied] });
    expect(backend.calls.flat().map((p) => p.premise)).toContain(`${SEATS} ${denied}`);
    expect(result.claims[0]?.verdict).toBe("contradicted");
    expect(result.claims[0]?.contradictingEvidence?.text).toBe(denied);
    expect(result.verdict).toBe("ungrounded");
  });

  it("offline backend: a join does not pass a claim one of whose sentences denies it", async () => {
    const analyzer = testAnalyzer();
    const backend = createOfflineBackend({ analyzer });
    const result = await createGroundednessScorer(backend, analyzer, { ...SETTINGS, threshold: backend.recommendedThreshold ?? 0.5 }).score({ answer: CLAIM, context: [SEATS, "The Team plan does not include priority support."] });
    expect(result.claims[0]?.verdict).toBe("contradicted");
  });
});
