import type { Quantity } from "../../core/quantities.ts";
import { sameKindAs } from "../../core/quantity-match.ts";
import type { Token } from "../../core/text.ts";
import { isContentToken } from "../../core/text.ts";
import { isClauseBoundary, isVerb } from "./clauses.ts";
import type { TextProfile } from "./profile.ts";
import type { QuantityReading } from "./quantity-binding.ts";
import { offSubjectQuantities } from "./quantity-binding.ts";

/**
 * For a sentence holding two or more quantities: each quantity's clause, as the content lemmas
 * outside every quantity. Clauses end at a comma, semicolon, colon or a coordinating word; a
 * clause with no content word of its own ("between 2019 *and* 2021") runs on into the next,
 * and a last one without any joins the one before, so a bare list of numbers stays one clause.
 * A clause with no verb is elliptical ("… 30 days on the Starter plan *and 90 days on the Team
 * plan*"): it also holds the words the sentence's first clause has before its first quantity
 * ("logs", "kept"). Returns one set per quantity, in order (quantities that share a clause share
 * its set).
 */
export function quantityClauses(tokens: readonly Token[], quantities: readonly Quantity[]): ReadonlyArray<ReadonlySet<string>> {
  interface Clause {
    lemmas: Set<string>;
    count: number;
    verb: boolean;
  }
  const clauses: Clause[] = [];
  let current: Clause = { lemmas: new Set(), count: 0, verb: false };
  const lead = new Set<string>();
  let qi = 0;
  for (const t of tokens) {
    if (isClauseBoundary(t) && current.lemmas.size > 0) {
      clauses.push(current);
      current = { lemmas: new Set(), count: 0, verb: false };
      continue;
    }
    while (qi < quantities.length && (quantities[qi]?.end ?? 0) <= t.start) {
      qi++;
      current.count++;
    }
    if (isVerb(t)) current.verb = true;
    const q = quantities[qi];
    const inside = q !== undefined && t.start >= q.start && t.end <= q.end;
    if (inside || !isContentToken(t)) continue;
    current.lemmas.add(t.lemma);
    if (qi === 0 && clauses.length === 0) lead.add(t.lemma);
  }
  current.count += quantities.length - qi;
  const last = clauses[clauses.length - 1];
  if (current.lemmas.size === 0 && last) last.count += current.count;
  else clauses.push(current);
  const out: Array<ReadonlySet<string>> = [];
  clauses.forEach((c, k) => {
    if (k > 0 && !c.verb) for (const l of lead) c.lemmas.add(l);
    for (let n = 0; n < c.count; n++) out.push(c.lemmas);
  });
  return out;
}

function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let n = 0;
  for (const l of a) if (b.has(l)) n++;
  return n;
}

/**
 * The evidence's quantities in the part of the evidence a claim's quantity is about, and the
 * rest. A sentence is aligned when it shares at least half as many of the claim's content words
 * outside its quantities as the best sentence does (at least one); when none shares any (a
 * claim that is all numbers), every sentence is. Inside an aligned sentence holding several
 * quantities of the claimed one's kind, only those in the clauses that share most of the words
 * around the claimed quantity count ("30 days on the Starter plan and 90 days on the Team plan"
 * states 30, not 90, for the Starter plan); the others are unrelated.
 *
 * `offSubject` holds the quantities of sentences about another thing than the claim (see
 * `offSubjectQuantities`): they may state the claimed value but never contradict it.
 *
 * Returns a reader per claimed quantity (by its position in `hypothesis.quantities`); the
 * sentences' alignment is computed once, so a claim of many numbers costs numbers × quantities
 * of the aligned sentences, not numbers × sentences × words.
 */
export function quantityAligner(premise: TextProfile, hypothesis: TextProfile): (index: number) => QuantityReading {
  if (hypothesis.quantities.length === 0) return () => ({ aligned: [], unrelated: [], offSubject: EMPTY_QUANTITIES });
  const shared = premise.sentences.map((s) => overlap(hypothesis.otherLemmas, s.lemmas));
  const best = shared.reduce((a, b) => Math.max(a, b), 0);
  const alignedSentences = premise.sentences.filter((_, k) => best === 0 || 2 * (shared[k] ?? 0) >= best);
  const unrelatedBase = best === 0 ? [] : premise.sentences.filter((_, k) => 2 * (shared[k] ?? 0) < best).flatMap((s) => s.quantities);
  const offSubject = offSubjectQuantities(premise, hypothesis);
  const plain = alignedSentences.filter((s) => !s.quantityClauses).flatMap((s) => s.quantities);
  const split = alignedSentences.filter((s) => s.quantityClauses);
  return (index) => {
    const q = hypothesis.quantities[index];
    if (!q) return { aligned: [], unrelated: [], offSubject };
    if (split.length === 0) return { aligned: plain, unrelated: unrelatedBase, offSubject };
    const around = hypothesis.quantityClauses[index] ?? hypothesis.otherLemmas;
    const aligned = [...plain];
    const unrelated = [...unrelatedBase];
    for (const s of split) {
      const clauses = s.quantityClauses ?? [];
      const near = s.quantities.map((e, i) => (sameKindAs(q, e) ? overlap(around, clauses[i] ?? EMPTY) : -1));
      const top = near.reduce((a, b) => Math.max(a, b), 0);
      s.quantities.forEach((e, i) => ((near[i] ?? -1) < 0 || top === 0 || near[i] === top ? aligned : unrelated).push(e));
    }
    return { aligned, unrelated, offSubject };
  };
}

const EMPTY: ReadonlySet<string> = new Set();
const EMPTY_QUANTITIES: ReadonlySet<Quantity> = new Set();
