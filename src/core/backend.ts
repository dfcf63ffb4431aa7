/** A premise (context evidence) and a hypothesis (a claim) to classify. */
export interface NliPair {
  readonly premise: string;
  readonly hypothesis: string;
  /**
   * Where the premise was cut from, when it is a window of a retrieved document. A backend may
   * read the premise inside its document (the offline backend reuses the document's analysis
   * instead of analysing the window again); none has to, and none may send it anywhere.
   */
  readonly source?: PremiseSource;
}

/** `document.slice(start, end)` is the premise. */
export interface PremiseSource {
  readonly document: string;
  readonly start: number;
  readonly end: number;
}

/** A query (a question, or a claim when there is none) and a passage that may address it. */
export interface RelevancePair {
  readonly query: string;
  readonly passage: string;
  /** Where the passage was cut from, as NliPair.source: a backend may read it there; none has to, and none may send it anywhere. */
  readonly source?: PremiseSource;
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

/**
 * What measures a backend's relevance, for callers to show: "offline-lexical" (the offline
 * backend's word coverage), "onnx" (a relevance cross-encoder; `model` is its directory, graph and
 * hash), "judge" (`model` is the chat model). Absent on a backend without `relevance`.
 */
export interface RelevanceScorerInfo {
  readonly name: string;
  readonly model?: string;
}

/** How one call to a backend is made: what may abort it, and where it queues. */
export interface CallOptions {
  /**
   * Aborts the call: a backend that can stops the call's work (its queued pairs are withdrawn) and
   * rejects with the signal's reason; one that cannot lets it finish. Either way nothing made up is returned.
   */
  readonly signal?: AbortSignal;
  /**
   * Where the call's pairs queue in a backend that serves several callers at once (the onnx batcher):
   * lower ranks first, calls of one rank in the order they came. A scoring worker gives every call
   * of one observation the rank of when it started the observation, so an observation started earlier
   * is finished first. Default: the order calls came.
   */
  readonly rank?: number;
}

/** A view of `backend` whose calls all carry `options` (an observation's signal and rank); the backend itself when there are none. The view does not own the backend: closing it closes nothing. */
export function scopedBackend(backend: EntailmentBackend, options: CallOptions | undefined): EntailmentBackend {
  if (!options || (options.signal === undefined && options.rank === undefined)) return backend;
  const relevance = backend.relevance?.bind(backend);
  return {
    ...backend,
    classify: (pairs) => backend.classify(pairs, options),
    ...(relevance ? { relevance: (pairs: readonly RelevancePair[]) => relevance(pairs, options) } : {}),
    close: () => Promise.resolve(),
  };
}

/** Scores batches of (premise, hypothesis) pairs. */
export interface EntailmentBackend extends BackendInfo {
  /** Answer threshold fitted for this backend's scores, used when the user sets none. */
  readonly recommendedThreshold?: number;
  /** Context and answer relevance thresholds fitted for this backend's relevance scores, used when the user sets none. */
  readonly recommendedRelevanceThresholds?: { readonly context: number; readonly answer: number };
  /** Classifies every pair; resolves to one result per pair, in order, or rejects. */
  classify(pairs: readonly NliPair[], options?: CallOptions): Promise<NliResult[]>;
  /**
   * How well each passage addresses its query (relevance, not support: a passage about the
   * question's subject that does not answer it still scores high), one score in [0, 1] per pair,
   * in order, or rejects — never a made-up number. Optional: a backend without it has no
   * context-relevance signal, and callers say so rather than guess.
   */
  relevance?(pairs: readonly RelevancePair[], options?: CallOptions): Promise<number[]>;
  /**
   * Windows of each document its relevance reads per query, when fewer than the groundedness top-k
   * should be (a backend that pays per pair: the judge reads 1); default the top-k.
   */
  readonly relevanceTopK?: number;
  /** What `relevance` runs on (see RelevanceScorerInfo). */
  readonly relevanceScorer?: RelevanceScorerInfo;
  /** Releases models, threads or connections. */
  close(): Promise<void>;
}

/**
 * One answer as a span detector reads it (a token-classification model such as LettuceDetect): the
 * answer whole, the retrieved passages in order, and the question (absent: a summarisation prompt).
 */
export interface SpanInput {
  readonly answer: string;
  readonly passages: readonly string[];
  readonly question?: string;
}

/**
 * One answer token as a span detector scored it: its characters in the answer, `answer.slice(start, end)`
 * (sub-word pieces of one word are separate tokens), and its probability of being unsupported by
 * the passages. Tokens that cover no character (special tokens) are not listed.
 */
export interface ScoredToken {
  readonly start: number;
  readonly end: number;
  readonly probability: number;
}

/** What a span detector found in one answer: every answer token it scored, in order, and what it cost. */
export interface SpanDetection {
  readonly tokens: readonly ScoredToken[];
  /** Model inputs run for this answer (one per group of passages that fits the model's length). */
  readonly runs: number;
  /** Prompt tokens cut to fit the model's maximum length (a passage longer than the length alone). */
  readonly truncatedTokens?: number;
}

/**
 * Marks the words of an answer its passages do not support (core/spans.ts turns tokens into spans).
 * Its unit is the whole answer, not a claim: it runs once per answer.
 */
export interface SpanDetector extends BackendInfo {
  /** The probability at or above which a token is unsupported, fitted for this detector, used when the user sets none. */
  readonly recommendedSpanThreshold?: number;
  /** Scores every answer's tokens; resolves to one detection per input, in order, or rejects — never a made-up probability. */
  detect(inputs: readonly SpanInput[], options?: CallOptions): Promise<SpanDetection[]>;
  /** Releases models or threads. */
  close(): Promise<void>;
}

/** Identity of a backend, without its methods, for attaching to results. */
export function backendInfo(backend: BackendInfo): BackendInfo {
  return { name: backend.name, version: backend.version, tier: backend.tier };
}
