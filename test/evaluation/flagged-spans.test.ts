import { describe, expect, it } from "vitest";
import { createFlaggedRing } from "../../src/evaluation/flagged-ring.ts";
import { summarize } from "../../src/evaluation/summary.ts";
import type { FlaggedAnswer } from "../../src/evaluation/types.ts";
import { evaluationEventOf, flaggedAnswerOf } from "../../src/evaluation/views.ts";
import { SPAN_ANSWER, spanResult } from "../helpers/span-results.ts";

const at = { route: "/ask", traceId: "a".repeat(32), spanId: "b".repeat(16) };
const input = { question: "What is the capital of France?", answer: SPAN_ANSWER, context: ["Paris is the capital of France."] };

describe("the flagged feed with spans", () => {
  it("the wire form carries the spans without their words, the words only in content, and the calls by engine", () => {
    const off = summarize(spanResult(), false);
    expect(off.spans).toEqual([
      { start: 25, end: 29, probability: 0.91, claim: 0 },
      { start: 38, end: 47, probability: 0.874, claim: 1 },
    ]);
    expect(off.callsByEngine).toEqual({ claims: 0, spans: 1 });
    expect(JSON.stringify(off)).not.toContain("Lyon");
    expect(off.flaggedClaims?.[0]).toMatchObject({ reason: "unsupported_span", spans: [0] });
    expect(summarize(spanResult(), true).content?.spans).toEqual(["Lyon", "3 million"]);
    // The onEvaluation payload: offsets and probabilities, never the words.
    expect(JSON.stringify(evaluationEventOf("/ask", 0.1, summarize(spanResult(), true)))).not.toContain("Lyon");
  });

  it("a flagged answer carries its spans by offsets, probability and claim, with their words only through the content capture", () => {
    const capture = (t: string): string => t.replace(/\d/g, "#");
    const on = flaggedAnswerOf(summarize(spanResult(), true), at, { capture, input });
    expect(on?.spans).toEqual([
      { start: 25, end: 29, probability: 0.91, claim: 0, text: "Lyon" },
      { start: 38, end: 47, probability: 0.874, claim: 1, text: "# million" },
    ]);
    expect(on?.claims[0]).toMatchObject({ reason: "unsupported_span", spans: [0] });
    const off = flaggedAnswerOf(summarize(spanResult(), true), at);
    expect(off?.spans).toEqual([
      { start: 25, end: 29, probability: 0.91, claim: 0 },
      { start: 38, end: 47, probability: 0.874, claim: 1 },
    ]);
    expect(JSON.stringify(off)).not.toContain("Lyon");
  });

  it("an answer scored without a span detector has no spans in the feed, as before", () => {
    const entry = flaggedAnswerOf(summarize(spanResult(false), true), at, { capture: (t) => t, input });
    expect(entry).not.toHaveProperty("spans");
    expect(entry?.claims[0]).not.toHaveProperty("spans");
    expect(entry?.claims[0]).not.toHaveProperty("reason");
  });

  it("the ring lets an answer's span words go with its text, then its spans, before it cuts claims", () => {
    const entry = (spans: number, words: number): Omit<FlaggedAnswer, "time"> => ({
      ...at,
      verdict: "ungrounded",
      score: 0.1,
      answer: "a".repeat(400),
      claims: [{ verdict: "unsupported", start: 0, end: 10, evidence: null, spans: [0] }],
      spans: Array.from({ length: spans }, (_, i) => ({ start: i, end: i + 1, probability: 0.9, claim: 0, text: "w".repeat(words) })),
    });
    const ring = createFlaggedRing({ perRoute: 10, maxBytes: 16 * 1024 });
    ring.add(entry(5, 200));
    const [wordsGone] = ring.read();
    expect(wordsGone).not.toHaveProperty("answer");
    expect(wordsGone?.spans).toHaveLength(5);
    expect(wordsGone?.spans?.[0]).toEqual({ start: 0, end: 1, probability: 0.9, claim: 0 });
    ring.add(entry(200, 1));
    const [spansGone] = ring.read();
    expect(spansGone).not.toHaveProperty("spans");
    expect(spansGone?.claims).toHaveLength(1);
    ring.add(entry(1, 5));
    expect(ring.read()[0]?.spans).toEqual([{ start: 0, end: 1, probability: 0.9, claim: 0, text: "wwwww" }]);
  });
});
