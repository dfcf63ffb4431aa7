export { createScorer } from "./scorer.ts";
export type { CreateScorerDeps, Observation, ScoredAnswer, Scorer } from "./scorer.ts";
