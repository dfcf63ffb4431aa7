import { describe, expect, it } from "vitest";
import type { EntailmentBackend, SpanDetector } from "../../src/core/backend.ts";
import { createGroundednessScorer } from "../../src/core/groundedness.ts";
import type { GroundednessResult, GroundednessSettings } from "../../src/core/result.ts";
import { NO_EVIDENCE_NOTE } from "../../src/core/span-judge.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import { createFakeBackend } from "../helpers/fake-backend.ts";
import { createFakeSpanDetector } from "../helpers/fake-span-detector.ts";

const CONTEXT = "The museum opens at nine every morning. Entry costs ten euros.";
const ANSWER = "The museum opens at nine. Entry costs twenty euros.";

/** The alone mode's entailment port: it judges no pair. */
function noPairs(): EntailmentBackend & { classified: number } {
  const b = {
    name: "fake-spans",
    version: "1",
    tier: "production" as const,
    classified: 0,
    classify(): Promise<never> {
      b.classified++;
      return Promise.reject(new Error("the span detector judges no entailment pairs"));
    },
    close: () => Promise.resolve(),
  };
  return b;
}

function alone(detector: SpanDetector, extra: Partial<GroundednessSettings> = {}, threshold = 0.5) {
  const backend = noPairs();
  return { backend, scorer: createGroundednessScorer(backend, testAnalyzer(), { threshold, topK: 2, tokenBudget: 40, ...extra, spans: { detector, mode: "alone", threshold: 1 - threshold } }) };
}

function scored(r: GroundednessResult): Extract<GroundednessResult, { score: number }> {
  if (r.verdict === "unscorable") throw new Error(`unscorable: ${r.detail}`);
  return r;
}

describe("a span detector alone", () => {
  it("marks the claim holding an unsupported word unsupported with the span as its reason, and the others supported", async () => {
    const detector = createFakeSpanDetector({ words: { twenty: 0.92 } });
    const { backend, scorer } = alone(detector);
    const r = scored(await scorer.score({ answer: ANSWER, context: CONTEXT, question: "When does it open?" }));
    expect(r.verdict).toBe("ungrounded");
    expect(r.claims.map((c) => c.verdict)).toEqual(["supported", "unsupported"]);
    const [first, second] = r.claims;
    expect(first?.reason).toBeUndefined();
    expect(second?.reason).toBe("unsupported_span");
    expect(r.spans).toEqual([{ start: 38, end: 44, probability: 0.92, claim: 1, text: "twenty" }]);
    expect(second?.spans).toEqual([0]);
    expect(second?.score).toBeCloseTo(0.08);
    expect(first?.score).toBeCloseTo(0.95);
    expect(r.score).toBeCloseTo(0.08);
    expect(second?.evidence).toBeNull();
    expect(second?.notes).toContain(NO_EVIDENCE_NOTE);
    expect(second?.notes.some((n) => n.includes("38–44") && n.includes("0.92"))).toBe(true);
    expect(r.entailmentCalls).toBe(0);
    expect(r.callsByEngine).toEqual({ claims: 0, spans: 1 });
    expect(backend.classified).toBe(0);
    // One run for the answer, with the documents and the question.
    expect(detector.inputs).toEqual([{ answer: ANSWER, passages: [CONTEXT], question: "When does it open?" }]);
  });

  it("scores an answer with no span grounded at 1 − its highest token probability", async () => {
    const { scorer } = alone(createFakeSpanDetector({ words: { nine: 0.3 } }));
    const r = scored(await scorer.score({ answer: ANSWER, context: CONTEXT }));
    expect(r.verdict).toBe("grounded");
    expect(r.spans).toEqual([]);
    expect(r.score).toBeCloseTo(0.7);
    expect(r.claims.every((c) => c.spans === undefined && c.reason === undefined)).toBe(true);
  });

  it("reads the span threshold as 1 − the answer threshold: a token at 0.3 is a span at τ 0.75, not at τ 0.5", async () => {
    const detector = createFakeSpanDetector({ words: { nine: 0.3 } });
    const strict = scored(await alone(detector, {}, 0.75).scorer.score({ answer: ANSWER, context: CONTEXT }));
    expect(strict.verdict).toBe("ungrounded");
    expect(strict.spans?.map((s) => s.text)).toEqual(["nine."]);
    expect(strict.claims[0]?.reason).toBe("unsupported_span");
  });

  it("lists a span outside every checked claim with claim null and leaves the claims supported", async () => {
    // "Thanks!" is no checkable claim: its word may be marked, but it judges no claim.
    const { scorer } = alone(createFakeSpanDetector({ words: { thanks: 0.9 } }));
    const r = scored(await scorer.score({ answer: "The museum opens at nine. Thanks!", context: CONTEXT }));
    expect(r.spans?.map((s) => ({ text: s.text, claim: s.claim }))).toEqual([{ text: "Thanks!", claim: null }]);
    expect(r.claims.every((c) => c.verdict === "supported")).toBe(true);
  });

  it("maps spans to the caller's answer through a cut token and an answer cut at maxAnswerChars", async () => {
    const blob = "x".repeat(300);
    const answer = `The museum opens at ${blob} nine. Entry costs twenty euros. ${"More words here. ".repeat(20)}`;
    const detector = createFakeSpanDetector({ words: { twenty: 0.9 } });
    const { scorer } = alone(detector, { maxTokenChars: 20, maxAnswerChars: 360 });
    const r = scored(await scorer.score({ answer, context: CONTEXT }));
    expect(r.limits).toEqual(expect.arrayContaining(["token_chars", "answer_chars"]));
    const span = r.spans?.[0];
    expect(span && answer.slice(span.start, span.end)).toBe("twenty");
    // The detector read the checked text: the blob cut, the answer cut.
    const read = detector.inputs[0]?.answer ?? "";
    expect(read.length).toBeLessThanOrEqual(360);
    expect(read).not.toContain("x".repeat(21));
    expect(read.length).toBeLessThan(answer.length - 300);
    const claim = r.claims.find((c) => c.reason === "unsupported_span");
    expect(claim && span && claim.start <= span.start && span.end <= claim.end).toBe(true);
  });

  it("checks every claim without an entailment budget: no pair is sent", async () => {
    const { scorer } = alone(createFakeSpanDetector(), { maxEntailmentCalls: 1 });
    const r = scored(await scorer.score({ answer: ANSWER, context: CONTEXT }));
    expect(r.claims).toHaveLength(2);
    expect(r.limits).not.toContain("entailment_calls");
  });

  it("is unscorable with backend_error naming the detector when it fails", async () => {
    const { scorer } = alone(createFakeSpanDetector({ fail: new Error("session lost") }));
    const r = await scorer.score({ answer: ANSWER, context: CONTEXT });
    expect(r.verdict).toBe("unscorable");
    if (r.verdict === "unscorable") {
      expect(r.reason).toBe("backend_error");
      expect(r.detail).toBe("fake-spans backend failed: session lost");
    }
  });

  it("refuses a reply with a token outside the answer: unscorable, never a made-up span", async () => {
    const { scorer } = alone(createFakeSpanDetector({ reply: () => [{ tokens: [{ start: 0, end: 9999, probability: 0.9 }], runs: 1 }] }));
    const r = await scorer.score({ answer: ANSWER, context: CONTEXT });
    expect(r.verdict).toBe("unscorable");
    if (r.verdict === "unscorable") expect(r.detail).toMatch(/outside the answer/);
  });

  it("keeps the unscorable paths: an empty answer never reaches the detector", async () => {
    const detector = createFakeSpanDetector();
    const r = await alone(detector).scorer.score({ answer: "  ", context: CONTEXT });
    expect(r.verdict).toBe("unscorable");
    expect(detector.inputs).toHaveLength(0);
  });

  it("measures no relevance it cannot: without a relevance scorer the cause stays unknown and says why", async () => {
    const detector = createFakeSpanDetector({ words: { twenty: 0.9 } });
    const backend = noPairs();
    const scorer = createGroundednessScorer(backend, testAnalyzer(), {
      threshold: 0.5,
      topK: 2,
      tokenBudget: 40,
      relevance: { thresholds: { context: 0.3, answer: 0.3 }, topK: 2 },
      spans: { detector, mode: "alone", threshold: 0.5 },
    });
    const r = scored(await scorer.score({ answer: ANSWER, context: CONTEXT, question: "When?" }));
    expect(r.verdict).toBe("ungrounded");
    expect(r.relevance?.unmeasured?.reason).toBe("no_relevance_scorer");
    expect(r.cause).toBe("unknown");
    expect(backend.classified).toBe(0);
  });
});

describe("a span detector alone, on answers it cannot score", () => {
  it("leaves an unscorable answer unscorable, relevance saying it has no scorer, and never throws", async () => {
    const detector = createFakeSpanDetector();
    const backend = noPairs();
    const scorer = createGroundednessScorer(backend, testAnalyzer(), { threshold: 0.5, topK: 2, tokenBudget: 40, relevance: { thresholds: { context: 0.3, answer: 0.3 }, topK: 2 }, spans: { detector, mode: "alone", threshold: 0.5 } });
    const r = await scorer.score({ answer: "Hello!", context: CONTEXT, question: "When?" });
    expect(r.verdict).toBe("unscorable");
    expect(r.relevance?.unmeasured?.reason).toBe("no_relevance_scorer");
    expect(detector.inputs).toHaveLength(0);
    expect(backend.classified).toBe(0);
  });
});

describe("a span detector refining a claim detector", () => {
  const refine = (detector: SpanDetector, threshold = 0.5) => createGroundednessScorer(createFakeBackend(), testAnalyzer(), { threshold: 0.5, topK: 2, tokenBudget: 40, spans: { detector, mode: "refine", threshold } });

  it("attaches the spans to the answer and its claims while the claim detector's verdicts stand", async () => {
    // The fake backend supports "…twenty euros." (its marker word "euros" is in the context); the span detector marks "twenty".
    const detector = createFakeSpanDetector({ words: { twenty: 0.8, nine: 0.4 }, runs: 2 });
    const r = scored(await refine(detector).score({ answer: ANSWER, context: CONTEXT, question: "When?" }));
    expect(r.claims.map((c) => c.verdict)).toEqual(["supported", "supported"]);
    expect(r.verdict).toBe("grounded");
    expect(r.spans).toEqual([{ start: 38, end: 44, probability: 0.8, claim: 1, text: "twenty" }]);
    expect(r.claims[1]?.spans).toEqual([0]);
    expect(r.claims[1]?.reason).toBeUndefined();
    expect(r.claims[1]?.evidence).not.toBeNull();
    expect(r.claims[1]?.notes.some((n) => n.includes("38–44"))).toBe(true);
    expect(r.claims[0]?.spans).toBeUndefined();
    expect(r.callsByEngine).toEqual({ claims: r.entailmentCalls, spans: 2 });
    expect(r.entailmentCalls).toBeGreaterThan(0);
    expect(detector.inputs).toHaveLength(1);
  });

  it("reads its own span threshold: a lower one marks more words", async () => {
    const detector = createFakeSpanDetector({ words: { twenty: 0.8, nine: 0.4 } });
    const r = scored(await refine(detector, 0.35).score({ answer: ANSWER, context: CONTEXT }));
    expect(r.spans?.map((s) => s.text)).toEqual(["nine.", "twenty"]);
    expect(r.claims[0]?.spans).toEqual([0]);
  });

  it("keeps the claim verdicts when the detector fails, and says the spans were not measured", async () => {
    const r = scored(await refine(createFakeSpanDetector({ fail: new Error("worker died") })).score({ answer: ANSWER, context: CONTEXT }));
    expect(r.verdict).toBe("grounded");
    expect(r.spans).toBeUndefined();
    expect(r.spansUnmeasured).toEqual({ reason: "backend_error", detail: "fake-spans backend failed: worker died" });
    expect(r.callsByEngine).toEqual({ claims: r.entailmentCalls, spans: 0 });
  });

  it("passes the call's abort signal to the detector", async () => {
    const detector = createFakeSpanDetector();
    const signal = new AbortController().signal;
    await refine(detector).score({ answer: ANSWER, context: CONTEXT }, { signal });
    expect(detector.options[0]?.signal).toBe(signal);
  });

  it("stays unscorable when the claim detector fails, and runs no span detector for it", async () => {
    const backend = createFakeBackend({ classify: () => Promise.reject(new Error("down")) });
    const detector = createFakeSpanDetector({ words: { twenty: 0.9 } });
    const scorer = createGroundednessScorer(backend, testAnalyzer(), { threshold: 0.5, topK: 2, tokenBudget: 40, spans: { detector, mode: "refine", threshold: 0.5 } });
    const r = await scorer.score({ answer: ANSWER, context: CONTEXT });
    expect(r.verdict).toBe("unscorable");
    expect(detector.inputs).toHaveLength(0);
  });

  it("runs the span detector after the claim pairs, not beside them (both engines would contend for every core)", async () => {
    const order: string[] = [];
    const backend = createFakeBackend({ classify: (pairs) => (order.push("claims"), Promise.resolve(pairs.map(() => ({ entailment: 0.9, neutral: 0.05, contradiction: 0.05 })))) });
    const detector = createFakeSpanDetector({ words: { twenty: 0.9 } });
    const detect = detector.detect.bind(detector);
    const scorer = createGroundednessScorer(backend, testAnalyzer(), { threshold: 0.5, topK: 2, tokenBudget: 40, spans: { detector: { ...detector, detect: (inputs, options) => (order.push("spans"), detect(inputs, options)) }, mode: "refine", threshold: 0.5 } });
    const r = scored(await scorer.score({ answer: ANSWER, context: CONTEXT }));
    expect(order).toEqual(["claims", "spans"]);
    expect(r.spans?.map((s) => s.text)).toEqual(["twenty"]);
  });
});
