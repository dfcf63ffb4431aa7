export { backendInfo } from "./backend.ts";
export type { BackendInfo, BackendTier, EntailmentBackend, NliPair, NliProbabilities, NliResult } from "./backend.ts";
export { BACKEND_NAMES, createBackend } from "./registry.ts";
export { createOfflineBackend, loadOfflineModel } from "./offline/backend.ts";
export type { OfflineBackendOptions } from "./offline/backend.ts";
export { loadLexicon } from "./offline/lexicon.ts";
export type { Lexicon } from "./offline/lexicon.ts";
export { createScorer } from "./scorer.ts";
export type { CreateScorerDeps, Scorer } from "./scorer.ts";
