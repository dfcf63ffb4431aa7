import type { FeatureName, FeatureVector } from "./features.ts";
import { FEATURE_NAMES } from "./features.ts";

/** A fitted logistic model over standardised features, as written by scripts/fit-offline.ts. */
export interface OfflineModel {
  readonly version: string;
  readonly features: readonly FeatureName[];
  readonly mean: readonly number[];
  readonly scale: readonly number[];
  readonly weights: readonly number[];
  readonly bias: number;
  /**
   * Smallest and largest value of each feature in the fit data. Values outside are clipped
   * to them, so a claim far longer than any the model was fit on (1 MB of one repeated word)
   * is not extrapolated to a confident score.
   */
  readonly lower: readonly number[];
  readonly upper: readonly number[];
  /** Answer-score threshold chosen on the fit data (max balanced accuracy). */
  readonly threshold: number;
}

/** Checks a parsed weights file against the feature list this code computes. */
export function parseOfflineModel(json: unknown, source: string): OfflineModel {
  const m = json as Partial<OfflineModel> | null;
  const fail = (what: string): never => {
    throw new Error(`offline backend: ${source}: ${what}; refit with \`npm run fit:offline\``);
  };
  if (!m || typeof m !== "object") return fail("not a JSON object");
  if (typeof m.version !== "string") return fail("missing version");
  if (!Array.isArray(m.features) || m.features.join() !== FEATURE_NAMES.join()) {
    return fail(`features ${JSON.stringify(m.features)} differ from the extractor's ${JSON.stringify(FEATURE_NAMES)}`);
  }
  for (const key of ["mean", "scale", "weights", "lower", "upper"] as const) {
    const v = m[key];
    if (!Array.isArray(v) || v.length !== FEATURE_NAMES.length || v.some((x) => typeof x !== "number" || !Number.isFinite(x))) {
      fail(`${key} must hold ${FEATURE_NAMES.length} finite numbers`);
    }
  }
  if (typeof m.bias !== "number" || typeof m.threshold !== "number") return fail("bias and threshold must be numbers");
  return m as OfflineModel;
}

/** Probability that the premise supports the hypothesis. */
export function predict(model: OfflineModel, values: Readonly<Record<FeatureName, number>>): number {
  let z = model.bias;
  model.features.forEach((name, i) => {
    const v = Math.min(model.upper[i] ?? Infinity, Math.max(model.lower[i] ?? -Infinity, values[name]));
    z += (model.weights[i] ?? 0) * ((v - (model.mean[i] ?? 0)) / (model.scale[i] ?? 1));
  });
  return 1 / (1 + Math.exp(-z));
}

/**
 * Contradiction signals (a number the evidence states differently, a negation flip,
 * an antonym) take probability from entailment and give it to contradiction: a claim
 * that matches the evidence word for word except for one flipped fact is the classic
 * contradiction. These strengths are set by hand, not fitted: the permissive dev sets
 * label "not supported" without separating contradiction from missing evidence.
 */
export const CONTRADICTION_STRENGTH = { number: 0.85, negation: 0.6, antonym: 0.6 } as const;

/**
 * A claim stating a number, amount, date or time that the evidence never states cannot be
 * entailed by it, however well its words match ("opens at 11 am" against "opens at 9 am" is
 * caught as a contradiction; "14085 73274" against a text with no such number is not caught
 * at all by word overlap). The match probability keeps 1 − this × the share of such numbers.
 * Set by hand, like the contradiction strengths, and seen by the fit.
 */
export const MISSING_NUMBER_STRENGTH = 0.8;

/**
 * A claim that says of one named thing what the evidence says of another of its kind ("the Basic
 * plan includes phone support" where the evidence says so of the Premium plan) is not supported,
 * however fully its words match: the match probability keeps 1 − this when `subjectSwap` is set.
 * Set by hand, like the contradiction strengths; not seen by the fit (it is not a feature).
 */
export const SUBJECT_SWAP_STRENGTH = 0.6;

/** Combined strength in [0, 1) of the pair's contradiction signals. */
export function contradictionStrength(signals: FeatureVector["contradiction"]): number {
  return (
    1 -
    (1 - CONTRADICTION_STRENGTH.number * signals.number) *
      (1 - CONTRADICTION_STRENGTH.negation * signals.negation) *
      (1 - CONTRADICTION_STRENGTH.antonym * signals.antonym)
  );
}

/**
 * Turns the logistic model's match probability into entailment and contradiction; numbers
 * the evidence lacks lower entailment (see MISSING_NUMBER_STRENGTH), and so does a swapped subject
 * (see SUBJECT_SWAP_STRENGTH).
 * Contradiction needs the claim to be about what the evidence says, so the signal is
 * weighted by how much of the claim the evidence states word for word (aboutness): a window
 * about another subject with another number is not a contradiction.
 */
export function combine(matched: number, features: Pick<FeatureVector, "contradiction" | "missingNumbers" | "aboutness" | "subjectSwap">): { entailment: number; contradiction: number } {
  const strength = contradictionStrength(features.contradiction);
  const kept = (1 - strength) * (1 - MISSING_NUMBER_STRENGTH * features.missingNumbers) * (1 - SUBJECT_SWAP_STRENGTH * features.subjectSwap);
  return { entailment: matched * kept, contradiction: strength * features.aboutness };
}
