import type { AnalyzedText, Token } from "../../core/text.ts";
import { isContentToken } from "../../core/text.ts";
import { isQuantityWord } from "../../core/quantities.ts";
import type { Lexicon } from "./lexicon.ts";
import type { TextProfile } from "./profile.ts";
import { quantityAligner } from "./quantity-alignment.ts";
import { deniedPossibility, opposedIn, paraphraseOverlap } from "./paraphrase.ts";
import { matchBoundQuantity } from "./quantity-binding.ts";
import { subjectSwap } from "./subject-swap.ts";
import { coveredByForm, hasPair } from "./word-forms.ts";

/** Most words whose soft match against one text is remembered. */
const SOFT_MEMO_SIZE = 2048;

/** Names of the features, in the order of the weight vector (after the bias). */
export const FEATURE_NAMES = [
  "coverage",
  "surface_coverage",
  "rare_coverage",
  "soft_min",
  "unmatched_words",
  "pair_coverage",
  "entity_missing",
  "number_contradicted",
  "negation_mismatch",
  "claim_length",
  "evidence_length",
  "coverage_x_claim_length",
] as const;

export type FeatureName = (typeof FEATURE_NAMES)[number];

export interface FeatureVector {
  readonly values: Readonly<Record<FeatureName, number>>;
  /** Plain-language signals a user can check against the evidence. */
  readonly notes: readonly string[];
  /** The strongest contradiction signals, in [0, 1], for the neutral/contradiction split. */
  readonly contradiction: { number: number; negation: number; antonym: number };
  /** Share of the claim's numbers (ordinals aside) that the evidence neither states nor contradicts. */
  readonly missingNumbers: number;
  /**
   * Share of the claim's words the evidence states (lemma or surface form), in [0, 1]: whether
   * the evidence is about what the claim is about. A contradiction signal counts in proportion:
   * "$10" for the basic plan does not contradict "$30" for the premium plan.
   */
  readonly aboutness: number;
  /** 1 when the claim says of one named thing what the evidence says of another of its kind (see `subjectSwap`), else 0. */
  readonly subjectSwap: number;
}

const SOFT_FLOOR = 0.35;

/** Quantity notes per pair before the rest are summarised in one. */
const MAX_QUANTITY_NOTES = 5;

/**
 * A name: capitalised inside a sentence, or tagged a proper noun. wink-nlp tags every
 * capitalised word that starts a sentence as a proper noun, so there it counts as a name only
 * when neither its form nor its lemma is a common word ("Jones", "Halvorsen"; not "Members").
 */
function isProper(t: Token, sentenceInitial: boolean, lexicon: Lexicon): boolean {
  if (sentenceInitial) return t.pos === "PROPN" && !lexicon.isCommon(t.lower) && !lexicon.isCommon(t.lemma);
  return t.pos === "PROPN" || (/^[A-Z]/.test(t.text) && t.type === "word");
}

/**
 * How close a word (its lowercased form) comes to any word of the premise through the word vectors,
 * in [0, 1]: the best cosine similarity, rescaled from SOFT_FLOOR. A word's soft match depends only
 * on its surface form and the premise, so it is looked up once per premise (`softMemo`, bounded).
 * Linear in the premise's vocabulary.
 */
export function softMatch(lower: string, premise: TextProfile, lexicon: Lexicon): number {
  const known = premise.softMemo.get(lower);
  if (known !== undefined) return known;
  let s = 0;
  for (const p of premise.vocab) {
    const sim = lexicon.similarity(lower, p);
    if (sim !== undefined && sim > s) s = sim;
  }
  s = Math.max(0, (s - SOFT_FLOOR) / (1 - SOFT_FLOOR));
  if (premise.softMemo.size >= SOFT_MEMO_SIZE) premise.softMemo.clear();
  premise.softMemo.set(lower, s);
  return s;
}

/** Computes the offline backend's features for one (premise, hypothesis) pair. */
export function extractFeatures(premise: TextProfile, hypothesis: TextProfile, hypothesisDoc: AnalyzedText, lexicon: Lexicon): FeatureVector {
  const notes: string[] = [];
  const words = hypothesis.words;
  const senses = hypothesis.paraphrases.senses;
  // A word of a paraphrase group the evidence states counts as stated as it is: the groups are
  // written out, not guessed, so "annual" is "yearly" as surely as "yearly" is.
  const paraphrased = (w: Token): boolean => {
    const group = senses.get(w);
    return group !== undefined && premise.paraphrases.groups.has(group);
  };
  let covered = 0;
  let surface = 0;
  let rareTotal = 0;
  let rareCovered = 0;
  let softMin = 1;
  let unmatched = 0;
  let numberContradicted = 0;
  // A few notes say enough; a claim made of thousands of numbers must not carry a note for each.
  let quantityNotes = 0;
  const noteQuantity = (note: string): void => {
    if (quantityNotes++ < MAX_QUANTITY_NOTES) notes.push(note);
  };
  // Claim numbers the evidence states (in any form: "thirty-five" for "35") count as covered words.
  const matchedSpans: Array<{ start: number; end: number }> = [];
  let checkedQuantities = 0;
  let missingQuantities = 0;
  const alignedFor = quantityAligner(premise, hypothesis);
  // A number that starts a paraphrase the evidence states ("24 hours a day" for "around the clock") is stated by it.
  const paraphraseStarts = new Set<number>();
  for (const t of senses.keys()) if (paraphrased(t)) paraphraseStarts.add(t.start);
  hypothesis.quantities.forEach((q, index) => {
    const found = matchBoundQuantity(q, alignedFor(index));
    const m = found.match === "missing" && paraphraseStarts.has(q.start) ? { ...found, match: "matched" as const } : found;
    // An ordinal is as often a manner of speaking ("for the first time") as a fact: it is noted
    // when missing, but does not count towards the share of numbers the evidence lacks.
    if (q.kind !== "ordinal") checkedQuantities++;
    if (m.match === "matched") matchedSpans.push(q);
    else if (m.match === "contradicted") {
      numberContradicted = 1;
      noteQuantity(`"${q.text}" where the evidence says "${m.other?.text ?? ""}"`);
    } else if (m.match === "missing") {
      if (q.kind !== "ordinal") missingQuantities++;
      noteQuantity(m.elsewhere ? `"${q.text}" not in evidence (only "${m.elsewhere.text}", in a sentence about something else)` : `"${q.text}" not in evidence`);
    }
  });
  const unlisted = quantityNotes - MAX_QUANTITY_NOTES;
  if (unlisted > 0) notes.push(`${unlisted} more number${unlisted === 1 ? "" : "s"} not as in evidence`);
  // Number words inside a matched quantity, and inside any quantity (both lists are in text order: one merged pass each).
  const numberWordsIn = (spans: ReadonlyArray<{ start: number; end: number }>, units: boolean): Set<Token> => {
    const inside = new Set<Token>();
    for (let k = 0, qi = 0; k < words.length && qi < spans.length; ) {
      const w = words[k];
      const q = spans[qi];
      if (!w || !q) break;
      if (w.start >= q.end) qi++;
      else {
        if (w.start >= q.start && w.end <= q.end && isQuantityWord(w, units)) inside.add(w);
        k++;
      }
    }
    return inside;
  };
  // A matched quantity's unit of time is stated too: "within a week" by "within 7 days".
  const numberCovered = numberWordsIn(matchedSpans, true);
  // Aboutness leaves out number words ("billion" in "$1.6 billion"): the numbers are what is compared.
  const quantityWords = numberWordsIn(hypothesis.quantities, false);
  let aboutCovered = 0;

  // Stated by the evidence: the same lemma or form, a number it states, or another form of the word.
  const sameWord = (w: Token): boolean => premise.lemmas.has(w.lemma) || premise.lowers.has(w.lower) || numberCovered.has(w);
  const { covered: isCovered, supportVerbs } = coveredByForm(premise, hypothesisDoc, words, sameWord, senses);

  for (const w of words) {
    // A support verb before a noun the evidence states ("gives a refund" for "refunded") says nothing of its own to match.
    if (premise.lowers.has(w.lower) || numberCovered.has(w) || paraphrased(w) || supportVerbs.has(w)) surface++;
    const exact = isCovered(w);
    const r = lexicon.rarity(w.lower);
    rareTotal += r;
    let s = 0;
    if (exact && !quantityWords.has(w)) aboutCovered++;
    if (exact) {
      covered++;
      rareCovered += r;
      s = 1;
    } else {
      s = softMatch(w.lower, premise, lexicon);
      if (s < 0.5) unmatched++;
    }
    softMin = Math.min(softMin, s);
  }
  const n = words.length;
  const unmatchedWords = words.filter((w) => !isCovered(w));
  if (unmatchedWords.length > 0) notes.push(`not in evidence: ${unmatchedWords.slice(0, 5).map((w) => w.text).join(", ")}`);

  let pairTotal = 0;
  let pairHit = 0;
  for (let i = 0; i + 1 < words.length; i++) {
    pairTotal++;
    if (hasPair(premise, words[i], words[i + 1], senses)) pairHit++;
  }

  // The first word of each sentence, past opening quotes and list marks.
  const sentenceStarts = new Set<number>();
  for (const s of hypothesisDoc.sentences) {
    let k = s.tokenStart;
    while (k < s.tokenEnd && hypothesisDoc.tokens[k]?.type === "punctuation") k++;
    sentenceStarts.add(k);
  }
  const proper = hypothesisDoc.tokens.filter((t, i) => isContentToken(t) && t.type === "word" && isProper(t, sentenceStarts.has(i), lexicon));
  const missingEntities = proper.filter((t) => !premise.lowers.has(t.lower) && !premise.lemmas.has(t.lemma) && !paraphrased(t));
  if (missingEntities.length > 0) notes.push(`names not in evidence: ${missingEntities.slice(0, 5).map((t) => t.text).join(", ")}`);

  // Negation is compared against the evidence sentence that best matches the claim (its words, or their paraphrases).
  let best = premise.sentences[0];
  let bestOverlap = -1;
  const paraphrasedIn = senses.size === 0 ? undefined : paraphraseOverlap(hypothesis.paraphrases);
  for (const [si, s] of premise.sentences.entries()) {
    const groups = premise.paraphrases.sentenceGroups[si];
    let o = groups && paraphrasedIn ? paraphrasedIn(groups, s.lemmas) : 0;
    for (const l of hypothesis.lemmas) if (s.lemmas.has(l)) o++;
    if (o > bestOverlap) {
      bestOverlap = o;
      best = s;
    }
  }
  // A word both texts share, negated in one and not the other, flips the claim, when the other
  // states it with no negation at all: "damage is not covered" and "does not cover damage" scope
  // "damage" differently but say the same.
  let negationMismatch = 0;
  if (best && bestOverlap >= 2) {
    const flipped = [...hypothesis.lemmas].find(
      (l) => best.lemmas.has(l) && (hypothesis.negated.has(l) ? !best.negated.has(l) && best.negated.size === 0 : best.negated.has(l) && hypothesis.negated.size === 0),
    );
    if (flipped !== undefined) {
      negationMismatch = 1;
      notes.push(hypothesis.negated.has(flipped) ? `claim negates "${flipped}", evidence does not` : `evidence negates "${flipped}", claim does not`);
    }
    // "You can pay cash on delivery" against "cash on delivery is not available".
    const denied = flipped === undefined && hypothesis.negated.size === 0 ? deniedPossibility(hypothesisDoc.tokens, hypothesis.lemmas, best.negated) : undefined;
    if (denied !== undefined) {
      negationMismatch = 1;
      notes.push(`evidence says it is not ${denied}, claim says it can be done`);
    }
  }

  // An antonym counts where one evidence sentence states at least half of the rest of
  // the claim, holds the antonym, and lacks the word, and the claim lacks the antonym.
  // The claim's other lemmas an evidence sentence holds are counted once per sentence (a
  // sentence holding the word itself is never the one), and each distinct word is tried once,
  // so a long claim costs words + sentences × lemmas, not words × sentences × lemmas.
  let antonym = 0;
  let sharedLemmas: number[] | undefined;
  const sharedBySentence = (): number[] =>
    (sharedLemmas ??= premise.sentences.map((s) => {
      let n = 0;
      for (const l of hypothesis.lemmas) if (s.lemmas.has(l)) n++;
      return n;
    }));
  const tried = new Set<string>();
  const others = Math.max(0, hypothesis.lemmas.size - 1);
  for (const w of words) {
    const key = `${w.lemma}\u0000${w.lower}`;
    if (tried.has(key)) continue;
    tried.add(key);
    const candidates = [...new Set([...lexicon.antonyms(w.lemma), ...lexicon.antonyms(w.lower)])].filter((a) => !hypothesis.lemmas.has(a) && !hypothesis.lowers.has(a));
    if (candidates.length === 0) continue;
    const shared = sharedBySentence();
    const sentence = premise.sentences.find((s, si) => {
      if (s.lemmas.has(w.lemma) || s.lowers.has(w.lower)) return false;
      return (shared[si] ?? 0) >= Math.max(1, others / 2) && candidates.some((a) => s.lemmas.has(a) || s.lowers.has(a));
    });
    if (sentence) {
      const hit = [...candidates].find((a) => sentence.lemmas.has(a) || sentence.lowers.has(a)) ?? "";
      antonym = 1;
      notes.push(`"${w.text}" is an antonym of "${hit}" in evidence`);
      break;
    }
  }
  // A paraphrase group's opposite ("weekends" for "Monday to Friday", "monthly" for "annual") is an antonym too.
  if (antonym === 0) {
    const opposition = opposedIn(hypothesis.paraphrases, premise.paraphrases, (si) => (sharedBySentence()[si] ?? 0) >= Math.max(1, others / 2));
    if (opposition) {
      antonym = 1;
      notes.push(`"${opposition.claim}" where the evidence says "${opposition.evidence}"`);
    }
  }

  const swap = subjectSwap(premise.mentionClauses, hypothesis.mentionClauses, lexicon, premise.swapMemo);
  if (swap !== undefined) notes.push(swap);

  // A claim with no words is as covered as its numbers are; one with neither has nothing the
  // evidence could support (it used to count as fully covered, and scored ~0.9).
  const quantityCount = hypothesis.quantities.length;
  const empty = quantityCount === 0 ? 0 : matchedSpans.length / quantityCount;
  if (n === 0 && quantityCount === 0) notes.push("no words or numbers to check");

  return {
    values: {
      coverage: n === 0 ? empty : covered / n,
      surface_coverage: n === 0 ? empty : surface / n,
      rare_coverage: rareTotal === 0 ? empty : rareCovered / rareTotal,
      soft_min: n === 0 ? empty : softMin,
      unmatched_words: Math.log1p(unmatched),

      pair_coverage: n === 0 ? empty : pairTotal === 0 ? 1 : pairHit / pairTotal,
      entity_missing: proper.length === 0 ? 0 : missingEntities.length / proper.length,
      number_contradicted: numberContradicted,
      negation_mismatch: negationMismatch,
      claim_length: Math.log1p(n),
      evidence_length: Math.log1p(premise.words.length),
      // Interactions let one logistic model treat short replies (where coverage is
      // nearly decisive) and long summaries (where one novel word matters) differently.
      coverage_x_claim_length: (n === 0 ? empty : surface / n) * Math.log1p(n),
    },
    notes,
    contradiction: { number: numberContradicted, negation: negationMismatch, antonym },
    missingNumbers: checkedQuantities === 0 ? 0 : missingQuantities / checkedQuantities,
    aboutness: n - quantityWords.size === 0 ? empty : aboutCovered / (n - quantityWords.size),
    subjectSwap: swap === undefined ? 0 : 1,
  };
}
