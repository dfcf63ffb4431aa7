/**
 * A backend whose reply breaks the port's contract (a wrong count, a probability that is NaN or
 * outside [0, 1]) fails every measurement that asked it the same way: the one BackendReplyError
 * message, as a backend_error, an unmeasured reason or a rejection, never a number made from it.
 */
import { describe, expect, it } from "vitest";
import type { NliPair, NliResult, RelevancePair } from "../../src/core/backend.ts";
import { scopedBackend } from "../../src/core/backend.ts";
import { BackendReplyError, checkedBackend } from "../../src/core/checked-backend.ts";
import { buildWindows } from "../../src/core/context.ts";
import { claimConsistency } from "../../src/core/entropy/claim-consistency.ts";
import { semanticEntropy } from "../../src/core/entropy/semantic-entropy.ts";
import { answerRelevance } from "../../src/core/cause-analysis.ts";
import { createGroundednessScorer } from "../../src/core/groundedness.ts";
import { contextRelevance } from "../../src/core/relevance.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import { createFakeBackend } from "../helpers/fake-backend.ts";

const analyzer = testAnalyzer();
const GOOD: NliResult = { entailment: 0.9, neutral: 0.05, contradiction: 0.05 };

/** Broken classify replies, each with the message every path must report. */
const BAD_CLASSIFY: Array<[string, (pairs: readonly NliPair[]) => NliResult[], RegExp]> = [
  ["too few results", () => [], /^fake backend returned 0 results for \d+ pairs$/],
  ["too many results", (pairs) => [...pairs.map(() => GOOD), GOOD], /^fake backend returned \d+ results for \d+ pairs$/],
  ["a NaN entailment", (pairs) => pairs.map(() => ({ ...GOOD, entailment: Number.NaN })), /^fake backend returned an invalid probability \(NaN\): not a number in \[0, 1\]$/],
  ["a NaN neutral", (pairs) => pairs.map(() => ({ ...GOOD, neutral: Number.NaN })), /^fake backend returned an invalid probability \(NaN\): not a number in \[0, 1\]$/],
  ["a contradiction above 1", (pairs) => pairs.map(() => ({ ...GOOD, contradiction: 1.5 })), /^fake backend returned an invalid probability \(1\.5\): not a number in \[0, 1\]$/],
  ["a negative entailment", (pairs) => pairs.map(() => ({ ...GOOD, entailment: -0.1 })), /^fake backend returned an invalid probability \(-0\.1\): not a number in \[0, 1\]$/],
];

/** Broken relevance replies, each with its message. */
const BAD_RELEVANCE: Array<[string, (pairs: readonly RelevancePair[]) => number[], RegExp]> = [
  ["too few scores", () => [], /^fake backend returned 0 scores for \d+ pairs$/],
  ["too many scores", (pairs) => [...pairs.map(() => 0.5), 0.5], /^fake backend returned \d+ scores for \d+ pairs$/],
  ["a NaN score", (pairs) => pairs.map(() => Number.NaN), /^fake backend returned an invalid probability \(NaN\): not a number in \[0, 1\]$/],
  ["a score above 1", (pairs) => pairs.map(() => 1.5), /^fake backend returned an invalid probability \(1\.5\): not a number in \[0, 1\]$/],
];

const Q = "Where was the treaty signed?";
const SAMPLES = ["It was signed in Berlin.", "Signed in Paris, I think.", "The treaty was signed in Rome.", "Berlin.", "In Vienna."];

describe("checkedBackend", () => {
  describe.each(BAD_CLASSIFY)("a classify reply with %s", (_what, reply, message) => {
    const backend = () => createFakeBackend({ classify: (pairs) => Promise.resolve(reply(pairs)) });

    it("makes groundedness unscorable with the one message", async () => {
      const result = await createGroundednessScorer(backend(), analyzer, { threshold: 0.5, topK: 2, tokenBudget: 40 }).score({ answer: "The museum opens at nine.", context: "The museum opens at nine every morning." });
      expect(result.verdict).toBe("unscorable");
      if (result.verdict === "unscorable") {
        expect(result.reason).toBe("backend_error");
        expect(result.detail).toMatch(message);
      }
    });

    it("leaves semantic entropy unmeasured with the one message", async () => {
      const result = await semanticEntropy({ question: Q, samples: SAMPLES, backend: backend() });
      expect(result.entropy).toBeNull();
      expect(result.reasons.some((r) => message.test(r))).toBe(true);
    });

    it("leaves claim consistency unmeasured with the one message", async () => {
      const claims = [{ index: 0, text: "The treaty was signed in Berlin.", start: 0, end: 31 }];
      const result = await claimConsistency({ question: Q, claims, samples: SAMPLES, backend: backend(), analyzer, options: { threshold: 0.5, unstableShare: 0.5, tokenBudget: 400 } });
      expect(result.support).toEqual([undefined]);
      expect(result.summary.reasons.some((r) => message.test(r))).toBe(true);
    });
  });

  describe.each(BAD_RELEVANCE)("a relevance reply with %s", (_what, reply, message) => {
    const backend = () => createFakeBackend({ relevance: (pairs) => Promise.resolve(reply(pairs)) });
    const windows = buildWindows(["Refunds reach the card used for the purchase within thirty days."], analyzer, { tokenBudget: 40 });

    it("rejects context relevance with the one message", async () => {
      await expect(contextRelevance({ question: "How do refunds work?", windows, backend: backend(), analyzer })).rejects.toThrow(message);
    });

    it("rejects answer relevance with the one message", async () => {
      await expect(answerRelevance("How do refunds work?", "They reach your card.", backend(), 0.5)).rejects.toThrow(message);
    });

    it("leaves the relevance of a scored answer unmeasured with the one message", async () => {
      const scorer = createGroundednessScorer(backend(), analyzer, { threshold: 0.5, topK: 2, tokenBudget: 40, relevance: { thresholds: { context: 0.5, answer: 0.5 }, topK: 2 } });
      const result = await scorer.score({ question: "How do refunds work?", answer: "Refunds reach the card.", context: "Refunds reach the card used for the purchase." });
      expect(result.relevance?.unmeasured?.reason).toBe("backend_error");
      expect(result.relevance?.unmeasured?.detail).toMatch(message);
    });
  });

  it("checks a reply once: a checked backend, or a scoped view of one, is not wrapped again", async () => {
    const checked = checkedBackend(createFakeBackend());
    expect(checkedBackend(checked)).toBe(checked);
    const view = scopedBackend(checked, { rank: 1 });
    expect(checkedBackend(view)).toBe(view);
    await expect(checkedBackend(createFakeBackend({ classify: () => Promise.resolve([]) })).classify([{ premise: "a", hypothesis: "b" }])).rejects.toBeInstanceOf(BackendReplyError);
  });
});
