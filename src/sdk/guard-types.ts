/**
 * What Monitor.guard() decides (docs/guard.md): a discriminated union on `decision`, each with the
 * text to send the user (`text`), how long the check took, and the evidence where there is one; and
 * the monitor's tally of every decision (MonitorStats.guard).
 */
import type { UnscorableReason } from "../core/result.ts";
import type { ClaimSummary, EvaluationSummary } from "../evaluation/types.ts";

/** The four decisions. */
export const GUARD_DECISIONS = ["pass", "block", "correct", "bypass"] as const;
export type GuardDecisionKind = (typeof GUARD_DECISIONS)[number];

/**
 * Why no check was made:
 * - `budget_exceeded`: no result within budgetMs (the scoring was given up);
 * - `scorer_unavailable`: the scoring workers are not running (failed to start, being replaced) or did not start within the budget;
 * - `scorer_error`: the scorer failed (its backend errored, its worker crashed);
 * - `over_limits`: the input is over the scorer's input limits (maxAnswerChars and the others), so part of it would go unchecked;
 * - `unscorable`: nothing to check the answer against or in it (no context, an empty answer, no checkable claim, another language): see `unscorableReason`;
 * - `invalid_input`: the input or the call's options could not be read (`detail` names the field);
 * - `closed`: the monitor was shut down;
 * - `internal_error`: anything else (a bug: `detail` says what);
 * - `saturated`: the collector's `POST /v1/guard` had `guardConcurrency` checks in flight, so it answered at once without checking (never given by Monitor.guard itself);
 * - `source_error`: a guarded stream's source failed (threw, sent an error event, was not a stream): what it had sent was not all checked (streams only);
 * - `cancelled`: a guarded stream's consumer stopped reading before its end (a client disconnect, a break, an abort signal): its pending checks were given up (streams only).
 */
export const GUARD_BYPASS_REASONS = ["budget_exceeded", "scorer_unavailable", "scorer_error", "over_limits", "unscorable", "invalid_input", "closed", "internal_error", "saturated", "source_error", "cancelled"] as const;
export type GuardBypassReason = (typeof GUARD_BYPASS_REASONS)[number];

interface GuardDecisionBase {
  /** The text to send the user: the answer, the replacement, or the corrected answer. */
  readonly text: string;
  /** The route label the decision is counted under (Monitor.routeLabel). */
  readonly route: string;
  /** Time from the call to the decision, ms, on the monitor's clock. */
  readonly durationMs: number;
}

/** The answer is grounded: send it unchanged (`text` is the answer). */
export interface GuardPass extends GuardDecisionBase {
  readonly decision: "pass";
  readonly score: number;
  readonly evaluation: EvaluationSummary;
}

/** The answer is ungrounded and the action is block: send `replacement` (also `text`). */
export interface GuardBlock extends GuardDecisionBase {
  readonly decision: "block";
  readonly replacement: string;
  readonly score: number;
  /** The claims not supported, with their offsets into the answer and where their evidence lies. */
  readonly claims: readonly ClaimSummary[];
  readonly evaluation: EvaluationSummary;
}

/** The answer is ungrounded and the action is correct: send `answer` (also `text`), its unsupported claims removed or marked. */
export interface GuardCorrect extends GuardDecisionBase {
  readonly decision: "correct";
  readonly answer: string;
  readonly correction: "remove" | "mark";
  /** What was removed or marked: ranges of the original answer, in order, not overlapping. */
  readonly ranges: ReadonlyArray<{ readonly start: number; readonly end: number }>;
  readonly score: number;
  readonly claims: readonly ClaimSummary[];
  readonly evaluation: EvaluationSummary;
}

/** No check was made (see GuardBypassReason); `outcome` is what onFail made of it: the replacement ("block") or the answer unchecked ("pass"). */
export interface GuardBypass extends GuardDecisionBase {
  readonly decision: "bypass";
  readonly reason: GuardBypassReason;
  /** What happened, in words, for a log line (an error's message included as the scorer gave it). */
  readonly detail: string;
  readonly outcome: "block" | "pass";
  /** The replacement, when the outcome is block. */
  readonly replacement?: string;
  /** Why the scorer found the answer unscorable (reason `unscorable`). */
  readonly unscorableReason?: UnscorableReason;
  /** The scorer's result when there was one (reasons over_limits, unscorable, scorer_error from a backend error). */
  readonly evaluation?: EvaluationSummary;
}

export type GuardDecision = GuardPass | GuardBlock | GuardCorrect | GuardBypass;

/** Guard decisions counted: by decision, bypasses by reason. */
export interface GuardCounts {
  readonly pass: number;
  readonly block: number;
  readonly correct: number;
  readonly bypass: Readonly<Record<GuardBypassReason, number>>;
}

/** Every guard decision of a monitor (MonitorStats.guard): all routes together, and per route label. */
export interface GuardStats extends GuardCounts {
  readonly routes: Readonly<Record<string, GuardCounts>>;
}
