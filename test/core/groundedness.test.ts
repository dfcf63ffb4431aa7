import { describe, expect, it } from "vitest";
import type { GroundednessResult, GroundednessSettings } from "../../src/core/result.ts";
import { createGroundednessScorer } from "../../src/core/groundedness.ts";
import type { NliPair, NliResult } from "../../src/core/backend.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import type { FakeBackend } from "../helpers/fake-backend.ts";
import { createFakeBackend } from "../helpers/fake-backend.ts";

const SETTINGS: GroundednessSettings = { threshold: 0.5, topK: 2, tokenBudget: 40 };

function scorerWith(backend: FakeBackend, settings: GroundednessSettings = SETTINGS) {
  return createGroundednessScorer(backend, testAnalyzer(), settings);
}

function expectUnscorable(result: GroundednessResult, reason: string): void {
  expect(result.verdict).toBe("unscorable");
  expect(result.score).toBeNull();
  if (result.verdict === "unscorable") expect(result.reason).toBe(reason);
}

describe("groundedness scoring", () => {
  it("scores a supported answer grounded with evidence pointing into the right document", async () => {
    const docs = ["Nothing relevant is here about cats.", "The museum opens at nine every morning. Entry costs ten euros."];
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
      const result = await scorerWith(backend).score({ answer: "The museum opens at nine.", context: "The museum opens at nine every morning." });
      expectUnscorable(result, "backend_error");
      if (result.verdict === "unscorable") expect(result.detail).toContain("model exploded");
    });

    it("when the backend returns the wrong number of results", async () => {
      const backend = createFakeBackend({ classify: () => Promise.resolve([]) });
      expectUnscorable(await scorerWith(backend).score({ answer: "The museum opens at nine.", context: "The museum opens at nine every morning." }), "backend_error");
    });

    it("when the backend returns a probability that is not one", async () => {
      const bad = (pairs: readonly NliPair[]): Promise<NliResult[]> => Promise.resolve(pairs.map(() => ({ entailment: NaN, neutral: 0, contradiction: 0 })));
      const result = await scorerWith(createFakeBackend({ classify: bad })).score({ answer: "The museum opens at nine.", context: "The museum opens at nine every morning." });
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

/** The longest run of characters wink-nlp's tokenizer would read as one token. */
function longestRun(text: string): number {
  return Math.max(0, ...text.split(/[ \u00a0\u2002-\u2005\u2009\u200a\u202f\u205f\n\r\t]+/).map((t) => t.length));
}

describe("input limits", () => {
  const museum = "The museum opens at nine. Entry costs ten euros.";

  it("reports no limit for an ordinary answer, and counts the pairs it sent", async () => {
    const backend = createFakeBackend();
    const result = await scorerWith(backend, { ...SETTINGS, maxAnswerChars: 1000, maxContextChars: 1000, maxDocuments: 5, maxTokenChars: 100, maxEntailmentCalls: 100 }).score({ answer: "The museum opens at nine.", context: museum });
    expect(result.limits).toEqual([]);
    expect(result.entailmentCalls).toBe(backend.calls.flat().length);
  });

  it("answer_chars: checks the answer up to the cut and skips the rest as one over_limit segment", async () => {
    const answer = "The museum opens at nine. " + Array.from({ length: 6 }, (_, i) => `The museum room ${i} opens at nine.`).join(" ");
    const backend = createFakeBackend();
    const result = await scorerWith(backend, { ...SETTINGS, maxAnswerChars: 60 }).score({ answer, context: museum });
    expect(result.limits).toEqual(["answer_chars"]);
    expect(result.claims.map((c) => c.text)).toEqual(["The museum opens at nine.", "The museum room 0 opens at nine."]);
    const rest = result.skipped[result.skipped.length - 1];
    expect(rest).toMatchObject({ reason: "over_limit", end: answer.length });
    expect(rest && answer.slice(rest.start, rest.end)).toBe(rest?.text);
    expect(backend.calls.flat().every((p) => !p.hypothesis.includes("room 1"))).toBe(true);
  });

  it("documents: ignores documents past maxDocuments, keeping the indexes of the others", async () => {
    const backend = createFakeBackend();
    const result = await scorerWith(backend, { ...SETTINGS, maxDocuments: 2 }).score({ answer: "The garden closes at dusk.", context: ["Cats sleep.", "Dogs bark.", "The garden closes at dusk."] });
    expect(result.limits).toEqual(["documents"]);
    expect(result.verdict).toBe("ungrounded");
    expect(backend.calls.flat().some((p) => p.premise.includes("garden"))).toBe(false);
  });

  it("context_chars: reads documents up to maxContextChars characters in all", async () => {
    const backend = createFakeBackend();
    const docs = ["The museum opens at nine. The shop sells maps.", "The garden closes at dusk."];
    const result = await scorerWith(backend, { ...SETTINGS, maxContextChars: 30 }).score({ answer: "The garden closes at dusk.", context: docs });
    expect(result.limits).toEqual(["context_chars"]);
    expect(backend.calls.flat().some((p) => p.premise.includes("maps") || p.premise.includes("garden"))).toBe(false);
  });

  it("token_chars: cuts a base64 blob before analysis; the text shows the cut, offsets point into the original", async () => {
    const blob = "QUJDRA".repeat(35_000); // 210,000 characters
    const docs = [`Attachment: ${blob} The museum opens at nine.`, "Entry costs ten euros."];
    const answer = `The museum opens at nine. The file was ${blob}`;
    const analyzer = testAnalyzer();
    const seen: string[] = [];
    const spy = { analyze: (text: string) => (seen.push(text), analyzer.analyze(text)) };
    const backend = createFakeBackend();
    const result = await createGroundednessScorer(backend, spy, { ...SETTINGS, tokenBudget: 400, maxTokenChars: 100 }).score({ answer, context: docs });
    expect(result.limits).toEqual(["token_chars"]);
    expect(Math.max(...seen.map(longestRun))).toBeLessThanOrEqual(100);
    for (const p of backend.calls.flat()) expect(Math.max(longestRun(p.premise), longestRun(p.hypothesis))).toBeLessThanOrEqual(100);
    const [first, second] = result.claims;
    expect(first?.evidence?.doc).toBe(0);
    const ev = first?.evidence;
    if (ev) {
      expect(docs[0]?.slice(ev.start, ev.end)).toContain(blob);
      expect(ev.text).toMatch(/^Attachment: (QUJDRA)+[A-Z]*… The museum opens at nine\.$/);
    }
    expect(second?.text).toMatch(/^The file was QUJDRA.*…$/);
    expect(second?.end).toBe(answer.length);
  });

  it("claims: names the limit when claims past maxClaims were skipped", async () => {
    const answer = Array.from({ length: 4 }, (_, i) => `The museum room ${i} opens at nine.`).join(" ");
    const result = await scorerWith(createFakeBackend(), { ...SETTINGS, maxClaims: 2 }).score({ answer, context: museum });
    expect(result.limits).toEqual(["claims"]);
  });

  it("entailment_calls: skips the claims whose checks would go past the budget", async () => {
    const context = Array.from({ length: 10 }, (_, i) => `Room ${i} of the museum opens at nine.`).join(" ");
    const answer = Array.from({ length: 5 }, (_, i) => `The museum room ${i} opens at nine.`).join(" ");
    const backend = createFakeBackend();
    const result = await scorerWith(backend, { ...SETTINGS, tokenBudget: 16, maxEntailmentCalls: 5 }).score({ answer, context });
    expect(result.limits).toEqual(["entailment_calls"]);
    expect(result.claims).toHaveLength(2);
    expect(result.entailmentCalls).toBe(4);
    expect(backend.calls.flat()).toHaveLength(4);
    expect(result.skipped.map((s) => s.reason)).toEqual(["over_limit", "over_limit", "over_limit"]);
  });

  it("entailment_calls: an answer none of whose claims fits is unscorable, never grounded", async () => {
    const context = "The museum on the hill opens at nine every day. The museum by the river opens at nine on Sundays.";
    const result = await scorerWith(createFakeBackend(), { ...SETTINGS, tokenBudget: 16, maxEntailmentCalls: 1 }).score({ answer: "The museum opens at nine.", context });
    expectUnscorable(result, "no_checkable_claims");
    expect(result.limits).toEqual(["entailment_calls"]);
  });
});
