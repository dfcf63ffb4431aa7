import type { AnswerCause, CauseUnknownReason, ClaimCause, ClaimResult } from "./result.ts";
import { answerContribution } from "./verdict.ts";

export type { AnswerCause, CauseUnknownReason, ClaimCause } from "./result.ts";

/**
 * Why an answer is not grounded, and why each of its failing claims is not: the rules that turn
 * claim verdicts, scores, citations and relevance into a cause. Pure: the relevance numbers come in.
 */

/** Every cause, in the order reports list them: the values of the groundwatch.cause attribute. */
export const CAUSES = ["retrieval", "generation", "citation", "mixed", "unknown"] as const satisfies readonly AnswerCause[];

/**
 * A cause as shown anywhere (the groundwatch.cause label, the flagged ring, /v1/flagged's filter):
 * one of CAUSES, else undefined (never any other value, so a label stays bounded whatever a worker
 * or a caller hands over).
 */
export function causeLabel(v: unknown): AnswerCause | undefined {
  return (CAUSES as readonly unknown[]).includes(v) ? (v as AnswerCause) : undefined;
}

/** Every reason a cause is `unknown`: the values of groundwatch.reason on groundwatch.cause.unknown. */
export const CAUSE_UNKNOWN_REASONS = ["weak_failure", "borderline_relevance", "relevance_unmeasured"] as const satisfies readonly CauseUnknownReason[];

/**
 * How clearly the evidence must point before `retrieval` or `generation` is named. Each margin is
 * where, on the labelled dev sets (bench/cause.ts, docs/benchmarks.md), the flags with evidence
 * like it stop being that cause at least two times in three:
 * - `claim`, a share of the answer threshold: a failing claim's contribution to the answer score must
 *   lie at least this share of the threshold below it (0.25: under 0.306 at the offline backend's
 *   0.408). Nearer, one flag in three was a false alarm (a claim labelled supported); further below, 17–30%.
 * - `relevance`, on the relevance scale: the documents' relevance must lie at least this far from the
 *   context relevance threshold, on either side. Nearer, 37–65% of the flags were retrieval
 *   failures: neither cause held two to one.
 */
export const CAUSE_MARGINS = { claim: 0.25, relevance: 0.05 } as const;

/** What a failing claim's retrieval or generation cause is decided from, besides the claim. */
export interface CauseEvidence {
  /** The answer threshold: what the claim's contribution is measured against. */
  readonly threshold: number;
  /** The documents' best relevance, to the question or (without one) to this claim; undefined when not measured. */
  readonly relevance: number | undefined;
  /** The context relevance threshold: under it, the documents do not address the question (or claim). */
  readonly relevanceThreshold: number;
}

/** A claim's cause, and why it is `unknown` when it is. */
export interface NamedCause {
  readonly cause: ClaimCause;
  readonly reason?: CauseUnknownReason;
}

/** Whether the claim's failure lies with its citation, decided from the citations alone (no relevance needed). */
export function isCitationFailure(claim: Pick<ClaimResult, "verdict" | "reason" | "citations">): boolean {
  if (claim.verdict === "misattributed" || claim.reason === "citation_not_retrieved") return true;
  return (claim.citations ?? []).some((c) => c.status === "not_retrieved" || c.status === "misattributed");
}

/**
 * Whether a failing claim fails only weakly: its contribution to the answer score (its score, or for
 * a contradicted claim the smaller of its score and 1 − contradiction) lies less than the claim
 * margin below the threshold.
 */
export function isWeakFailure(claim: Pick<ClaimResult, "score" | "contradiction">, threshold: number, margin: number = CAUSE_MARGINS.claim): boolean {
  return threshold - answerContribution(claim.score, claim.contradiction) < margin * threshold;
}

/**
 * The cause of one failing claim. A citation failure is decided first, from the citations alone.
 * Then retrieval or generation is named only where the evidence clears both margins (CAUSE_MARGINS):
 * a weak failure, an unmeasured relevance or a relevance near its threshold is `unknown`, with why.
 * Past them, documents that do not address what the claim answers make it `retrieval`, whatever the
 * claim's verdict (a document about something else that seems to state otherwise is still the wrong
 * document); documents that do make it `generation`.
 */
export function claimCause(claim: Pick<ClaimResult, "verdict" | "reason" | "citations" | "score" | "contradiction">, evidence: CauseEvidence, margins: { readonly claim: number; readonly relevance: number } = CAUSE_MARGINS): NamedCause {
  if (isCitationFailure(claim)) return { cause: "citation" };
  if (isWeakFailure(claim, evidence.threshold, margins.claim)) return { cause: "unknown", reason: "weak_failure" };
  const { relevance, relevanceThreshold } = evidence;
  if (relevance === undefined) return { cause: "unknown", reason: "relevance_unmeasured" };
  if (Math.abs(relevance - relevanceThreshold) < margins.relevance) return { cause: "unknown", reason: "borderline_relevance" };
  return { cause: relevance >= relevanceThreshold ? "generation" : "retrieval" };
}

/**
 * The claims an ungrounded answer fails on: those not supported; when every claim is supported
 * (the answer scored under its threshold on a claim's contradiction), those whose contribution to
 * the answer score is under the threshold.
 */
export function failingClaims<C extends Pick<ClaimResult, "verdict" | "score" | "contradiction">>(claims: readonly C[], threshold: number): C[] {
  const failing = claims.filter((c) => c.verdict !== "supported");
  return failing.length > 0 ? failing : claims.filter((c) => answerContribution(c.score, c.contradiction) < threshold);
}

/**
 * An answer's cause from its failing claims' causes: the one the claims that name a cause share,
 * else `mixed` (claims whose cause is unknown are set aside when another names one). When none
 * names one it is `unknown`: `weak_failure` when every failing claim fails only weakly, else
 * `borderline_relevance` when a claim's relevance was near its threshold, else `relevance_unmeasured`.
 */
export function answerCause(causes: readonly NamedCause[]): { readonly cause: AnswerCause; readonly reason?: CauseUnknownReason } {
  const named = new Set(causes.flatMap((c) => (c.cause === "unknown" ? [] : [c.cause])));
  if (named.size > 0) return { cause: named.size === 1 ? ([...named][0] as ClaimCause) : "mixed" };
  const reasons = new Set(causes.map((c) => c.reason));
  const reason: CauseUnknownReason = causes.length > 0 && reasons.size === 1 && reasons.has("weak_failure") ? "weak_failure" : reasons.has("borderline_relevance") ? "borderline_relevance" : "relevance_unmeasured";
  return { cause: "unknown", reason };
}
