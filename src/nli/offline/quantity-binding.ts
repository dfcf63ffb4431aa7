/**
 * What a number is about, for comparing numbers only: a sentence's subject (the words before its
 * first verb or number), and amounts a claim states as a difference, ratio or sum of the
 * evidence's. Kept local to the quantity comparison; matching claim subjects to evidence subjects
 * in general (entities, plan names) is not done here.
 */
import type { Quantity } from "../../core/quantities.ts";
import type { AlignedQuantityMatch } from "../../core/quantity-match.ts";
import { matchAlignedQuantity } from "../../core/quantity-match.ts";
import type { Token } from "../../core/text.ts";
import { isContentToken } from "../../core/text.ts";
import { isVerb } from "./clauses.ts";
import type { TextProfile } from "./profile.ts";

/** Marks that end a fronted phrase before the subject ("On the Standard plan, physiotherapy is …"). */
const FRONT_MARKS = new Set([",", ";", ":"]);

/** Parts of speech a subject's words may have (wink tags "costs" in "X costs $5" a noun: both sides then hold it). */
const SUBJECT_POS = new Set(["NOUN", "PROPN", "ADJ", "X"]);

/**
 * The content lemmas of a sentence's subject: its nouns and adjectives before the first verb or
 * auxiliary, or before its first quantity, past a fronted phrase ending in a comma. Empty when
 * there are none ("It costs $5"). One pass over the sentence's tokens.
 */
export function sentenceSubject(tokens: readonly Token[], quantities: readonly Quantity[]): ReadonlySet<string> {
  const firstQuantity = quantities[0]?.start ?? Infinity;
  let words: string[] = [];
  for (const t of tokens) {
    if (t.start >= firstQuantity || isVerb(t)) break;
    if (t.type === "punctuation" && FRONT_MARKS.has(t.text)) words = [];
    else if (isContentToken(t) && SUBJECT_POS.has(t.pos)) words.push(t.lemma);
  }
  return new Set(words);
}

function someMissing(words: ReadonlySet<string>, from: ReadonlySet<string>): boolean {
  for (const w of words) if (!from.has(w)) return true;
  return false;
}

/**
 * An evidence sentence is about another thing than a claim when each names a subject the other
 * lacks: the claim's subject has a word the sentence never uses, and the sentence's subject a
 * word the claim never uses ("physiotherapy … $40" against "An emergency visit costs $350").
 * Its numbers then neither support nor contradict the claim's. Without a subject on either side
 * ("It costs $5"), nothing is ruled out.
 */
export function aboutAnotherThing(
  claimSubject: ReadonlySet<string>,
  claimLemmas: ReadonlySet<string>,
  sentence: { readonly lemmas: ReadonlySet<string>; readonly subject?: ReadonlySet<string> },
): boolean {
  const subject = sentence.subject;
  if (claimSubject.size === 0 || !subject || subject.size === 0) return false;
  return someMissing(claimSubject, sentence.lemmas) && someMissing(subject, claimLemmas);
}

/** The evidence's quantities as read for one claimed quantity (see `quantityAligner`). */
export interface QuantityReading {
  /** Those of the sentences (and clauses) the claimed quantity aligns with. */
  readonly aligned: Quantity[];
  /** Those of the rest of the evidence. */
  readonly unrelated: Quantity[];
  /** Those of sentences about another thing than the claim: they never contradict it. */
  readonly offSubject: ReadonlySet<Quantity>;
}

/**
 * The quantities of the premise's sentences that are about another thing than the claim's
 * sentences holding numbers (`aboutAnotherThing`). One pass over the sentences.
 */
export function offSubjectQuantities(premise: TextProfile, hypothesis: TextProfile): ReadonlySet<Quantity> {
  const claimSubject = new Set<string>();
  for (const s of hypothesis.sentences) if (s.quantities.length > 0) for (const l of s.subject ?? []) claimSubject.add(l);
  const out = new Set<Quantity>();
  for (const s of premise.sentences) if (s.quantities.length > 0 && aboutAnotherThing(claimSubject, hypothesis.lemmas, s)) for (const e of s.quantities) out.add(e);
  return out;
}

/**
 * A claimed quantity read against the evidence: as `matchAlignedQuantity` reads it, except that
 * a value of a sentence about another thing is no contradiction (the claim's value is then read
 * against the rest), and that a difference, ratio or sum is matched when two aligned amounts
 * work out to it ("$15 more than Basic" by $25 and $10).
 */
export function matchBoundQuantity(q: Quantity, reading: QuantityReading): AlignedQuantityMatch {
  let m = matchAlignedQuantity(q, reading.aligned, reading.unrelated);
  if (m.match === "contradicted" && m.other && reading.offSubject.has(m.other)) {
    const off = reading.offSubject;
    m = matchAlignedQuantity(q, reading.aligned.filter((e) => !off.has(e)), reading.unrelated);
  }
  return q.relation && m.match !== "matched" && statedByArithmetic(q, reading.aligned) ? { match: "matched" } : m;
}

/** Most evidence amounts one relative claim amount is worked out from: pairs of them are tried, so the work is bounded. */
export const MAX_ARITHMETIC_OPERANDS = 24;

function close(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

/** An evidence amount of the claimed one's kind and unit (a count of its noun, or a bare number). */
function combinable(q: Quantity, e: Quantity): boolean {
  if (e.kind !== q.kind) return false;
  if (q.kind === "money" || q.kind === "duration") return e.unit === q.unit;
  return q.kind !== "count" || q.unit === "" || e.unit === "" || e.unit === q.unit;
}

/** Two evidence amounts can be combined: the same kind and unit, plain amounts (not themselves differences or ratios). */
function operands(q: Quantity, evidence: readonly Quantity[]): Quantity[] {
  const out: Quantity[] = [];
  for (const e of evidence) {
    if (out.length >= MAX_ARITHMETIC_OPERANDS) break;
    if (e.relation || e.kind === "time" || e.kind === "year" || e.kind === "monthday" || e.kind === "ordinal") continue;
    // A ratio is a bare number: its operands are any two amounts of one kind and unit.
    if (q.relation === "ratio" || combinable(q, e)) out.push(e);
  }
  return out;
}

/**
 * The two evidence amounts a relative claim amount is worked out from, or undefined: two of the
 * same kind and unit whose difference ("$15 more than": $25 and $10), ratio ("twice as much": $20
 * and $10) or sum ("$35 in total": $10 and $25) is the claimed value. At most
 * MAX_ARITHMETIC_OPERANDS amounts are considered, so a window of thousands of numbers costs a
 * bounded number of pairs per claimed amount.
 */
export function statedByArithmetic(q: Quantity, evidence: readonly Quantity[]): readonly [Quantity, Quantity] | undefined {
  if (!q.relation) return undefined;
  const xs = operands(q, evidence);
  for (let a = 0; a < xs.length; a++) {
    for (let b = a + 1; b < xs.length; b++) {
      const x = xs[a];
      const y = xs[b];
      if (!x || !y || (q.relation === "ratio" && (x.kind !== y.kind || x.unit !== y.unit))) continue;
      const hi = Math.max(x.value, y.value);
      const lo = Math.min(x.value, y.value);
      const hit =
        q.relation === "difference" ? close(hi - lo, q.value) : q.relation === "sum" ? close(x.value + y.value, q.value) : lo > 0 && (close(hi / lo, q.value) || close(lo / hi, q.value));
      if (hit) return [x, y];
    }
  }
  return undefined;
}
