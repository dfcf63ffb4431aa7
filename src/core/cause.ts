import type { AnswerCause, ClaimCause, ClaimResult } from "./result.ts";
import { answerContribution } from "./verdict.ts";

export type { AnswerCause, ClaimCause } from "./result.ts";

/**
 * Why an answer is not grounded, and why each of its failing claims is not: the rules that turn
 * claim verdicts, citations and relevance into a cause. Pure: the relevance numbers come in.
 */

/** Every cause, in the order reports list them: the values of the groundwatch.cause attribute. */
export const CAUSES = ["retrieval", "generation", "citation", "mixed", "unknown"] as const satisfies readonly AnswerCause[];

/** Whether the claim's failure lies with its citation, decided from the citations alone (no relevance needed). */
export function isCitationFailure(claim: Pick<ClaimResult, "verdict" | "reason" | "citations">): boolean {
  if (claim.verdict === "misattributed" || claim.reason === "citation_not_retrieved") return true;
  return (claim.citations ?? []).some((c) => c.status === "not_retrieved" || c.status === "misattributed");
}

/**
 * The cause of one claim that is not supported. `addressed` says whether the retrieved documents
 * address what the claim answers (the question's context relevance, or, without a question, the
 * documents' relevance to the claim, at or above the threshold); undefined when not measured.
 * A citation failure is decided first; then a context that does not address it is `retrieval`,
 * whatever the claim's verdict (a document about something else that seems to state otherwise is
 * still the wrong document); else `generation`.
 */
export function claimCause(claim: Pick<ClaimResult, "verdict" | "reason" | "citations">, addressed: boolean | undefined): ClaimCause {
  if (isCitationFailure(claim)) return "citation";
  if (addressed === undefined) return "unknown";
  return addressed ? "generation" : "retrieval";
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

/** An answer's cause from its failing claims' causes: the one they share, else `mixed`; `unknown` for none. */
export function answerCause(causes: readonly ClaimCause[]): AnswerCause {
  const distinct = new Set(causes);
  if (distinct.size === 0) return "unknown";
  return distinct.size === 1 ? (causes[0] ?? "unknown") : "mixed";
}
