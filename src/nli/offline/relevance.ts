/** The offline backend's context relevance: how much of a query's content a passage speaks about. */
import type { AnalyzedText, Token } from "../../core/text.ts";
import { isContentToken } from "../../core/text.ts";
import { softMatch } from "./features.ts";
import type { Lexicon } from "./lexicon.ts";
import type { TextProfile } from "./profile.ts";

/**
 * Most distinct content words of a query that are looked for in a passage (the first ones, in
 * order): a question is a sentence or two, and a longer query must not make each passage cost more.
 */
export const MAX_QUERY_TERMS = 64;

/** What a word counts for when the passage holds only a word near it in the vectors, not the word itself. */
export const SOFT_MATCH_WEIGHT = 0.8;

/** The distinct content words of a query (by lemma), at most MAX_QUERY_TERMS, in order. */
export function queryTerms(query: AnalyzedText): Token[] {
  const seen = new Set<string>();
  const out: Token[] = [];
  for (const t of query.tokens) {
    if (out.length >= MAX_QUERY_TERMS) break;
    if (!isContentToken(t) || seen.has(t.lemma)) continue;
    seen.add(t.lemma);
    out.push(t);
  }
  return out;
}

/**
 * Relevance of a passage to a query in [0, 1]: the rarity-weighted share of the query's content
 * words the passage states (the same lemma, surface form or derivational stem), a word it does not
 * state counting for its closest word in the passage through the word vectors, discounted by
 * SOFT_MATCH_WEIGHT. Rare words weigh more ("refund" over "get"). A query with no content word is
 * addressed by nothing: 0. Linear in the passage's vocabulary (at most MAX_QUERY_TERMS lookups each).
 */
export function relevanceScore(passage: TextProfile, terms: readonly Token[], lexicon: Lexicon): number {
  let total = 0;
  let hit = 0;
  for (const t of terms) {
    const weight = lexicon.rarity(t.lower);
    total += weight;
    if (passage.lemmas.has(t.lemma) || passage.lowers.has(t.lower) || passage.stems.has(t.stem)) hit += weight;
    else hit += weight * SOFT_MATCH_WEIGHT * softMatch(t.lower, passage, lexicon);
  }
  return total === 0 ? 0 : Math.min(1, Math.max(0, hit / total));
}
