export { createScorer } from "./nli/scorer.ts";
export type { CreateScorerDeps, Scorer } from "./nli/scorer.ts";
export { splitClaims, buildWindows, createGroundednessScorer, createTextAnalyzer, extractQuantities } from "./core/index.ts";
export type { AnswerInput, AnswerResult, AnswerSegment, Claim, ClaimResult, ClaimVerdict, ContextInput, Evidence, SkippedSentence, UnscorableReason } from "./core/index.ts";
export { createBackend, createOfflineBackend } from "./nli/index.ts";
export type { BackendInfo, BackendTier, EntailmentBackend, NliPair, NliProbabilities, NliResult } from "./nli/index.ts";
export { ConfigError, resolveScoreOptions } from "./config/index.ts";
export type { ScoreOptions } from "./config/index.ts";
