import type { ContextWindow } from "./context.ts";

/**
 * Claims a window states word for word: a claim whose normalised text is the normalised text of a
 * whole sentence of the window is supported by it, and no model is asked. A part of a sentence is
 * not enough ("It is not true that the sky is green." does not state "The sky is green."), so only
 * the window's own sentences (core/context.ts cut them) are compared, whole, and never a substring.
 * Every step is one pass over the text: window and claim texts are attacker-controlled.
 */

/** The note on a pair decided without a model call. */
export const VERBATIM_NOTE = "verbatim: the claim is a whole sentence of this window (no model call)";

/** The judgement of a pair whose window states the claim verbatim. */
export const VERBATIM_RESULT = { entailment: 1, neutral: 0, contradiction: 0, notes: [VERBATIM_NOTE] } as const;

/** Quotes that may surround a sentence or a claim. */
const QUOTES = new Set(["\"", "'", "\u201C", "\u201D", "\u2018", "\u2019", "\u00AB", "\u00BB", "\u201E", "\u201A", "\u2039", "\u203A", "`"]);
/** Punctuation that ends a sentence (after NFKC: full-width forms are already the ASCII ones). */
const FINAL = new Set([".", "!", "?", "\u2026", "\u3002", "\u061F", "\u0964"]);

/**
 * A sentence or claim as compared for verbatim support: Unicode NFKC, case-folded, whitespace runs
 * as one space, and the quotes around it and its final sentence punctuation dropped (repeatedly, so
 * `"It rained."` and `It rained` read the same). Linear in the text.
 */
export function normaliseSentence(text: string): string {
  // One character class, no alternation: a single linear pass.
  const out = text.normalize("NFKC").toLowerCase().replace(/\s+/gu, " ");
  // Quotes, final punctuation and the spaces between them off both ends, one character at a time.
  let start = 0;
  let end = out.length;
  while (start < end && (QUOTES.has(out.charAt(start)) || out.charAt(start) === " ")) start++;
  while (end > start && (QUOTES.has(out.charAt(end - 1)) || FINAL.has(out.charAt(end - 1)) || out.charAt(end - 1) === " ")) end--;
  return out.slice(start, end);
}

/** The normalised text of each whole sentence of a window (none for a window that lists no sentences or a cut part of one). */
export function windowSentenceSet(w: ContextWindow): ReadonlySet<string> {
  const out = new Set<string>();
  for (const s of w.sentences) {
    if (s.part === true) continue;
    const text = normaliseSentence(w.text.slice(s.start - w.start, s.end - w.start));
    if (text !== "") out.add(text);
  }
  return out;
}

/**
 * Decides which (claim, window) pairs are verbatim: each window's sentences are normalised once
 * per answer, the claim once per call. Linear in the texts looked at.
 */
export interface VerbatimMatcher {
  /** Whether the window holds the claim's normalised text as one of its whole sentences. */
  states(w: ContextWindow, claimText: string): boolean;
}

/** A matcher for one answer's pairs (it keeps each window's normalised sentences while the answer is scored). */
export function createVerbatimMatcher(): VerbatimMatcher {
  const sentences = new Map<ContextWindow, ReadonlySet<string>>();
  const claims = new Map<string, string>();
  return {
    states(w, claimText) {
      let claim = claims.get(claimText);
      if (claim === undefined) claims.set(claimText, (claim = normaliseSentence(claimText)));
      if (claim === "") return false;
      let set = sentences.get(w);
      if (!set) sentences.set(w, (set = windowSentenceSet(w)));
      return set.has(claim);
    },
  };
}
