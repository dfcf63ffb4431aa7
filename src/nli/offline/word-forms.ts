import type { AnalyzedText, Token } from "../../core/text.ts";
import type { TextProfile } from "./features.ts";

/** Verbs that carry little meaning of their own before a noun ("hold a certification", "make a decision"). */
const SUPPORT_VERBS: ReadonlySet<string> = new Set(["have", "hold", "get", "give", "make", "take", "do", "receive", "obtain", "carry", "offer", "provide"]);

/** Content words after a support verb searched for its noun ("holds SOC 2 Type II certification"). */
const SUPPORT_VERB_REACH = 5;

/** The evidence has the two words near each other, as lemmas or as stems. */
export function hasPair(premise: TextProfile, a: Token | undefined, b: Token | undefined): boolean {
  if (!a || !b) return false;
  if (premise.pairs.has(`${a.lemma}|${b.lemma}`)) return true;
  const stems = `${a.stem}|${b.stem}`;
  return premise.pairs.has(`~${stems}`) || premise.pairs.has(stems);
}

/**
 * Which claim words the evidence states in another form: another derivation of the word
 * ("certification" for "certified", "store" for "storage"), a compound written split or joined
 * ("anytime" for "at any time", and the reverse), or a support verb before a noun the evidence
 * states in another form ("holds … certification" for "is … certified"). `sameWord` says which
 * words the evidence states as they are. Linear in the claim's tokens.
 */
export function coveredByForm(premise: TextProfile, hypothesisDoc: AnalyzedText, words: readonly Token[], sameWord: (w: Token) => boolean): (w: Token) => boolean {
  // Two adjacent claim words the evidence writes as one ("any time" for "anytime").
  const joinedCovered = new Set<Token>();
  const toks = hypothesisDoc.tokens;
  for (let k = 0; k + 1 < toks.length; k++) {
    const a = toks[k];
    const b = toks[k + 1];
    if (a?.type === "word" && b?.type === "word" && b.start === a.end + 1 && premise.compounds.has(a.lower + b.lower)) {
      joinedCovered.add(a);
      joinedCovered.add(b);
    }
  }
  const derived = (w: Token): boolean => premise.stems.has(w.stem) || premise.compounds.has(w.lower) || joinedCovered.has(w);
  // A support verb before a noun the evidence states as another word form: "holds …
  // certification" for "is … certified".
  const supportVerbs = new Set<Token>();
  words.forEach((w, k) => {
    if (!SUPPORT_VERBS.has(w.lemma) || sameWord(w)) return;
    const next = words.slice(k + 1, k + 1 + SUPPORT_VERB_REACH).find((x) => x.pos === "NOUN");
    if (next && !sameWord(next) && derived(next)) supportVerbs.add(w);
  });
  return (w) => sameWord(w) || derived(w) || supportVerbs.has(w);
}
