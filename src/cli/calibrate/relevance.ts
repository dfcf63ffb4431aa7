import type { RelevanceFit, RelevanceFitRow } from "../../core/relevance-fit.ts";
import { fitRelevanceThreshold, relevanceFitExamples } from "../../core/relevance-fit.ts";
import { createTextAnalyzer } from "../../core/text.ts";
import type { Scorer } from "../../scoring/scorer.ts";

/**
 * calibrate's relevance part: fits the context and answer relevance thresholds on the user's
 * labelled set through core/relevance-fit.ts (the construction and the fitting function the cause
 * benchmark fitted the backend's defaults with), and says what it fitted or why it kept the default.
 */

/** The seed of the swap: the same set, the same pairs, the same thresholds. */
export const CALIBRATE_SWAP_SEED = 27;

/** One threshold as calibration.json records it: the value (null when not fitted) with its evidence. */
export type RelevanceRecord =
  | { readonly threshold: number; readonly balancedAccuracy: number; readonly tpr: number; readonly fpr: number; readonly auroc: { readonly value: number; readonly low: number; readonly high: number }; readonly relevant: number; readonly irrelevant: number }
  | { readonly threshold: null; readonly reason: string; readonly relevant: number; readonly irrelevant: number };

/** calibration.json's "relevance". */
export interface RelevanceCalibration {
  readonly context: RelevanceRecord & { readonly swappedRows: number; readonly labelledCauses: number };
  readonly answer: RelevanceRecord & { readonly pairs: number };
  /** How the examples were built, in words. */
  readonly method: string;
  readonly seed: number;
}

const record = (fit: RelevanceFit): RelevanceRecord =>
  fit.fitted
    ? { threshold: Number(fit.threshold.toFixed(6)), balancedAccuracy: fit.balancedAccuracy, tpr: fit.tpr, fpr: fit.fpr, auroc: { value: fit.auroc.auroc, low: fit.auroc.low, high: fit.auroc.high }, relevant: fit.relevant, irrelevant: fit.irrelevant }
    : { threshold: null, reason: fit.reason, relevant: fit.relevant, irrelevant: fit.irrelevant };

/**
 * Fits both thresholds on the rows with the scorer's backend and window settings. Undefined when
 * the backend has no relevance scorer or relevance is off (nothing to fit: the file records none).
 */
export async function calibrateRelevance(rows: readonly RelevanceFitRow[], scorer: Pick<Scorer, "entailment" | "relevanceThresholds">, windows: { readonly topK: number; readonly tokenBudget: number }): Promise<RelevanceCalibration | undefined> {
  const backend = scorer.entailment;
  if (!backend.relevance || !scorer.relevanceThresholds) return undefined;
  // The windows per document the scorer's relevance reads (fewer for a backend that pays per pair).
  const deps = { backend, analyzer: createTextAnalyzer(), topK: Math.min(windows.topK, backend.relevanceTopK ?? windows.topK), tokenBudget: windows.tokenBudget };
  const examples = await relevanceFitExamples(rows, deps, CALIBRATE_SWAP_SEED);
  return {
    context: { ...record(fitRelevanceThreshold(examples.context)), swappedRows: examples.swappedRows, labelledCauses: examples.labelledCauses },
    answer: { ...record(fitRelevanceThreshold(examples.answer)), pairs: examples.answerPairs },
    method: "context: each row's own context (relevant) vs another row's context swapped in (not), rows with a cause label as labelled; answer: each row's answer vs another question's answer, to its question",
    seed: CALIBRATE_SWAP_SEED,
  };
}

/** calibrate's lines about the relevance thresholds: each fitted one with its evidence, or why the backend's stays in force. */
export function relevanceLines(r: RelevanceCalibration | undefined, inForce: { readonly context: number; readonly answer: number } | undefined): string[] {
  if (!r) return ["relevance thresholds: not fitted (the backend has no relevance scorer, or relevance is off)"];
  const line = (name: string, rec: RelevanceRecord, of: string, kept: number | undefined): string =>
    rec.threshold === null
      ? `${name} relevance threshold: not fitted, ${rec.reason}; the backend's ${kept ?? "default"} stays in force`
      : `${name} relevance threshold ${rec.threshold.toFixed(4)} from ${of}: balanced accuracy ${(100 * rec.balancedAccuracy).toFixed(1)}%, AUROC ${rec.auroc.value.toFixed(3)} [${rec.auroc.low.toFixed(3)}, ${rec.auroc.high.toFixed(3)}]`;
  const labelled = r.context.labelledCauses > 0 ? ` and ${r.context.labelledCauses} rows labelled with a cause` : "";
  return [line("context", r.context, `${r.context.swappedRows} own vs swapped contexts${labelled}`, inForce?.context), line("answer", r.answer, `${r.answer.pairs} own vs off-topic answers`, inForce?.answer)];
}
