import type { NliPair, NliResult } from "./backend.ts";
import { createByteLru } from "./byte-lru.ts";

/**
 * Judgements of (premise, hypothesis) pairs kept for reuse across measurements: semantic entropy
 * and claim-level consistency share one, so a pair judged by either costs no second call. The key
 * and the question prefix are decided here only, so the two cannot drift apart and miss each other.
 */
export interface NliCache {
  /** The judgement of this pair, marked as just used; undefined when it is not kept. */
  get(pair: NliPair): NliResult | undefined;
  /** Keeps the judgement, evicting the least recently used ones past the byte bound. */
  set(pair: NliPair, result: NliResult): void;
}

/** Default bound of a scorer's judgement cache, in estimated bytes (16 MiB). */
export const DEFAULT_NLI_CACHE_BYTES = 16 * 1024 * 1024;

/** Estimated bytes of one judgement besides its texts: three numbers, the entry and the key's overhead. */
const RESULT_BYTES = 96;

/** The cache key of a pair: its premise and hypothesis (the source a premise was cut from does not change the judgement). */
export function nliCacheKey(pair: NliPair): string {
  return `${pair.premise}\u0000${pair.hypothesis}`;
}

/**
 * A text as the model judges it in a measurement over resamples: the question first, so an
 * answer is read as an answer to it ("Paris" entails "The capital is Paris" only given the
 * question). A blank question adds nothing.
 */
export function withQuestion(question: string, text: string): string {
  const q = question.trim();
  return q === "" ? text : `${q} ${text}`;
}

/** A judgement cache bounded by the estimated bytes of its keys and results (UTF-16: 2 bytes a character). */
export function createNliCache(maxBytes: number = DEFAULT_NLI_CACHE_BYTES): NliCache {
  const lru = createByteLru<NliResult>(maxBytes);
  return {
    get: (pair) => lru.get(nliCacheKey(pair)),
    set(pair, result) {
      const key = nliCacheKey(pair);
      let chars = key.length;
      for (const note of result.notes ?? []) chars += note.length;
      lru.set(key, result, chars * 2 + RESULT_BYTES);
    },
  };
}

/**
 * The cache a measurement uses: the given one; a Map (the public options' older shape) keyed by
 * nliCacheKey; or, without one, a fresh bounded cache for this measurement alone.
 */
export function asNliCache(cache: NliCache | Map<string, NliResult> | undefined): NliCache {
  if (cache === undefined) return createNliCache();
  if (!(cache instanceof Map)) return cache;
  return {
    get: (pair) => cache.get(nliCacheKey(pair)),
    set: (pair, result) => void cache.set(nliCacheKey(pair), result),
  };
}
