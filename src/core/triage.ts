import type { NliPair, NliResult } from "./backend.ts";
import type { ClaimResult, TriageSettings, TriageThresholds } from "./result.ts";

/**
 * The cascade: with a model backend configured, the cheap tier (the offline backend) scores every
 * claim whose pairs the verbatim and cache shortcuts left, and a claim it is sure of is decided
 * without a model call. Only the rest goes to the model.
 *
 * Never decided here, always sent to the model: a claim that cites a source (its citations are
 * checked by the model's judgement of the cited documents), and a claim the cheap tier finds likely
 * contradicted (its strongest contradiction at 0.5 or above): a contradiction is the verdict that
 * costs most when wrong, and the cheap tier's contradiction signals are set by hand, not fitted.
 */

/** What the cheap tier decides of one claim: supported, unsupported, or nothing (the model decides). */
export type TriageDecision = "supported" | "unsupported" | undefined;

/** A claim the cheap tier finds this likely contradicted always goes to the model. */
export const TRIAGE_CONTRADICTION = 0.5;

/**
 * Thresholds that decide nothing: a supportAbove of 1 turns the supported side off, an
 * unsupportBelow of 0 the unsupported side (a claim with a verbatim window scores exactly 1, and
 * is still sent to the model for its other windows), so every claim goes to the model.
 */
export const DECIDE_NOTHING: TriageThresholds = { supportAbove: 1, unsupportBelow: 0 };

/** The decision on one claim from the cheap tier's score and strongest contradiction; a side whose threshold is 1 (supported) or 0 (unsupported) is off. */
export function triageDecision(offline: Pick<ClaimResult, "score" | "contradiction">, cited: boolean, t: TriageThresholds): TriageDecision {
  if (cited || offline.contradiction >= TRIAGE_CONTRADICTION) return undefined;
  if (t.supportAbove < 1 && offline.score >= t.supportAbove) return "supported";
  if (t.unsupportBelow > 0 && offline.score <= t.unsupportBelow) return "unsupported";
  return undefined;
}

/**
 * A claim result the cheap tier decided, from its judgement of the claim's windows: the verdict
 * decided, and a score on the verdict's side of the answer threshold: max(offline, threshold) when
 * supported (a supported claim never lowers the answer below the threshold), min(offline,
 * threshold / 2) when unsupported (well below it, so an answer failing on it is never read as a
 * near miss). A note says so, with the offline score and the threshold it crossed.
 */
export function decidedByTriage(offline: ClaimResult, decision: Exclude<TriageDecision, undefined>, threshold: number, t: TriageThresholds): ClaimResult {
  const supported = decision === "supported";
  const score = supported ? Math.max(offline.score, threshold) : Math.min(offline.score, threshold / 2);
  const note = supported
    ? `decided by triage without a model call: offline score ${offline.score.toFixed(3)} at or above ${t.supportAbove}`
    : `decided by triage without a model call: offline score ${offline.score.toFixed(3)} at or below ${t.unsupportBelow}`;
  return { ...offline, verdict: supported ? "supported" : "unsupported", score, notes: [note, ...offline.notes], decidedBy: "triage" };
}

/** The claims of one answer the cheap tier decided, and its judgements of their pairs. */
export interface TriageOutcome {
  /** Per pair, the cheap tier's judgement where its claim was decided and the pair was not known otherwise (lookUpPairs' `given`). */
  readonly given: readonly (NliResult | undefined)[];
  /** The decided claims, by index. */
  readonly decided: ReadonlyMap<number, Exclude<TriageDecision, undefined>>;
}

/** One answer's pairs as the groundedness scorer built them, for triageClaims. */
export interface TriageInput {
  readonly pairs: readonly NliPair[];
  /** Per claim, the [from, to) range of its pairs. */
  readonly ranges: readonly { readonly from: number; readonly to: number }[];
  /** Per pair, its judgement when known without any backend (verbatim, cached). */
  readonly known: readonly (NliResult | undefined)[];
  /** Per claim, whether it cites a source. */
  readonly cited: readonly boolean[];
  /** A claim's result from a judgement of every pair (the scorer's verdict rules). */
  judge(ci: number, results: readonly (NliResult | undefined)[]): ClaimResult;
}

/**
 * Scores with the cheap tier the pairs not known of every claim that does not cite a source (in
 * one call), and decides each such claim it is sure of. Claims whose pairs are all known are left
 * alone: they cost no model call anyway.
 */
export async function triageClaims(input: TriageInput, triage: TriageSettings): Promise<TriageOutcome> {
  const { pairs, ranges, known, cited } = input;
  const ask: number[] = [];
  const open: number[] = [];
  ranges.forEach((range, ci) => {
    if (cited[ci] === true) return;
    const before = ask.length;
    for (let i = range.from; i < range.to; i++) if (!known[i]) ask.push(i);
    if (ask.length > before) open.push(ci);
  });
  const decided = new Map<number, Exclude<TriageDecision, undefined>>();
  const given: Array<NliResult | undefined> = [];
  if (ask.length === 0) return { given, decided };
  const scored = await triage.backend.classify(ask.map((i) => pairs[i] as NliPair));
  const offline: Array<NliResult | undefined> = [...known];
  ask.forEach((i, k) => {
    offline[i] = scored[k];
  });
  for (const ci of open) {
    const decision = triageDecision(input.judge(ci, offline), false, triage);
    if (!decision) continue;
    decided.set(ci, decision);
    const range = ranges[ci] ?? { from: 0, to: 0 };
    for (let i = range.from; i < range.to; i++) if (!known[i]) given[i] = offline[i];
  }
  return { given, decided };
}
