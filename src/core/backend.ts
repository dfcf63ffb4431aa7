/** A premise (context evidence) and a hypothesis (a claim) to classify. */
export interface NliPair {
  readonly premise: string;
  readonly hypothesis: string;
}

/** Class probabilities for one pair; they sum to 1. */
export interface NliProbabilities {
  readonly entailment: number;
  readonly neutral: number;
  readonly contradiction: number;
}

/** One classified pair, with the backend's reasons when it can give them. */
export interface NliResult extends NliProbabilities {
  /** Human-readable signals behind the probabilities (e.g. "number 45 vs 30 in evidence"). */
  readonly notes?: readonly string[];
  /** Tokens cut from the pair to fit the model's maximum length. */
  readonly truncatedTokens?: number;
}

/**
 * "production": a trained NLI model or judge, fit for paging and release decisions.
 * "triage": a fast heuristic scorer; useful for trends, not for decisions alone.
 */
export type BackendTier = "production" | "triage";

/** Which backend produced a result. Every score carries one. */
export interface BackendInfo {
  readonly name: string;
  readonly version: string;
  readonly tier: BackendTier;
}

/** Scores batches of (premise, hypothesis) pairs. */
export interface EntailmentBackend extends BackendInfo {
  /** Answer threshold fitted for this backend's scores, used when the user sets none. */
  readonly recommendedThreshold?: number;
  /** Classifies every pair; resolves to one result per pair, in order, or rejects. */
  classify(pairs: readonly NliPair[]): Promise<NliResult[]>;
  /** Releases models, threads or connections. */
  close(): Promise<void>;
}

/** Identity of a backend, without its methods, for attaching to results. */
export function backendInfo(backend: BackendInfo): BackendInfo {
  return { name: backend.name, version: backend.version, tier: backend.tier };
}
