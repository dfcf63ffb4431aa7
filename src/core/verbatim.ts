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

/** Whether a UTF-16 code unit is whitespace as `\s` reads it (after NFKC most wide spaces are already U+0020). */
function isSpaceCode(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

const SPACE = 0x20;
/** Quotes that may surround a sentence or a claim, as UTF-16 code units. */
const QUOTES = new Set([..."\"'`\u201C\u201D\u2018\u2019\u00AB\u00BB\u201E\u201A\u2039\u203A"].map((c) => c.charCodeAt(0)));
/** Punctuation that ends a sentence (after NFKC: full-width forms are already the ASCII ones), as UTF-16 code units. */
const FINAL = new Set([...".!?\u2026\u3002\u061F\u0964"].map((c) => c.charCodeAt(0)));
const UTF16 = new TextDecoder("utf-16le");

/**
 * A sentence or claim as compared for verbatim support: Unicode NFKC, case-folded, whitespace runs
 * as one space, and the quotes around it and its final sentence punctuation dropped (repeatedly, so
 * `"It rained."` and `It rained` read the same). Linear in the text.
 */
export function normaliseSentence(text: string): string {
  const folded = text.normalize("NFKC").toLowerCase();
  // Whitespace runs as one space, written into one buffer in one pass (no regular expression, no
  // string per word: a text of single letters between spaces costs no more than any other).
  const units = new Uint16Array(folded.length);
  let n = 0;
  let pendingSpace = false;
  for (let i = 0; i < folded.length; i++) {
    const c = folded.charCodeAt(i);
    if (isSpaceCode(c)) {
      pendingSpace = n > 0;
      continue;
    }
    if (pendingSpace) units[n++] = SPACE;
    pendingSpace = false;
    units[n++] = c;
  }
  // Quotes, final punctuation and the spaces between them off both ends, one unit at a time.
  let start = 0;
  let end = n;
  while (start < end && (QUOTES.has(units[start] ?? 0) || units[start] === SPACE)) start++;
  while (end > start && (QUOTES.has(units[end - 1] ?? 0) || FINAL.has(units[end - 1] ?? 0) || units[end - 1] === SPACE)) end--;
  return UTF16.decode(units.subarray(start, end));
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
