import type { AnswerSpan, ClaimResult } from "../../src/core/result.ts";
import type { Evaluation } from "../../src/scoring/scorer.ts";

/** An answer with two claims; a span detector marked "Lyon" (claim 0) and "3 million" (claim 1). */
export const SPAN_ANSWER = "The capital of France is Lyon. It has 3 million people.";

const at = (words: string): { start: number; end: number } => {
  const start = SPAN_ANSWER.indexOf(words);
  return { start, end: start + words.length };
};

export const SPANS: readonly AnswerSpan[] = [
  { ...at("Lyon"), probability: 0.91, claim: 0, text: "Lyon" },
  { ...at("3 million"), probability: 0.874, claim: 1, text: "3 million" },
];

const claim = (index: number, text: string, verdict: ClaimResult["verdict"], score: number, spans?: number[]): ClaimResult => ({
  index,
  text,
  ...at(text),
  verdict,
  score,
  contradiction: 0,
  evidence: null,
  notes: [],
  ...(spans ? { spans, ...(verdict === "unsupported" ? { reason: "unsupported_span" as const } : {}) } : {}),
});

/** The claims of SPAN_ANSWER: both unsupported by their spans (a span detector alone), or without spans (none ran). */
export function spanClaims(withSpans = true): ClaimResult[] {
  return [claim(0, "The capital of France is Lyon.", "unsupported", 0.09, withSpans ? [0] : undefined), claim(1, "It has 3 million people.", "unsupported", 0.126, withSpans ? [1] : undefined)];
}

/** A scored SPAN_ANSWER: with its spans and calls by engine, or (`withSpans` false) as a result without a span detector. */
export function spanResult(withSpans = true, spans: readonly AnswerSpan[] = SPANS): Evaluation {
  return {
    verdict: "ungrounded",
    score: 0.09,
    threshold: 0.5,
    claims: spanClaims(withSpans),
    skipped: [],
    backend: { name: "fake", version: "1", tier: "production" },
    limits: [],
    entailmentCalls: 0,
    ...(withSpans ? { spans, callsByEngine: { claims: 0, spans: 1 } } : {}),
  };
}
