import type { GroundednessSettings } from "../core/groundedness.ts";

/**
 * Scoring defaults. `threshold` here is only the fallback for backends that do not
 * recommend one; the offline backend ships the threshold fitted with its weights.
 */
export const DEFAULT_SETTINGS: GroundednessSettings = {
  threshold: 0.5,
  topK: 3,
  tokenBudget: 400,
};
