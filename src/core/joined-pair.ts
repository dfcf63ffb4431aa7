import type { ContextWindow, WindowSentence } from "./context.ts";
import type { EvidenceSpan } from "./evidence-span.ts";
import { spanOf } from "./evidence-span.ts";
import { extractQuantities } from "./quantities.ts";
import type { AnalyzedText } from "./text.ts";

/**
 * A claim that joins two facts ("The Team plan includes 5 seats and priority support.") may find
 * each in its own sentence, in two windows the backend judges apart, so neither entails it. The
 * joined pair is one more premise for such a claim: the two sentences of its checked windows that
 * together state its content words, read as one passage. It is made only when it can help: no
 * checked window holds every content word of the claim, each sentence misses one the other holds,
 * and together they miss none. The scorer sends it within what is left of the answer's entailment
 * budget, and a claim its windows contradict keeps its contradiction (core/groundedness.ts).
 */

/** One sentence of the pair, in the window it was found in. */
export interface JoinedSentence {
  readonly window: ContextWindow;
  readonly span: EvidenceSpan;
}

/** Two sentences of two windows, in reading order (by document, then offset), and the passage they make. */
export interface JoinedPair {
  readonly first: JoinedSentence;
  readonly second: JoinedSentence;
  /** The two sentences' texts, one space between them: the premise sent with the claim. */
  readonly premise: string;
}

interface Candidate {
  readonly w: ContextWindow;
  readonly s: WindowSentence;
  /** The claim's terms the sentence holds. */
  readonly held: ReadonlySet<string>;
}

function held(terms: readonly string[], claim: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  for (const t of terms) if (claim.has(t)) out.add(t);
  return out;
}

/** Whether one of the windows holds every one of the claim's terms: then there is nothing to join. */
export function heldByOne(checked: readonly ContextWindow[], claim: ReadonlySet<string>): boolean {
  return checked.some((w) => held(w.terms, claim).size === claim.size);
}

/**
 * Whether one window holds both sentences. Sentences of two documents share none. Of one document,
 * a window holding both holds the first: its own, or a neighbour (consecutive windows share a
 * sentence; a window's id is its index in `windows`), so three windows are looked at.
 */
function heldTogether(a: Candidate, b: Candidate, windows: readonly ContextWindow[]): boolean {
  if (a.w.doc !== b.w.doc) return false;
  const from = Math.min(a.s.start, b.s.start);
  const to = Math.max(a.s.end, b.s.end);
  for (const id of [a.w.id - 1, a.w.id, a.w.id + 1]) {
    const w = windows[id];
    if (w && w.doc === a.w.doc && w.start <= from && w.end >= to) return true;
  }
  return false;
}

/**
 * The joined pair for a claim looked up by `claimTerms` (its distinct content lemmas), from the
 * windows checked for it (best first), or undefined when there is none worth sending. The first
 * sentence is the one holding most of the claim's terms (the best-ranked window's, the earliest on
 * a tie); the second, from another window, the one holding most of the terms the first lacks.
 * `windows` are all the answer's windows (indexed by id): a pair that one of them holds whole is
 * not joined (the backend reads it there). Linear in the claim's terms and the checked windows' terms.
 */
export function joinedPair(checked: readonly ContextWindow[], claimTerms: readonly string[], windows: readonly ContextWindow[]): JoinedPair | undefined {
  const claim = new Set(claimTerms);
  if (claim.size < 2 || checked.length < 2) return undefined;
  // A window holding every term of the claim was judged with all of them: nothing to join.
  if (heldByOne(checked, claim)) return undefined;
  // Nor can two sentences state a term no checked window holds.
  const anywhere = new Set<string>();
  for (const w of checked) for (const t of w.terms) if (claim.has(t)) anywhere.add(t);
  if (anywhere.size < claim.size) return undefined;
  const candidates: Candidate[] = [];
  for (const w of checked) for (const s of w.sentences) candidates.push({ w, s, held: held(s.terms, claim) });
  let first: Candidate | undefined;
  for (const c of candidates) if (!first || c.held.size > first.held.size) first = c;
  if (!first || first.held.size === 0) return undefined;
  const lacking = claim.size - first.held.size;
  let second: Candidate | undefined;
  let secondGain = 0;
  for (const c of candidates) {
    if (c.w === first.w) continue;
    // The terms it holds that the first lacks (one pass over its own terms, not over the claim's).
    let gain = 0;
    for (const t of c.held) if (!first.held.has(t)) gain++;
    if (gain > secondGain) {
      second = c;
      secondGain = gain;
    }
  }
  if (!second || secondGain < lacking) return undefined;
  const a = first;
  const b = second;
  if (heldTogether(a, b, windows)) return undefined;
  const [x, y] = a.w.doc < b.w.doc || (a.w.doc === b.w.doc && a.s.start <= b.s.start) ? [a, b] : [b, a];
  const one = { window: x.w, span: spanOf(x.w, x.s) };
  const two = { window: y.w, span: spanOf(y.w, y.s) };
  return { first: one, second: two, premise: `${one.span.text} ${two.span.text}` };
}

/**
 * The terms a claim is joined by: its content terms less the numbers of its relative amounts. "The
 * Pro plan costs $15 more than Basic" joins "Basic … $10" and "Pro … $25" although neither states
 * 15: the difference is worked out from the two (the backend judges whether it is). A plain number
 * stays a term, so a claim with a number no sentence states is not joined.
 */
export function joinTerms(terms: readonly string[], claim: AnalyzedText): readonly string[] {
  const relative = new Set<string>();
  for (const q of extractQuantities(claim)) {
    if (!q.relation) continue;
    for (const t of claim.tokens) if (t.start >= q.start && t.end <= q.end) relative.add(t.lemma);
  }
  return relative.size === 0 ? terms : terms.filter((t) => !relative.has(t) || !/^\d/.test(t));
}

/**
 * Per claim, its joined pair or undefined, while `spare` calls last (the claims in order, one call
 * each). A cited claim joins sentences of the documents it cites only (it is judged by those).
 */
export function joinedPairs(checks: ReadonlyArray<readonly ContextWindow[]>, terms: ReadonlyArray<readonly string[]>, citedDocs: ReadonlyArray<ReadonlySet<number>>, windows: readonly ContextWindow[], spare: number): Array<JoinedPair | undefined> {
  let left = spare;
  return checks.map((chosen, ci) => {
    if (left <= 0) return undefined;
    const cited = citedDocs[ci];
    const pool = cited && cited.size > 0 ? chosen.filter((w) => cited.has(w.doc)) : chosen;
    const pair = joinedPair(pool, terms[ci] ?? [], windows);
    if (pair) left--;
    return pair;
  });
}

/** The window a joined pair is judged as: its passage, placed at the first sentence (it has no sentences of its own, so nothing reads it as stating a claim verbatim). */
export function joinedWindow(pair: JoinedPair): ContextWindow {
  const { window, span } = pair.first;
  return { id: -1, doc: window.doc, start: span.start, end: span.end, text: pair.premise, tokens: 0, terms: [], sentences: [] };
}
