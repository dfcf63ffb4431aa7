export { createResolvedScorer } from "./scorer.ts";
export type { Observation, ResolvedScorerDeps, Evaluation, Scorer } from "./scorer.ts";
