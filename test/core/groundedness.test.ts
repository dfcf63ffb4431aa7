import { describe, expect, it } from "vitest";
import type { AnswerResult, GroundednessSettings } from "../../src/core/groundedness.ts";
import { createGroundednessScorer } from "../../src/core/groundedness.ts";
import type { NliPair, NliResult } from "../../src/nli/backend.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import type { FakeBackend } from "../helpers/fake-backend.ts";
import { createFakeBackend } from "../helpers/fake-backend.ts";

const SETTINGS: GroundednessSettings = { threshold: 0.5, topK: 2, tokenBudget: 40 };

function scorerWith(backend: FakeBackend, settings: GroundednessSettings = SETTINGS) {
  return createGroundednessScorer(backend, testAnalyzer(), settings);
}

function expectUnscorable(result: AnswerResult, reason: string): void {
  expect(result.verdict).toBe("unscorable");
  expect(result.score).toBeNull();
  if (result.verdict === "unscorable") expect(result.reason).toBe(reason);
}

describe("groundedness scoring", () => {
  it("scores a supported answer grounded with evidence pointing into the right document", async () => {
    const docs = ["Nothing relevant is here about cats.", "The museum opens at nine. Entry costs ten euros."];
    const result = await scorerWith(createFakeBackend()).score({ answer: "The museum opens at nine.", context: docs });
    expect(result.verdict).toBe("grounded");
    expect(result.score).toBeCloseTo(0.9);
    const claim = result.claims[0];
    expect(claim?.verdict).toBe("supported");
    expect(claim?.evidence?.doc).toBe(1);
    const ev = claim?.evidence;
    if (ev) expect(docs[ev.doc]?.slice(ev.start, ev.end)).toBe(ev.text);
    expect(result.backend).toEqual({ name: "fake", version: "1", tier: "production" });
  });

  it("takes the least supported claim as the answer score", async () => {
    const result = await scorerWith(createFakeBackend()).score({
      answer: "The museum opens at nine. The museum has a rooftop garden.",
      context: "The museum opens at nine. Entry costs ten euros.",
    });
    expect(result.verdict).toBe("ungrounded");
    expect(result.score).toBeCloseTo(0.1);
    expect(result.claims.map((c) => c.verdict)).toEqual(["supported", "unsupported"]);
  });

  it("marks a claim contradicted when the evidence contradicts it more than it supports it", async () => {
    const result = await scorerWith(createFakeBackend()).score({ answer: "The shop sells bread.", context: "The shop NOT-bread sells cakes." });
    expect(result.claims[0]?.verdict).toBe("contradicted");
    expect(result.claims[0]?.contradictingEvidence?.text).toContain("NOT-bread");
    expect(result.verdict).toBe("ungrounded");
  });

  it("sends at most topK windows per claim to the backend, in one batch", async () => {
    const backend = createFakeBackend();
    const context = Array.from({ length: 50 }, (_, i) => `Station ${i} serves the museum line every ${i + 2} minutes.`).join(" ");
    await scorerWith(backend).score({ answer: "The museum line runs often. Station 7 is busy.", context });
    expect(backend.calls).toHaveLength(1);
    expect(backend.calls[0]?.length).toBeLessThanOrEqual(2 * SETTINGS.topK);
  });

  it("still lets the backend judge a claim that shares no word with the context", async () => {
    const backend = createFakeBackend();
    const result = await scorerWith(backend).score({ answer: "Zebras gallop.", context: "The museum opens at nine." });
    expect(backend.calls[0]?.length).toBe(1);
    expect(result.verdict).toBe("ungrounded");
  });

  describe("fails closed", () => {
    it("on an empty or blank answer", async () => {
      expectUnscorable(await scorerWith(createFakeBackend()).score({ answer: "", context: "Some context." }), "empty_answer");
      expectUnscorable(await scorerWith(createFakeBackend()).score({ answer: " \n\t", context: "Some context." }), "empty_answer");
    });

    it("on an empty context string, empty array, or only blank documents", async () => {
      for (const context of ["", [], ["  ", ""]]) {
        expectUnscorable(await scorerWith(createFakeBackend()).score({ answer: "The museum opens at nine.", context }), "empty_context");
      }
    });

    it("on an answer with no checkable claim, and never reports 1.0 for it", async () => {
      const backend = createFakeBackend();
      const result = await scorerWith(backend).score({ answer: "Hello! What would you like to know? I hope this helps.", context: "The museum opens at nine." });
      expectUnscorable(result, "no_checkable_claims");
      expect(result.skipped.map((s) => s.reason)).toEqual(["greeting", "question", "greeting"]);
      expect(backend.calls).toHaveLength(0);
    });

    it("on a refusal", async () => {
      expectUnscorable(await scorerWith(createFakeBackend()).score({ answer: "I don't know the answer to that.", context: "The museum opens at nine." }), "no_checkable_claims");
    });

    it("when the backend throws", async () => {
      const backend = createFakeBackend({ classify: () => Promise.reject(new Error("model exploded")) });
      const result = await scorerWith(backend).score({ answer: "The museum opens at nine.", context: "The museum opens at nine." });
      expectUnscorable(result, "backend_error");
      if (result.verdict === "unscorable") expect(result.detail).toContain("model exploded");
    });

    it("when the backend returns the wrong number of results", async () => {
      const backend = createFakeBackend({ classify: () => Promise.resolve([]) });
      expectUnscorable(await scorerWith(backend).score({ answer: "The museum opens at nine.", context: "The museum opens at nine." }), "backend_error");
    });

    it("when the backend returns a probability that is not one", async () => {
      const bad = (pairs: readonly NliPair[]): Promise<NliResult[]> => Promise.resolve(pairs.map(() => ({ entailment: NaN, neutral: 0, contradiction: 0 })));
      const result = await scorerWith(createFakeBackend({ classify: bad })).score({ answer: "The museum opens at nine.", context: "The museum opens at nine." });
      expectUnscorable(result, "backend_error");
    });
  });

  it("checks at most maxClaims claims and returns the rest as skipped over_limit", async () => {
    const backend = createFakeBackend();
    const answer = Array.from({ length: 5 }, (_, i) => `The museum room ${i} opens at nine.`).join(" ");
    const result = await scorerWith(backend, { ...SETTINGS, maxClaims: 2 }).score({ answer, context: "The museum opens at nine." });
    expect(result.claims).toHaveLength(2);
    expect(result.skipped.map((s) => s.reason)).toEqual(["over_limit", "over_limit", "over_limit"]);
  });

  it("keeps skipped sentences beside the scored claims", async () => {
    const result = await scorerWith(createFakeBackend()).score({ answer: "Sure! The museum opens at nine.", context: "The museum opens at nine." });
    expect(result.verdict).toBe("grounded");
    expect(result.skipped).toMatchObject([{ reason: "greeting", text: "Sure!" }]);
  });
});
