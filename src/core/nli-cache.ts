import type { NliPair, NliResult } from "./backend.ts";
import { createByteLru } from "./byte-lru.ts";
import { nliPairKey } from "./pair-key.ts";

/**
 * Judgements of (premise, hypothesis) pairs kept for reuse across measurements and observations:
 * groundedness, semantic entropy and claim-level consistency share one per scorer, so a pair judged
 * by any of them costs no second call. A judgement is kept under the version of the backend that
 * made it (`backend.version`: for onnx the model directory, graph and graph hash), so a new model
 * or graph misses. The key (core/pair-key.ts, with the version) and the question prefix are decided in one place each, so the users cannot
 * drift apart and miss each other.
 */
export interface NliCache {
  /** The judgement of this pair by the backend of this version, marked as just used; undefined when it is not kept. */
  get(pair: NliPair, version: string): NliResult | undefined;
  /** Keeps the judgement made by the backend of this version, evicting the least recently used ones past the byte bound. */
  set(pair: NliPair, version: string, result: NliResult): void;
}

/** Default bound of a scorer's judgement cache, in estimated bytes (16 MiB). */
export const DEFAULT_NLI_CACHE_BYTES = 16 * 1024 * 1024;

/** Estimated bytes of one judgement besides its texts: three numbers, the entry and the key's overhead. */
const RESULT_BYTES = 96;

/** The key of a pair judged by the backend of this version (the version's length leads, as the premise's does). */
function versionedKey(pair: NliPair, version: string): string {
  return `${version.length}:${version}${nliPairKey(pair)}`;
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
    get: (pair, version) => lru.get(versionedKey(pair, version)),
    set(pair, version, result) {
      const key = versionedKey(pair, version);
      let chars = key.length;
      for (const note of result.notes ?? []) chars += note.length;
      lru.set(key, result, chars * 2 + RESULT_BYTES);
    },
  };
}

/**
 * The cache a measurement uses: the given one; a Map (the public options' older shape) keyed by
 * nliPairKey (core/pair-key.ts), for one backend (its caller's: the version is not in its keys); or, without one, a
 * fresh bounded cache for this measurement alone.
 */
export function asNliCache(cache: NliCache | Map<string, NliResult> | undefined): NliCache {
  if (cache === undefined) return createNliCache();
  if (!(cache instanceof Map)) return cache;
  return {
    get: (pair) => cache.get(nliPairKey(pair)),
    set: (pair, _version, result) => void cache.set(nliPairKey(pair), result),
  };
}
