import type { AnalyzedText, Token } from "../../core/text.ts";
import { NEGATION_WORDS, isContentToken } from "../../core/text.ts";
import type { Quantity } from "../../core/quantities.ts";
import { extractQuantities } from "../../core/quantities.ts";
import { mentionClauses } from "./mentions.ts";
import type { TextProfile } from "./profile.ts";
import { quantityClauses } from "./quantity-alignment.ts";
import { paraphrasesOf } from "./paraphrase.ts";
import { sentenceSubject } from "./quantity-binding.ts";
import { wordAdjacency, wordPairs } from "./word-forms.ts";

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
  const words = content.filter((t) => t.type === "word" || t.type === "unk");
  const lemmas = new Set<string>();
  const lowers = new Set<string>();
  const stems = new Set<string>();
  for (const t of content) {
    lemmas.add(t.lemma);
    lowers.add(t.lower);
    stems.add(t.stem);
  }
  const compounds = wordAdjacency(doc.tokens);
  const quantities = extractQuantities(doc);
  // Quantities and sentences are both in text order: one merged pass each.
  const otherLemmas = new Set<string>();
  for (let k = 0, qi = 0; k < content.length; k++) {
    const t = content[k];
    if (!t) break;
    while (qi < quantities.length && (quantities[qi]?.end ?? 0) <= t.start) qi++;
    const q = quantities[qi];
    if (!q || t.end <= q.start) otherLemmas.add(t.lemma);
  }
  let sq = 0;
  const paraphrases = paraphrasesOf(doc);
  const pairs = wordPairs(words, paraphrases.senses);
  const clausesOfQuantities: Array<ReadonlySet<string> | undefined> = new Array<undefined>(quantities.length).fill(undefined);
  const sentences = doc.sentences.map((s) => {
    const toks = doc.tokens.slice(s.tokenStart, s.tokenEnd);
    const content = toks.filter(isContentToken);
    const first = sq;
    const own: Quantity[] = [];
    while (sq < quantities.length && (quantities[sq]?.start ?? 0) < s.end) {
      const q = quantities[sq++];
      if (q) own.push(q);
    }
    const clauses = own.length >= 2 ? quantityClauses(toks, own) : undefined;
    clauses?.forEach((c, i) => (clausesOfQuantities[first + i] = c));
    return {
      lemmas: new Set(content.map((t) => t.lemma)),
      lowers: new Set(content.map((t) => t.lower)),
      negated: negatedLemmas(toks),
      subject: sentenceSubject(toks, own),
      quantities: own,
      ...(clauses ? { quantityClauses: clauses } : {}),
    };
  });
  return {
    words,
    lemmas,
    lowers,
    stems,
    paraphrases,
    verbs: new Set(words.filter((t) => t.pos === "VERB").map((t) => t.lemma)),
    compounds,
    pairs,
    quantities,
    otherLemmas,
    quantityClauses: clausesOfQuantities,
    sentences,
    mentionClauses: mentionClauses(doc),
    negated: new Set(sentences.flatMap((s) => [...s.negated])),
    vocab: [...new Set(words.map((t) => t.lower))],
    softMemo: new Map(),
    swapMemo: {},
  };
}
