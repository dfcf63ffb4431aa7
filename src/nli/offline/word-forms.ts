import type { AnalyzedText, Token } from "../../core/text.ts";
import type { TextProfile, WordAdjacency, WordPairs } from "./profile.ts";

/** Verbs that carry little meaning of their own before a noun ("hold a certification", "make a decision"). */
const SUPPORT_VERBS: ReadonlySet<string> = new Set(["have", "hold", "get", "give", "make", "take", "do", "receive", "obtain", "carry", "offer", "provide"]);

/** Content words after a support verb searched for its noun ("holds SOC 2 Type II certification"). */
const SUPPORT_VERB_REACH = 5;

/** How many words apart a pair may be. */
const PAIR_REACH = 3;

/**
 * One number for an ordered pair of ids: a small integer (no allocation) while both ids are
 * under 2^15, a larger exact one above it (ids stay under 2^26: a text of 64 million words).
 */
function pairKey(a: number, b: number): number {
  return a < 32_768 && b < 32_768 ? a * 32_768 + b : 1_073_741_824 + a * 67_108_864 + b;
}

function idsOf(words: readonly Token[], key: (t: Token) => string): { ids: Map<string, number>; seq: number[] } {
  const ids = new Map<string, number>();
  const seq = words.map((t) => {
    const k = key(t);
    let id = ids.get(k);
    if (id === undefined) ids.set(k, (id = ids.size));
    return id;
  });
  return { ids, seq };
}

function pairsOf(seq: readonly number[]): Set<number> {
  const out = new Set<number>();
  for (let i = 0; i < seq.length; i++) {
    for (let j = i + 1; j <= i + PAIR_REACH && j < seq.length; j++) out.add(pairKey(seq[i] ?? 0, seq[j] ?? 0));
  }
  return out;
}

/**
 * The pairs of a text's content words (`words`, in text order), `senses` the paraphrase group of
 * those in one. Sense pairs are kept only for pairs with a word in a group (the others are stem
 * pairs already): a group's id follows the stem ids, so the two never meet.
 */
export function wordPairs(words: readonly Token[], senses: ReadonlyMap<Token, string>): WordPairs {
  const lemmas = idsOf(words, (t) => t.lemma);
  const stems = idsOf(words, (t) => t.stem);
  const senseIds = new Map<string, number>();
  const sensePairs = new Set<number>();
  if (senses.size > 0) {
    const seq = words.map((t, k) => {
      const group = senses.get(t);
      if (group === undefined) return stems.seq[k] ?? 0;
      let id = senseIds.get(group);
      if (id === undefined) senseIds.set(group, (id = stems.ids.size + senseIds.size));
      return id;
    });
    for (let i = 0; i < seq.length; i++) {
      const grouped = senses.has(words[i] as Token);
      for (let j = i + 1; j <= i + PAIR_REACH && j < seq.length; j++) {
        if (grouped || senses.has(words[j] as Token)) sensePairs.add(pairKey(seq[i] ?? 0, seq[j] ?? 0));
      }
    }
  }
  return { lemmaIds: lemmas.ids, stemIds: stems.ids, lemmaPairs: pairsOf(lemmas.seq), stemPairs: pairsOf(stems.seq), senseIds, sensePairs };
}

export function wordAdjacency(tokens: readonly Token[]): WordAdjacency {
  const ids = new Map<string, number>();
  const adjacent = new Set<number>();
  let previous: { token: Token; id: number } | undefined;
  for (const t of tokens) {
    if (t.type !== "word") {
      previous = undefined;
      continue;
    }
    let id = ids.get(t.lower);
    if (id === undefined) ids.set(t.lower, (id = ids.size));
    if (previous && t.start === previous.token.end + 1) adjacent.add(pairKey(previous.id, id));
    previous = { token: t, id };
  }
  return { ids, adjacent };
}

/** Longest word tried as two joined words (each split point is a lookup). */
const MAX_JOINED_CHARS = 40;

/** The text has `lower` as a word, or written as two adjacent words ("any time" for "anytime"). */
export function statesCompound(words: WordAdjacency, lower: string): boolean {
  if (words.ids.has(lower)) return true;
  if (lower.length > MAX_JOINED_CHARS) return false;
  for (let k = 1; k < lower.length; k++) {
    const a = words.ids.get(lower.slice(0, k));
    if (a === undefined) continue;
    const b = words.ids.get(lower.slice(k));
    if (b !== undefined && words.adjacent.has(pairKey(a, b))) return true;
  }
  return false;
}

/**
 * The evidence has the two claim words near each other, as lemmas, as stems, or as senses
 * (`senses`: the claim's paraphrase groups, so "pay yearly" is near in "annual payment"; in
 * either order when one of them is in a group).
 */
export function hasPair(premise: TextProfile, a: Token | undefined, b: Token | undefined, senses: ReadonlyMap<Token, string>): boolean {
  if (!a || !b) return false;
  const { lemmaIds, stemIds, lemmaPairs, stemPairs, senseIds, sensePairs } = premise.pairs;
  const la = lemmaIds.get(a.lemma);
  const lb = lemmaIds.get(b.lemma);
  if (la !== undefined && lb !== undefined && lemmaPairs.has(pairKey(la, lb))) return true;
  const sa = stemIds.get(a.stem);
  const sb = stemIds.get(b.stem);
  if (sa !== undefined && sb !== undefined && stemPairs.has(pairKey(sa, sb))) return true;
  const groupA = senses.get(a);
  const groupB = senses.get(b);
  if (groupA === undefined && groupB === undefined) return false;
  const ga = groupA === undefined ? sa : senseIds.get(groupA);
  const gb = groupB === undefined ? sb : senseIds.get(groupB);
  return ga !== undefined && gb !== undefined && (sensePairs.has(pairKey(ga, gb)) || sensePairs.has(pairKey(gb, ga)));
}

/**
 * Which claim words the evidence states in another form: another derivation of the word
 * ("certification" for "certified", "store" for "storage"), a compound written split or joined
 * ("anytime" for "at any time", and the reverse), a word or phrase of the same paraphrase group
 * ("annual" for "yearly", "Monday to Friday" for "weekdays"; `senses`, the claim's groups), or a
 * support verb before a noun the evidence states in another form, or as a verb ("holds …
 * certification" for "is … certified", "gives a refund" for "is refunded"). `sameWord` says which
 * words the evidence states as they are; `supportVerbs` are the support verbs covered so. Linear
 * in the claim's tokens.
 */
export function coveredByForm(
  premise: TextProfile,
  hypothesisDoc: AnalyzedText,
  words: readonly Token[],
  sameWord: (w: Token) => boolean,
  senses: ReadonlyMap<Token, string>,
): { readonly covered: (w: Token) => boolean; readonly supportVerbs: ReadonlySet<Token> } {
  // Two adjacent claim words the evidence writes as one ("any time" for "anytime").
  const joinedCovered = new Set<Token>();
  const toks = hypothesisDoc.tokens;
  for (let k = 0; k + 1 < toks.length; k++) {
    const a = toks[k];
    const b = toks[k + 1];
    if (a?.type === "word" && b?.type === "word" && b.start === a.end + 1 && premise.compounds.ids.has(a.lower + b.lower)) {
      joinedCovered.add(a);
      joinedCovered.add(b);
    }
  }
  const paraphrased = (w: Token): boolean => {
    const group = senses.get(w);
    return group !== undefined && premise.paraphrases.groups.has(group);
  };
  const derived = (w: Token): boolean => premise.stems.has(w.stem) || statesCompound(premise.compounds, w.lower) || joinedCovered.has(w) || paraphrased(w);
  const statedAsVerb = (w: Token): boolean => premise.verbs.has(w.lemma);
  // A support verb before a noun the evidence states as another word form ("holds …
  // certification" for "is … certified"), or as the verb of the same lemma ("gives a refund" for
  // "is refunded").
  const supportVerbs = new Set<Token>();
  words.forEach((w, k) => {
    if (!SUPPORT_VERBS.has(w.lemma) || sameWord(w)) return;
    const next = words.slice(k + 1, k + 1 + SUPPORT_VERB_REACH).find((x) => x.pos === "NOUN");
    if (next && (sameWord(next) ? statedAsVerb(next) : derived(next))) supportVerbs.add(w);
  });
  return { covered: (w) => sameWord(w) || derived(w) || supportVerbs.has(w), supportVerbs };
}
