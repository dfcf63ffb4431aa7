import type { ContextWindow, WindowSentence } from "./context.ts";
import { extractQuantities } from "./quantities.ts";
import { matchQuantity } from "./quantity-match.ts";
import type { TextAnalyzer, Token } from "./text.ts";
import { NEGATION_WORDS } from "./text.ts";

/**
 * The sentence of a window shown as a claim's evidence, with offsets into the window's document
 * (as the window's are: into the text the scorer checked).
 */
export interface EvidenceSpan {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** The whole window, for a window that does not list its sentences. */
function wholeWindow(w: ContextWindow): EvidenceSpan {
  return { start: w.start, end: w.end, text: w.text };
}

/** The sentence's text and offsets, without the whitespace around it (the analyser's sentences can start with the line breaks before them). */
export function spanOf(w: ContextWindow, s: WindowSentence): EvidenceSpan {
  const raw = w.text.slice(s.start - w.start, s.end - w.start);
  const lead = raw.length - raw.trimStart().length;
  const text = raw.trim();
  if (text === "") return { start: s.start, end: s.end, text: raw };
  return { start: s.start + lead, end: s.start + lead + text.length, text };
}

/** How many of the claim's distinct terms the sentence holds. */
function overlap(s: WindowSentence, claim: ReadonlySet<string>): number {
  const seen = new Set<string>();
  for (const t of s.terms) if (claim.has(t)) seen.add(t);
  return seen.size;
}

/**
 * The sentence of the window that best supports a claim: the one holding the most of the claim's
 * distinct content lemmas (`claimTerms`, as the claim is looked up by), the earliest on a tie.
 * Linear in the window's terms.
 */
export function supportingSentence(w: ContextWindow, claimTerms: readonly string[]): EvidenceSpan {
  const claim = new Set(claimTerms);
  let best: WindowSentence | undefined;
  let bestOverlap = -1;
  for (const s of w.sentences) {
    const o = overlap(s, claim);
    if (o > bestOverlap) {
      best = s;
      bestOverlap = o;
    }
  }
  return best ? spanOf(w, best) : wholeWindow(w);
}

/** The index of the window's sentence an offset into the window's text lies in (the last one that starts at or before it). */
function sentenceAt(w: ContextWindow, offset: number): number {
  const at = w.start + offset;
  let lo = 0;
  let hi = w.sentences.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((w.sentences[mid]?.start ?? 0) <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function isNegation(t: Token): boolean {
  return NEGATION_WORDS.has(t.lower) || NEGATION_WORDS.has(t.lemma);
}

/**
 * The sentence of the window that contradicts a claim. First, the one holding the window's number
 * that conflicts with the claim's first conflicting number, as matchQuantity decides over the
 * whole window ("30 days" against "90 days"): the number the offline backend's notes name. Else,
 * among the sentences sharing a content lemma with the claim, the one sharing most that has the
 * opposite polarity (a negation where the claim has none, or none where it has one). Else the best
 * supporting sentence. The window is analysed once (the analyser caches it: the backend may have
 * read the same text); the cost is its tokens, plus the claim's quantities × the window's, as
 * the offline backend's own comparison (the window is bounded by the token budget).
 */
export function contradictingSentence(w: ContextWindow, claimText: string, claimTerms: readonly string[], analyzer: TextAnalyzer): EvidenceSpan {
  if (w.sentences.length === 0) return wholeWindow(w);
  const claimDoc = analyzer.analyze(claimText);
  const doc = analyzer.analyze(w.text);
  const quantities = extractQuantities(doc);
  if (quantities.length > 0) {
    for (const q of extractQuantities(claimDoc)) {
      const m = matchQuantity(q, quantities);
      const other = m.match === "contradicted" ? m.other : undefined;
      const s = other ? w.sentences[sentenceAt(w, other.start)] : undefined;
      if (s) return spanOf(w, s);
    }
  }
  // Negations of the window, each in the sentence it lies in (offsets into the window's text).
  const claimNegated = claimDoc.tokens.some(isNegation);
  const negated: boolean[] = w.sentences.map(() => false);
  for (const t of doc.tokens) if (isNegation(t)) negated[sentenceAt(w, t.start)] = true;
  const claim = new Set(claimTerms);
  let best: WindowSentence | undefined;
  let bestOverlap = 0;
  w.sentences.forEach((s, i) => {
    if (negated[i] === claimNegated) return;
    const o = overlap(s, claim);
    if (o > bestOverlap) {
      best = s;
      bestOverlap = o;
    }
  });
  return best ? spanOf(w, best) : supportingSentence(w, claimTerms);
}
