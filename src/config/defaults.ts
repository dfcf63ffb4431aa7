import type { GroundednessSettings } from "../core/result.ts";
import { DEFAULT_MAX_TOKEN_CHARS } from "../core/limits.ts";

/**
 * Scoring defaults. `threshold` here is only the fallback for backends that do not
 * recommend one; the offline backend ships the threshold fitted with its weights.
 */
export const DEFAULT_SETTINGS: GroundednessSettings & { readonly unstableShare: number } = {
  threshold: 0.5,
  topK: 3,
  tokenBudget: 400,
  /** A claim entailed by fewer than half of the resamples is unstable. */
  unstableShare: 0.5,
};

/**
 * Relevance thresholds for a backend that recommends none (a relevance score in [0, 1] read as a
 * probability: 0.5). Backends with a fitted relevance scorer recommend their own.
 */
export const DEFAULT_RELEVANCE_THRESHOLDS = { context: 0.5, answer: 0.5 } as const;

/**
 * The cascade's thresholds when neither the user nor a calibration sets them: the offline scores at
 * which a claim is decided without a model call (core/triage.ts). `npm run fit:cascade` found no
 * region whose decided claims are right at least 97% of the time on every dev set's held-out half,
 * so these decide nothing (core/triage.ts DECIDE_NOTHING); the cascade is off by default as well.
 */
export const DEFAULT_CASCADE_THRESHOLDS = { supportAbove: 1, unsupportBelow: 0 } as const;

/**
 * Input limits, so that no observation can stall scoring: each one applied to an
 * observation is reported by name in its result's `limits`. Sized so that ordinary RAG
 * traffic never reaches them (see docs/benchmarks.md, "Pathological inputs").
 */
export const DEFAULT_LIMITS = {
  /** ≈ 3,000 words; claims past 100 are skipped anyway. */
  maxAnswerChars: 20_000,
  /** ≈ 50,000 model tokens, all documents together. */
  maxContextChars: 200_000,
  maxDocuments: 200,
  /** Longer than any word or ordinary URL; base64 and hex blobs are longer. */
  maxTokenChars: DEFAULT_MAX_TOKEN_CHARS,
  maxClaims: 100,
  maxSamples: 20,
  /** Groundedness (≤ maxClaims × topK = 300 by default) and entropy together. */
  maxEntailmentCalls: 1000,
  /** Above the 380 calls 20 distinct samples can need. */
  entropyMaxCalls: 500,
  /** Analyses and windows kept per scorer, half each: a few hundred long documents. */
  cacheBytes: 32 * 1024 * 1024,
} as const;
