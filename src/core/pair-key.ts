import type { NliPair, RelevancePair } from "./backend.ts";

/**
 * The one key format for a pair of texts, used wherever pairs are de-duplicated or cached (the
 * judgement cache, the pairs of one answer, the onnx batcher's in-flight pairs, the relevance
 * pairs of one answer). The first text's length leads, so no two different pairs share a key
 * whatever their texts hold (a separator character alone would not do: a text may contain it).
 */
export function pairKey(first: string, second: string): string {
  return `${first.length}:${first}${second}`;
}

/** The key of an NLI pair: its premise and hypothesis (the source a premise was cut from does not change the judgement). */
export function nliPairKey(pair: NliPair): string {
  return pairKey(pair.premise, pair.hypothesis);
}

/** The key of a relevance pair: its query and passage (the source does not change the score). */
export function relevancePairKey(pair: RelevancePair): string {
  return pairKey(pair.query, pair.passage);
}
