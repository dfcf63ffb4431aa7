import type { AnalyzedText, Token } from "../../core/text.ts";
import { NEGATION_WORDS, isContentToken } from "../../core/text.ts";
import type { Quantity } from "../../core/quantities.ts";
import { extractQuantities, matchQuantity } from "../../core/quantities.ts";
import type { Lexicon } from "./lexicon.ts";

/** What the feature extractor needs to know about one text, computed once per text. */
export interface TextProfile {
  readonly words: readonly Token[];
  readonly lemmas: ReadonlySet<string>;
  readonly lowers: ReadonlySet<string>;
  /** Ordered pairs of content lemmas at most three content words apart. */
  readonly pairs: ReadonlySet<string>;
  readonly quantities: readonly Quantity[];
  /** Per sentence: content lemmas and surface forms, and the lemmas a negation covers. */
  readonly sentences: ReadonlyArray<{ lemmas: ReadonlySet<string>; lowers: ReadonlySet<string>; negated: ReadonlySet<string> }>;
  /** Content lemmas in the scope of a negation anywhere in the text. */
  readonly negated: ReadonlySet<string>;
  /** Distinct content lemmas with a vector, for soft matching. */
  readonly vocab: readonly string[];
}

/** Words after "not"/"no" that make an idiom, not a negation: "not only", "no doubt". */
const NOT_NEGATING_NEXT = new Set(["only", "just", "merely", "simply", "doubt", "wonder", "matter"]);

/** How many tokens after a negation cue count as negated ("was not *badly damaged*"). */
const NEGATION_SCOPE = 4;

/**
 * The content lemmas inside the scope of a negation: up to four tokens after each
 * cue, stopping at punctuation. Idioms ("not only … but") and an answer's leading
 * "No," (a reply, not a negated statement) are not negations.
 */
export function negatedLemmas(tokens: readonly Token[]): Set<string> {
  const out = new Set<string>();
  const firstWord = tokens.findIndex((x) => x.type === "word");
  tokens.forEach((t, i) => {
    if (!NEGATION_WORDS.has(t.lower) && !NEGATION_WORDS.has(t.lemma)) return;
    if (NOT_NEGATING_NEXT.has(tokens[i + 1]?.lower ?? "")) return;
    if (i === firstWord && t.lower === "no" && (tokens[i + 1]?.type === "punctuation" || tokens[i + 1]?.lower === "but")) return;
    for (let j = i + 1; j < Math.min(tokens.length, i + 1 + NEGATION_SCOPE); j++) {
      const u = tokens[j];
      if (!u || (u.type === "punctuation" && u.text !== "-")) break;
      if (isContentToken(u)) out.add(u.lemma);
    }
  });
  return out;
}

export function profileText(doc: AnalyzedText): TextProfile {
  const content = doc.tokens.filter(isContentToken);
  const words = content.filter((t) => t.type === "word");
  const lemmas = new Set<string>();
  const lowers = new Set<string>();
  for (const t of content) {
    lemmas.add(t.lemma);
    lowers.add(t.lower);
  }
  const pairs = new Set<string>();
  for (let i = 0; i < words.length; i++) {
    for (let j = i + 1; j < Math.min(words.length, i + 4); j++) pairs.add(`${words[i]?.lemma}|${words[j]?.lemma}`);
  }
  const sentences = doc.sentences.map((s) => {
    const toks = doc.tokens.slice(s.tokenStart, s.tokenEnd);
    const content = toks.filter(isContentToken);
    return {
      lemmas: new Set(content.map((t) => t.lemma)),
      lowers: new Set(content.map((t) => t.lower)),
      negated: negatedLemmas(toks),
    };
  });
  return {
    words,
    lemmas,
    lowers,
    pairs,
    quantities: extractQuantities(doc),
    sentences,
    negated: new Set(sentences.flatMap((s) => [...s.negated])),
    vocab: [...new Set(words.map((t) => t.lower))],
  };
}

/** Names of the features, in the order of the weight vector (after the bias). */
export const FEATURE_NAMES = [
  "coverage",
  "surface_coverage",
  "rare_coverage",
  "soft_coverage",
  "soft_min",
  "unmatched_words",
  "pair_coverage",
  "entity_missing",
  "number_missing",
  "number_contradicted",
  "negation_mismatch",
  "antonym",
  "claim_length",
  "claim_has_verb",
  "evidence_length",
  "coverage_x_claim_length",
  "soft_min_x_claim_length",
] as const;

export type FeatureName = (typeof FEATURE_NAMES)[number];

export interface FeatureVector {
  readonly values: Readonly<Record<FeatureName, number>>;
  /** Plain-language signals a user can check against the evidence. */
  readonly notes: readonly string[];
  /** The strongest contradiction signals, in [0, 1], for the neutral/contradiction split. */
  readonly contradiction: { number: number; negation: number; antonym: number };
}

const SOFT_FLOOR = 0.35;

/** Quantity notes per pair before the rest are summarised in one. */
const MAX_QUANTITY_NOTES = 5;

function isProper(t: Token, sentenceInitial: boolean): boolean {
  return t.pos === "PROPN" || (!sentenceInitial && /^[A-Z]/.test(t.text) && t.type === "word");
}

/** Computes the offline backend's features for one (premise, hypothesis) pair. */
export function extractFeatures(premise: TextProfile, hypothesis: TextProfile, hypothesisDoc: AnalyzedText, lexicon: Lexicon): FeatureVector {
  const notes: string[] = [];
  const words = hypothesis.words;
  let covered = 0;
  let surface = 0;
  let rareTotal = 0;
  let rareCovered = 0;
  let softSum = 0;
  let softMin = 1;
  let unmatched = 0;
  // A word's soft match depends only on its surface form: repeated words are looked up once.
  const softOf = new Map<string, number>();
  for (const w of words) {
    if (premise.lowers.has(w.lower)) surface++;
    const exact = premise.lemmas.has(w.lemma) || premise.lowers.has(w.lower);
    const r = lexicon.rarity(w.lower);
    rareTotal += r;
    let s = 0;
    if (exact) {
      covered++;
      rareCovered += r;
      s = 1;
    } else {
      const known = softOf.get(w.lower);
      if (known !== undefined) s = known;
      else {
        for (const p of premise.vocab) {
          const sim = lexicon.similarity(w.lower, p);
          if (sim !== undefined && sim > s) s = sim;
        }
        s = Math.max(0, (s - SOFT_FLOOR) / (1 - SOFT_FLOOR));
        softOf.set(w.lower, s);
      }
      if (s < 0.5) unmatched++;
    }
    softSum += s;
    softMin = Math.min(softMin, s);
  }
  const n = words.length;
  const unmatchedWords = words.filter((w) => !premise.lemmas.has(w.lemma) && !premise.lowers.has(w.lower));
  if (unmatchedWords.length > 0) notes.push(`not in evidence: ${unmatchedWords.slice(0, 5).map((w) => w.text).join(", ")}`);

  let pairTotal = 0;
  let pairHit = 0;
  for (let i = 0; i + 1 < words.length; i++) {
    pairTotal++;
    if (premise.pairs.has(`${words[i]?.lemma}|${words[i + 1]?.lemma}`)) pairHit++;
  }

  const sentenceStarts = new Set(hypothesisDoc.sentences.map((s) => s.tokenStart));
  const proper = hypothesisDoc.tokens.filter((t, i) => isContentToken(t) && t.type === "word" && isProper(t, sentenceStarts.has(i)));
  const missingEntities = proper.filter((t) => !premise.lowers.has(t.lower) && !premise.lemmas.has(t.lemma));
  if (missingEntities.length > 0) notes.push(`names not in evidence: ${missingEntities.slice(0, 5).map((t) => t.text).join(", ")}`);

  let numberMissing = 0;
  let numberContradicted = 0;
  // A few notes say enough; a claim made of thousands of numbers must not carry a note for each.
  let quantityNotes = 0;
  const noteQuantity = (note: string): void => {
    if (quantityNotes++ < MAX_QUANTITY_NOTES) notes.push(note);
  };
  for (const q of hypothesis.quantities) {
    const m = matchQuantity(q, premise.quantities);
    if (m.match === "contradicted") {
      numberContradicted = 1;
      noteQuantity(`"${q.text}" where the evidence says "${m.other?.text ?? ""}"`);
    } else if (m.match === "missing") {
      numberMissing = 1;
      noteQuantity(`"${q.text}" not in evidence`);
    }
  }
  const unlisted = quantityNotes - MAX_QUANTITY_NOTES;
  if (unlisted > 0) notes.push(`${unlisted} more number${unlisted === 1 ? "" : "s"} not as in evidence`);

  // Negation is compared against the evidence sentence that best matches the claim.
  let best = premise.sentences[0];
  let bestOverlap = -1;
  for (const s of premise.sentences) {
    let o = 0;
    for (const l of hypothesis.lemmas) if (s.lemmas.has(l)) o++;
    if (o > bestOverlap) {
      bestOverlap = o;
      best = s;
    }
  }
  // A word both texts share, negated in one and not the other, flips the claim.
  let negationMismatch = 0;
  if (best && bestOverlap >= 2) {
    const flipped = [...hypothesis.lemmas].find((l) => best.lemmas.has(l) && hypothesis.negated.has(l) !== best.negated.has(l));
    if (flipped !== undefined) {
      negationMismatch = 1;
      notes.push(hypothesis.negated.has(flipped) ? `claim negates "${flipped}", evidence does not` : `evidence negates "${flipped}", claim does not`);
    }
  }

  // An antonym counts where one evidence sentence states at least half of the rest of
  // the claim, holds the antonym, and lacks the word, and the claim lacks the antonym.
  // The claim's other lemmas an evidence sentence holds are counted once per sentence (a
  // sentence holding the word itself is never the one), and each distinct word is tried once,
  // so a long claim costs words + sentences × lemmas, not words × sentences × lemmas.
  let antonym = 0;
  let sharedLemmas: number[] | undefined;
  const tried = new Set<string>();
  const others = Math.max(0, hypothesis.lemmas.size - 1);
  for (const w of words) {
    const key = `${w.lemma}\u0000${w.lower}`;
    if (tried.has(key)) continue;
    tried.add(key);
    const candidates = [...new Set([...lexicon.antonyms(w.lemma), ...lexicon.antonyms(w.lower)])].filter((a) => !hypothesis.lemmas.has(a) && !hypothesis.lowers.has(a));
    if (candidates.length === 0) continue;
    sharedLemmas ??= premise.sentences.map((s) => {
      let n = 0;
      for (const l of hypothesis.lemmas) if (s.lemmas.has(l)) n++;
      return n;
    });
    const shared = sharedLemmas;
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

  return {
    values: {
      coverage: n === 0 ? 1 : covered / n,
      surface_coverage: n === 0 ? 1 : surface / n,
      rare_coverage: rareTotal === 0 ? 1 : rareCovered / rareTotal,
      soft_coverage: n === 0 ? 1 : softSum / n,
      soft_min: n === 0 ? 1 : softMin,
      unmatched_words: Math.log1p(unmatched),

      pair_coverage: pairTotal === 0 ? 1 : pairHit / pairTotal,
      entity_missing: proper.length === 0 ? 0 : missingEntities.length / proper.length,
      number_missing: numberMissing,
      number_contradicted: numberContradicted,
      negation_mismatch: negationMismatch,
      antonym,
      claim_length: Math.log1p(n),
      claim_has_verb: hypothesisDoc.tokens.some((t) => t.pos === "VERB" || t.pos === "AUX") ? 1 : 0,
      evidence_length: Math.log1p(premise.words.length),
      // Interactions let one logistic model treat short replies (where coverage is
      // nearly decisive) and long summaries (where one novel word matters) differently.
      coverage_x_claim_length: (n === 0 ? 1 : surface / n) * Math.log1p(n),
      soft_min_x_claim_length: (n === 0 ? 1 : softMin) * Math.log1p(n),
    },
    notes,
    contradiction: { number: numberContradicted, negation: negationMismatch, antonym },
  };
}
