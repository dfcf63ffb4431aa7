/**
 * An evaluation and its shapes: the names (types.ts), the worker → host wire form (summary.ts), one
 * projection per view (views.ts), and the ring of recent answers that are not grounded
 * (flagged-ring.ts). Between scoring, which makes an evaluation, and telemetry, review, the SDK, the
 * collector and the CLI, which show it.
 *
 * The words, defined once:
 * - grounded: scorable, every checked claim supported and the score at or above the threshold
 *   (verdict `grounded`);
 * - flagged: scorable and not grounded, i.e. ungrounded (verdict `ungrounded`). A flag is what the
 *   review spool keeps as kind `flagged`, what reviewers judge, and what the precision of the flags
 *   counts;
 * - unscorable: no real measurement could be made (verdict `unscorable`, with a reason). Neither
 *   grounded nor flagged. The ring keeps unscorable answers beside the flagged ones (an entry's
 *   `verdict` says which); the review spool never keeps them.
 */
export type { AnswerResult, ClaimSummary, ClaimText, CitationCountStatus, CitationCounts, EntailmentCounts, Evaluation, EvaluationEvent, EvaluationSummary, EvidenceRef, FlaggedAnswer, FlaggedClaim, FlaggedEvidence, GroundednessResult, RelevanceSummary } from "./types.ts";
export { CITATION_STATUSES } from "./types.ts";
export { citationCounts, entailmentCounts, relevanceSummary, summarize } from "./summary.ts";
export { claimSummary, claimText, evaluationEventOf, evidenceRef, flaggedAnswerOf, spoolRecordOf } from "./views.ts";
export type { EvaluationAt, ObservationContent } from "./views.ts";
export { FLAGGED_DEFAULT_LIMIT, FLAGGED_DROP_REASONS, FLAGGED_MAX_LIMIT, createFlaggedRing, isFlaggedCursor } from "./flagged-ring.ts";
export type { FlaggedDropReason, FlaggedPage, FlaggedPageQuery, FlaggedQuery, FlaggedRing, FlaggedRingOptions } from "./flagged-ring.ts";
