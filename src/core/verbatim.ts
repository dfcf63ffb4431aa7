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

/** Whether a UTF-16 code unit is whitespace as `\s` reads it (wide spaces included: only width forms are folded). */
function isSpaceCode(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

const SPACE = 0x20;
const DOT = 0x2e;
/** Quotes that may surround a sentence or a claim, as UTF-16 code units. */
const QUOTES = new Set([..."\"'`\u201C\u201D\u2018\u2019\u00AB\u00BB\u201E\u201A\u2039\u203A"].map((c) => c.charCodeAt(0)));
/**
 * Marks that end a statement and say nothing more (after width folding: full-width forms are the
 * ASCII ones), as UTF-16 code units. Not `?` nor any question mark (a question states nothing, so
 * "Is it safe?" must not read as "It is safe."), and not `…` (a sentence that trails off is not the
 * assertion it starts): those stay as content.
 */
const FINAL = new Set([...".!\u3002\u0964"].map((c) => c.charCodeAt(0)));
const UTF16 = new TextDecoder("utf-16le");

/**
 * The half-width and full-width forms block (U+FF01–U+FFEE), every character of which NFKC maps to
 * the same character at its usual width ("５００" is "500"); folded one character at a time, so no
 * other compatibility mapping applies.
 */
const WIDTH_FORM = /[\uFF01-\uFFEE]/g;
/** A run of letters and the marks on them: what is lower-cased, or kept, as one word. */
const WORD = /[\p{L}\p{M}]+/gu;

/** NFKC of one width form: the same character at its usual width. */
const foldWidth = (c: string): string => c.normalize("NFKC");

/**
 * A word as compared: lower case, unless it is written in capitals (two cased letters or more, none
 * lower case), where the case is what it says: "US" is not "us", "IT" is not "it". A single capital
 * ("A", "I") starts sentences and is lower-cased.
 */
function foldCase(word: string): string {
  let upper = 0;
  for (const ch of word) {
    const lower = ch.toLowerCase();
    if (lower !== ch) upper++;
    else if (ch.toUpperCase() !== ch) return word.toLowerCase();
  }
  return upper >= 2 ? word : word.toLowerCase();
}

/**
 * A sentence or claim as compared for verbatim support: Unicode NFC with half- and full-width forms
 * folded to their usual width (and no other compatibility mapping: "10⁵" is not "105", "2³" not
 * "23", "CO₂" not "CO2", "½" not "1⁄2"), each word lower-cased unless written in capitals, whitespace
 * runs as one space, the quotes around it dropped, and one final `.`, `!`, `。` or `।` dropped unless
 * it ends an ellipsis (`...`). A question mark and `…` are content. So `"It rained."` and `It
 * rained` read the same, and `It rained?`, `It rained…` and `It rained...` each read only as
 * themselves. What this does not fold goes to the model, which is the safe side. Linear in the text.
 */
export function normaliseSentence(text: string): string {
  const folded = text.replace(WIDTH_FORM, foldWidth).normalize("NFC").replace(WORD, foldCase);
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
  // Quotes and spaces off both ends, one unit at a time; then one final mark that is not the last
  // dot of an ellipsis, and the quotes and spaces before it (`"It rained".` and `"It rained."`).
  const isEdge = (c: number | undefined): boolean => c === SPACE || QUOTES.has(c ?? 0);
  let start = 0;
  let end = n;
  while (start < end && isEdge(units[start])) start++;
  while (end > start && isEdge(units[end - 1])) end--;
  const last = units[end - 1];
  if (end > start && FINAL.has(last ?? 0) && !(last === DOT && units[end - 2] === DOT)) {
    end--;
    while (end > start && isEdge(units[end - 1])) end--;
  }
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
