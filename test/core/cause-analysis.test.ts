import { describe, expect, it } from "vitest";
import type { RelevancePair } from "../../src/core/backend.ts";
import { createGroundednessScorer } from "../../src/core/groundedness.ts";
import type { AnswerInput, AnswerResult, GroundednessSettings } from "../../src/core/result.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import { createFakeBackend } from "../helpers/fake-backend.ts";

// Relevance scripted by topic: a passage speaks to a query when both name the same topic word.
const TOPICS = ["refund", "billing", "parking"];
function topicRelevance(pairs: readonly RelevancePair[]): Promise<number[]> {
  return Promise.resolve(
    pairs.map((p) => {
      const q = p.query.toLowerCase();
      const passage = p.passage.toLowerCase();
      return TOPICS.some((t) => q.includes(t) && passage.includes(t)) ? 0.9 : 0.1;
    }),
  );
}

const settings: GroundednessSettings = { threshold: 0.5, topK: 3, tokenBudget: 400, relevance: { thresholds: { context: 0.5, answer: 0.5 }, topK: 3 } };
const REFUND_DOC = "The refund window is thirty days. Refunds reach the card used for the purchase.";
const PARKING_DOC = "Visitor parking is free on weekends. The parking garage closes at midnight.";

async function score(input: AnswerInput, backend = createFakeBackend({ relevance: topicRelevance }), s: GroundednessSettings = settings): Promise<AnswerResult> {
  return createGroundednessScorer(backend, testAnalyzer(), s).score(input);
}

describe("cause attribution of ungrounded answers", () => {
  it("names retrieval when no retrieved document addresses the question", async () => {
    const r = await score({ question: "How does a refund work?", answer: "A refund is paid in gold.", context: [PARKING_DOC] });
    expect(r.verdict).toBe("ungrounded");
    expect(r.verdict === "ungrounded" && r.cause).toBe("retrieval");
    expect(r.claims[0]?.cause).toBe("retrieval");
    expect(r.relevance?.context).toEqual({ perDocument: [0.1], best: 0.1, addressed: false });
  });

  it("names generation when a document addresses the question but does not support the claim", async () => {
    const r = await score({ question: "How does a refund work?", answer: "A refund is paid in gold.", context: [REFUND_DOC, PARKING_DOC] });
    expect(r.verdict === "ungrounded" && r.cause).toBe("generation");
    expect(r.relevance?.context?.perDocument).toEqual([0.9, 0.1]);
    expect(r.relevance?.context?.addressed).toBe(true);
  });

  it("names generation for a contradicted claim from the right document", async () => {
    const r = await score({ question: "How does a refund work?", answer: "The refund window is days.", context: ["The refund window is NOT-days long."] });
    expect(r.claims[0]?.verdict).toBe("contradicted");
    expect(r.verdict === "ungrounded" && r.cause).toBe("generation");
  });

  it("names citation when the claim cites a document that was not retrieved", async () => {
    const r = await score({ question: "How does a refund work?", answer: "A refund is paid in gold [7].", context: [REFUND_DOC] });
    expect(r.claims[0]?.reason).toBe("citation_not_retrieved");
    expect(r.verdict === "ungrounded" && r.cause).toBe("citation");
  });

  it("says mixed when the failing claims have different causes", async () => {
    const r = await score({ question: "How does a refund work?", answer: "A refund is paid in gold [7]. A refund is paid in silver.", context: [REFUND_DOC] });
    expect(r.claims.map((c) => c.cause)).toEqual(["citation", "generation"]);
    expect(r.verdict === "ungrounded" && r.cause).toBe("mixed");
  });

  it("gives supported claims and grounded answers no cause", async () => {
    const r = await score({ question: "How does a refund work?", answer: "The refund window is thirty days.", context: [REFUND_DOC] });
    expect(r.verdict).toBe("grounded");
    expect("cause" in r).toBe(false);
    expect(r.claims[0]?.cause).toBeUndefined();
    expect(r.relevance?.answer).toEqual({ score: 0.9, refusal: false, onTopic: true });
  });

  it("measures the documents against each failing claim when there is no question", async () => {
    const retrieval = await score({ answer: "A refund is paid in gold.", context: [PARKING_DOC] });
    expect(retrieval.verdict === "ungrounded" && retrieval.cause).toBe("retrieval");
    expect(retrieval.claims[0]?.relevance).toBe(0.1);
    expect(retrieval.relevance?.context).toBeUndefined();
    const generation = await score({ answer: "A refund is paid in gold.", context: [REFUND_DOC] });
    expect(generation.verdict === "ungrounded" && generation.cause).toBe("generation");
    expect(generation.claims[0]?.relevance).toBe(0.9);
  });

  it("asks no relevance for a failing claim whose cause is its citation when there is no question", async () => {
    let asked = 0;
    const counting = createFakeBackend({ relevance: (pairs) => ((asked += pairs.length), topicRelevance(pairs)) });
    const r = await score({ answer: "A refund is paid in gold [7].", context: [REFUND_DOC] }, counting);
    expect(r.verdict === "ungrounded" && r.cause).toBe("citation");
    expect([asked, r.relevance?.calls]).toEqual([0, 0]);
  });

  it("says unknown, and why, when the backend has no relevance scorer — but still names a citation failure", async () => {
    const backend = createFakeBackend();
    const r = await score({ question: "How does a refund work?", answer: "A refund is paid in gold.", context: [PARKING_DOC] }, backend);
    expect(r.verdict === "ungrounded" && r.cause).toBe("unknown");
    expect(r.relevance?.unmeasured?.reason).toBe("no_relevance_scorer");
    const cited = await score({ question: "How does a refund work?", answer: "A refund is paid in gold [7].", context: [PARKING_DOC] }, backend);
    expect(cited.verdict === "ungrounded" && cited.cause).toBe("citation");
  });

  it("never guesses a relevance the backend failed to give: unmeasured backend_error, cause unknown", async () => {
    const failing = createFakeBackend({ relevance: () => Promise.reject(new Error("model gone")) });
    const r = await score({ question: "How does a refund work?", answer: "A refund is paid in gold.", context: [PARKING_DOC] }, failing);
    expect(r.verdict === "ungrounded" && r.cause).toBe("unknown");
    expect(r.relevance?.unmeasured).toEqual({ reason: "backend_error", detail: expect.stringContaining("model gone") });
    const outOfRange = createFakeBackend({ relevance: (pairs) => Promise.resolve(pairs.map(() => 1.5)) });
    const r2 = await score({ question: "How does a refund work?", answer: "A refund is paid in gold.", context: [PARKING_DOC] }, outOfRange);
    expect(r2.verdict === "ungrounded" && r2.cause).toBe("unknown");
    expect(r2.relevance?.unmeasured?.reason).toBe("backend_error");
  });

  it("counts an on-topic refusal as relevant even though nothing is scored", async () => {
    const r = await score({ question: "How does a refund work?", answer: "I'm sorry, I can't help with that.", context: [REFUND_DOC] });
    expect(r.verdict).toBe("unscorable");
    expect(r.relevance?.answer).toEqual({ score: 1, refusal: true, onTopic: true });
  });

  it("shows an answer that does not address the question as off-topic without changing its verdict", async () => {
    const r = await score({ question: "How does a refund work?", answer: "Visitor parking is free on weekends.", context: [REFUND_DOC, PARKING_DOC] });
    expect(r.verdict).toBe("grounded");
    expect(r.relevance?.answer).toEqual({ score: 0.1, refusal: false, onTopic: false });
  });

  // Claims score by their last word: "gold" 0.1 (clearly unsupported at threshold 0.5), "silver" 0.45 (just under it).
  const byMarker = createFakeBackend({
    relevance: topicRelevance,
    classify: (pairs) => Promise.resolve(pairs.map((p) => (p.hypothesis.includes("silver") ? { entailment: 0.45, neutral: 0.53, contradiction: 0.02 } : { entailment: 0.1, neutral: 0.88, contradiction: 0.02 }))),
  });

  it("names no cause for an answer whose only unsupported claim scores just under the threshold: unknown, weak_failure, whatever the documents' relevance", async () => {
    for (const context of [[PARKING_DOC], [REFUND_DOC]]) {
      const r = await score({ question: "How does a refund work?", answer: "A refund is paid in silver.", context }, byMarker);
      expect(r.verdict).toBe("ungrounded");
      expect(r.claims[0]).toMatchObject({ verdict: "unsupported", score: 0.45, cause: "unknown" });
      expect(r.verdict === "ungrounded" && [r.cause, r.causeReason]).toEqual(["unknown", "weak_failure"]);
    }
    const noQuestion = await score({ answer: "A refund is paid in silver.", context: [PARKING_DOC] }, byMarker);
    expect(noQuestion.verdict === "ungrounded" && [noQuestion.cause, noQuestion.causeReason]).toEqual(["unknown", "weak_failure"]);
  });

  it("still names retrieval for a clearly unsupported claim with documents that do not address the question", async () => {
    const r = await score({ question: "How does a refund work?", answer: "A refund is paid in gold.", context: [PARKING_DOC] }, byMarker);
    expect(r.claims[0]).toMatchObject({ score: 0.1, cause: "retrieval" });
    expect(r.verdict === "ungrounded" && r.cause).toBe("retrieval");
    expect(r).not.toHaveProperty("causeReason");
  });

  it("names the cause of the clear failure when a weak one fails beside it", async () => {
    const r = await score({ question: "How does a refund work?", answer: "A refund is paid in gold. A refund is paid in silver.", context: [REFUND_DOC] }, byMarker);
    expect(r.claims.map((c) => c.cause)).toEqual(["generation", "unknown"]);
    expect(r.verdict === "ungrounded" && r.cause).toBe("generation");
  });

  it("names neither retrieval nor generation when the context relevance lies within the margin of its threshold", async () => {
    const near = (relevance: number) => createFakeBackend({ relevance: (pairs) => Promise.resolve(pairs.map(() => relevance)) });
    const borderline = await score({ question: "How does a refund work?", answer: "A refund is paid in gold.", context: [REFUND_DOC] }, near(0.53));
    expect(borderline.verdict === "ungrounded" && [borderline.cause, borderline.causeReason]).toEqual(["unknown", "borderline_relevance"]);
    expect(borderline.relevance?.context?.addressed).toBe(true);
    const clear = await score({ question: "How does a refund work?", answer: "A refund is paid in gold.", context: [REFUND_DOC] }, near(0.56));
    expect(clear.verdict === "ungrounded" && clear.cause).toBe("generation");
  });

  it("measures nothing of relevance when the settings leave it out", async () => {
    const { relevance: _off, ...without } = settings;
    const r = await score({ question: "How does a refund work?", answer: "A refund is paid in gold.", context: [PARKING_DOC] }, undefined, without);
    expect(r.relevance).toBeUndefined();
    expect(r.verdict === "ungrounded" && r.cause).toBeUndefined();
  });
});
