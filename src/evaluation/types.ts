import type { BackendInfo } from "../core/backend.ts";
import type { CombinedVerdict } from "../core/combined.ts";
import type { ClaimConsistency } from "../core/entropy/claim-consistency.ts";
import type { EntropyResult } from "../core/entropy/semantic-entropy.ts";
import type { AnswerCause, AnswerSpan, AnswerVerdict, CallsByEngine, CallsSaved, CauseUnknownReason, CitationStatus, CitationSummary, ClaimCause, ClaimResult, ClaimVerdict, Evidence, RelevanceReport } from "../core/result.ts";

/**
 * The names of an evaluation and of its projections, declared once (the words grounded, flagged
 * and unscorable: see index.ts). The result itself is made below this layer and named here:
 * `GroundednessResult` (core: the groundedness of one answer) and `Evaluation` (scoring: that plus
 * entropy, claim consistency and the combined verdict). Its wire form and its views are declared in
 * this file and built in summary.ts and views.ts; the one exception is the review spool's record, a
 * file format that the review layer declares and views.ts fills.
 */
export type { AnswerResult, GroundednessResult } from "../core/result.ts";
export type { Evaluation } from "../scoring/scorer.ts";

/** Where in the context a piece of evidence lies: its document's index (0-based) and the sentence's offsets in that document's text. */
export type EvidenceRef = Pick<Evidence, "doc" | "start" | "end">;

/** Words a span detector marked (AnswerSpan), without them: offsets into the answer, probability, and the index of the claim they fall in (null: none). */
export type SpanRef = Pick<AnswerSpan, "start" | "end" | "probability" | "claim">;

/**
 * A claim that is not supported, without its text: its verdict, offsets into the answer, where the
 * evidence that bears on it lies (the contradicting sentence, else its nearest support; null when
 * none), and why it failed when the answer was attributed.
 */
export interface ClaimSummary {
  readonly verdict: ClaimVerdict;
  readonly start: number;
  readonly end: number;
  readonly evidence: EvidenceRef | null;
  /** Why the claim is not supported (retrieval, generation, citation, unknown), when the answer's failure was attributed. */
  readonly cause?: ClaimCause;
  /** "unsupported_span": a span detector marked words of it (the claim's own reason, ClaimResult.reason); absent otherwise. */
  readonly reason?: "unsupported_span";
  /** Indexes into the answer's `spans` of those in this claim; absent when none is. */
  readonly spans?: readonly number[];
}

/**
 * One checked claim with its text: offsets into the answer, verdict, entailment score, cause, and
 * where the evidence shown beside it lies (the contradicting sentence for a contradicted claim, else
 * its nearest support). Sent by the scoring worker only when review is on.
 */
export type ClaimText = Pick<ClaimResult, "index" | "text" | "start" | "end" | "verdict" | "score" | "cause" | "spans" | "reason" | "decidedBy"> & {
  /** Where the evidence lies; `also`: the second sentence it was read with (a joined pair), when there was one. */
  readonly evidence?: EvidenceRef & { readonly also?: EvidenceRef };
};

/**
 * How one citation marker of an answer is counted: a claim's citation status, or not_retrieved (it
 * names a document that was not retrieved) and unchecked (its claim was not checked).
 */
export const CITATION_STATUSES = ["supported", "misattributed", "unsupported", "contradicted", "not_retrieved", "unchecked"] as const satisfies ReadonlyArray<CitationStatus | "not_retrieved" | "unchecked">;
export type CitationCountStatus = (typeof CITATION_STATUSES)[number];

/**
 * An answer's citations in counts: the scorer's summary (found, valid, invalid, misattributed) and
 * every marker by status, each counted once (the statuses add up to `found`).
 */
export interface CitationCounts extends CitationSummary {
  readonly byStatus: Readonly<Record<CitationCountStatus, number>>;
}

/**
 * Entailment pairs of one observation: `calls` sent to the backend (groundedness, semantic entropy
 * and claim consistency together), and the groundedness pairs `saved` without a call, by why.
 */
export interface EntailmentCounts {
  readonly calls: number;
  readonly saved: CallsSaved;
}

/**
 * An evaluation's relevance in numbers: the best context relevance against the question, the
 * answer's relevance to it (a refusal: 1), and why neither was measured when it was not.
 */
export interface RelevanceSummary {
  /** Best relevance of the retrieved documents to the question; only when measured against a question. */
  readonly context?: number;
  /** How well the answer addresses the question (a refusal: 1); only with a question. */
  readonly answer?: number;
  /** Whether the answer was below the answer relevance threshold; only with `answer`. */
  readonly offTopic?: boolean;
  readonly unmeasured?: NonNullable<RelevanceReport["unmeasured"]>["reason"];
}

/**
 * The wire form of an Evaluation, from a scoring worker to the host (summary.ts `summarize`): what
 * telemetry needs (counts, scores and reasons, and claim text only when content capture is on), and
 * what the views of the host thread read (views.ts). Workers send this instead of the full result, so
 * the host thread deserialises a few hundred bytes per evaluation. Not a file format: the review
 * spool's records are review's own type, built from this by views.ts `spoolRecordOf`.
 */
export interface EvaluationSummary {
  readonly verdict: AnswerVerdict;
  readonly score: number | null;
  readonly threshold: number | null;
  readonly reason: string | null;
  readonly claims: { readonly supported: number; readonly contradicted: number; readonly unsupported: number; readonly misattributed: number };
  readonly skipped: number;
  readonly backend: BackendInfo;
  /** Input limits the observation was cut by (answer_chars, context_chars, documents, token_chars, claims, samples, entailment_calls); [] when none. */
  readonly limits: readonly string[];
  /** The model work of the observation (summarize always sets it). */
  readonly entailment?: EntailmentCounts;
  /** With a span detector: the words it marked unsupported, without them (SpanRef; [] when none); absent without one. */
  readonly spans?: readonly SpanRef[];
  /** With a span detector: model work by engine (claim pairs judged, span detector inputs run). */
  readonly callsByEngine?: CallsByEngine;
  /** With a span detector that failed (refine mode): why there are no spans; the claim verdicts stand. */
  readonly spansUnmeasured?: { readonly reason: "backend_error" };
  /**
   * The claims not supported and, for each, the sentence of the context that bears on it (the one
   * that contradicts it, else its nearest support; "" when none), and (with resamples) the unstable
   * claims' text, and the words of each of `spans` (in its order); present only when content capture is on.
   */
  readonly content?: { readonly claims: readonly string[]; readonly evidence: readonly string[]; readonly unstableClaims?: readonly string[]; readonly spans?: readonly string[] };
  /** The claims not supported, in the order of `content.claims`, without text (ClaimSummary). Present for an answer that is not grounded (flagged or unscorable; an unscorable one has none). */
  readonly flaggedClaims?: readonly ClaimSummary[];
  /** Semantic entropy in counts: the clusters and usable samples it was measured over. */
  readonly entropy?: Pick<EntropyResult, "entropy" | "reliable" | "abstained" | "reasons"> & {
    readonly normalized: EntropyResult["normalizedEntropy"];
    readonly clusters: number;
    readonly samples: number;
  };
  /**
   * Claim-level consistency with the resamples (counts only): claims to check, claims measured,
   * measured claims that are unstable, and whether the measurement can be trusted (`degenerate`:
   * the resample set cannot show disagreement). Present when resamples were scored with claims.
   */
  readonly claimConsistency?: Pick<ClaimConsistency, "claims" | "measured" | "unstable" | "samples" | "unstableShare" | "reliable" | "degenerate" | "reasons">;
  readonly combined?: CombinedVerdict;
  /** Present when the answer cites something ([1], (source: name)). */
  readonly citations?: CitationCounts;
  /** Why an ungrounded answer is not grounded (core/cause.ts); only on ungrounded answers, when relevance is on. */
  readonly cause?: AnswerCause;
  /** Why `cause` is `unknown`; only then. */
  readonly causeReason?: CauseUnknownReason;
  /** Context and answer relevance, when relevance is on and there was something to measure. */
  readonly relevance?: RelevanceSummary;
  /** Every checked claim with its text, for the review spool; present only when review is on (the summary stays small otherwise). */
  readonly reviewClaims?: readonly ClaimText[];
}

/**
 * Where a flagged claim's evidence lies: its document's index in the context (0-based) and the
 * sentence's offsets in it; with content capture on, also the document's id, title and URL where it
 * has them (after redaction, capped), so that a reader sees which document, not only its position.
 */
export interface FlaggedEvidence extends EvidenceRef {
  readonly id?: string;
  readonly title?: string;
  readonly url?: string;
}

/** One claim of an answer in the ring: where it is in the answer, its evidence's document and offsets, and (with content capture) both texts after redaction. */
export interface FlaggedClaim {
  readonly verdict: ClaimVerdict;
  /** Character offsets of the claim in the answer. */
  readonly start: number;
  readonly end: number;
  /** The sentence of the context that bears on the claim: its document and offsets (null when none). */
  readonly evidence: FlaggedEvidence | null;
  /** Why the claim is not supported (retrieval, generation, citation, unknown), when the answer was attributed. */
  readonly cause?: ClaimCause;
  /** The claim's text, capped and redacted; only with content capture on. */
  readonly text?: string;
  /** The evidence sentence's text, capped and redacted; only with content capture on. */
  readonly evidenceText?: string;
  /** "unsupported_span": a span detector marked words of it; absent otherwise. */
  readonly reason?: "unsupported_span";
  /** Indexes into the answer's `spans` of those in this claim; absent when none is. */
  readonly spans?: readonly number[];
}

/** Words a span detector marked in a flagged answer: offsets into the answer, probability, claim index, and (with content capture) the words after redaction. */
export interface FlaggedSpan extends SpanRef {
  /** The marked words, capped and redacted; only with content capture on. */
  readonly text?: string;
}

/** An answer that is not grounded, as the ring keeps it (views.ts `flaggedAnswerOf`): flagged (`verdict` ungrounded) or unscorable (`verdict` unscorable, with `reason`). */
export interface FlaggedAnswer {
  /** The evaluation span's trace and span ids (hex). */
  readonly traceId: string;
  readonly spanId: string;
  /** When it was scored (ISO 8601). */
  readonly time: string;
  /** The capped route label. */
  readonly route: string;
  readonly verdict: AnswerVerdict;
  readonly score: number | null;
  /** Why an unscorable answer could not be scored. */
  readonly reason?: string;
  /** Why an ungrounded answer is not grounded (retrieval, generation, citation, mixed, unknown), when relevance is on. */
  readonly cause?: AnswerCause;
  /** The question asked, capped and redacted; only with content capture on, and when there was one. */
  readonly question?: string;
  /** The answer the claims' offsets point into, capped and redacted; only with content capture on. */
  readonly answer?: string;
  readonly claims: readonly FlaggedClaim[];
  /** With a span detector: the words it marked ([] when none); absent without one. The ring drops their words, then them, before it cuts claims. */
  readonly spans?: readonly FlaggedSpan[];
}

/**
 * One completed evaluation, as `onEvaluation` receives it (views.ts `evaluationEventOf`): what
 * telemetry records, without any user text (no claims, no evidence, whatever captureContent says).
 */
export interface EvaluationEvent {
  /** The route label the evaluation was recorded under. */
  readonly route: string;
  /** From dequeue to result, ms. */
  readonly durationMs: number;
  readonly result: Omit<EvaluationSummary, "content" | "reviewClaims">;
}
