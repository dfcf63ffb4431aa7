export { createResolvedScorer } from "./scorer.ts";
export type { Observation, ResolvedScorerDeps, ScoredAnswer, Scorer } from "./scorer.ts";
