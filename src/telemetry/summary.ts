import type { CombinedVerdict } from "../core/combined.ts";
import type { BackendInfo } from "../core/backend.ts";
import type { ClaimConsistency } from "../core/entropy/claim-consistency.ts";
import type { EntropyResult } from "../core/entropy/semantic-entropy.ts";
import type { AnswerCause, AnswerVerdict, CallsSaved, CauseUnknownReason, CitationSummary, ClaimCause, ClaimResult, ClaimVerdict, Evidence, RelevanceReport } from "../core/result.ts";
import { evidenceToShow } from "../core/verdict.ts";
import type { ScoredAnswer } from "../scoring/scorer.ts";
import type { CitationCountStatus, RelevanceUnmeasuredReason } from "./semconv.ts";
import { CITATION_STATUSES } from "./semconv.ts";

/**
 * An answer's citations in counts: the scorer's summary (found, valid, invalid, misattributed) and
 * every marker by status, each counted once (the statuses add up to `found`).
 */
export interface CitationCounts extends CitationSummary {
  readonly byStatus: Readonly<Record<CitationCountStatus, number>>;
}

/** An unsupported, contradicted or misattributed claim without its text: where it is in the answer, and its evidence's document and offsets. */
export interface FlaggedClaimRef {
  readonly verdict: ClaimVerdict;
  readonly start: number;
  readonly end: number;
  readonly evidence: { readonly doc: number; readonly start: number; readonly end: number } | null;
  /** Why the claim is not supported (retrieval, generation, citation, unknown), when the answer's failure was attributed. */
  readonly cause?: ClaimCause;
}

/**
 * One checked claim with its text, as the review spool keeps it: offsets into the answer, verdict,
 * entailment score, cause, and where the evidence shown beside it lies (the contradicting sentence
 * for a contradicted claim, else its nearest support). Sent by the scoring worker only when review is on.
 */
export type ReviewClaim = Pick<ClaimResult, "index" | "text" | "start" | "end" | "verdict" | "score" | "cause"> & {
  readonly evidence?: Pick<Evidence, "doc" | "start" | "end">;
};

/**
 * Entailment pairs of one observation: `calls` sent to the backend (groundedness, semantic entropy
 * and claim consistency together), and the groundedness pairs `saved` without a call, by why.
 */
export interface EntailmentCounts {
  readonly calls: number;
  readonly saved: CallsSaved;
}

/** The model work of a scored answer in counts. */
export function entailmentCounts(r: Pick<ScoredAnswer, "entailmentCalls" | "callsSaved" | "entropy" | "claimConsistency">): EntailmentCounts {
  const calls = r.entailmentCalls + (r.entropy?.entailmentCalls ?? 0) + (r.claimConsistency?.entailmentCalls ?? 0);
  return { calls, saved: { verbatim: r.callsSaved?.verbatim ?? 0, cache: r.callsSaved?.cache ?? 0 } };
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
  readonly unmeasured?: RelevanceUnmeasuredReason;
}

/**
 * What telemetry needs from a scored answer: counts, scores and reasons, and claim
 * text only when content capture is on. Scoring workers send this instead of the
 * full result, so the host thread deserialises a few hundred bytes per evaluation.
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
  /**
   * The claims not supported and, for each, the sentence of the context that bears on it (the one
   * that contradicts it, else its nearest support; "" when none), and (with resamples) the unstable
   * claims' text; present only when content capture is on.
   */
  readonly content?: { readonly claims: readonly string[]; readonly evidence: readonly string[]; readonly unstableClaims?: readonly string[] };
  /** The claims not supported, in the order of `content.claims`, without text: verdict, offsets into the answer, and where the evidence that bears on each lies (null when none). Present for an answer that is not grounded. */
  readonly flaggedClaims?: readonly FlaggedClaimRef[];
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
  readonly reviewClaims?: readonly ReviewClaim[];
}

/** A relevance report in numbers (see RelevanceSummary); undefined when it holds none. */
export function relevanceSummary(report: RelevanceReport | undefined): RelevanceSummary | undefined {
  if (!report) return undefined;
  const out: RelevanceSummary = {
    ...(report.context ? { context: report.context.best } : {}),
    ...(report.answer ? { answer: report.answer.score, offTopic: !report.answer.onTopic } : {}),
    ...(report.unmeasured ? { unmeasured: report.unmeasured.reason } : {}),
  };
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Counts an answer's citation markers by status: each checked claim's citations carry theirs; a
 * marker naming a document that was not retrieved is not_retrieved wherever it is; any other marker
 * outside the checked claims (its claim was over a limit, or the answer was unscorable) is unchecked.
 * Undefined when the answer cites nothing.
 */
export function citationCounts(r: Pick<ScoredAnswer, "claims" | "citations">): CitationCounts | undefined {
  const summary = r.citations;
  if (!summary) return undefined;
  const byStatus = Object.fromEntries(CITATION_STATUSES.map((s) => [s, 0])) as Record<CitationCountStatus, number>;
  for (const c of r.claims) for (const citation of c.citations ?? []) byStatus[citation.status]++;
  const counted = CITATION_STATUSES.reduce((n, s) => n + byStatus[s], 0);
  const invalidElsewhere = Math.max(0, summary.invalid - byStatus.not_retrieved);
  byStatus.not_retrieved += invalidElsewhere;
  byStatus.unchecked += Math.max(0, summary.found - counted - invalidElsewhere);
  return { found: summary.found, valid: summary.valid, invalid: summary.invalid, misattributed: summary.misattributed, byStatus };
}

function citationsOf(r: ScoredAnswer): { citations?: CitationCounts } {
  const counts = citationCounts(r);
  return counts ? { citations: counts } : {};
}

function relevanceOf(r: ScoredAnswer): { relevance?: RelevanceSummary } {
  const relevance = relevanceSummary(r.relevance);
  return relevance ? { relevance } : {};
}

function flaggedClaimRef(c: ScoredAnswer["claims"][number]): FlaggedClaimRef {
  const e = evidenceToShow(c);
  return { verdict: c.verdict, start: c.start, end: c.end, evidence: e ? { doc: e.doc, start: e.start, end: e.end } : null, ...(c.cause ? { cause: c.cause } : {}) };
}

function reviewClaim(c: ScoredAnswer["claims"][number]): ReviewClaim {
  const e = evidenceToShow(c);
  return { index: c.index, text: c.text, start: c.start, end: c.end, verdict: c.verdict, score: c.score, ...(c.cause ? { cause: c.cause } : {}), ...(e ? { evidence: { doc: e.doc, start: e.start, end: e.end } } : {}) };
}

/** The summary a scoring worker sends; `review` adds every claim with its text (reviewClaims) for the review spool. */
export function summarize(r: ScoredAnswer, captureContent: boolean, review = false): EvaluationSummary {
  const claims = { supported: 0, contradicted: 0, unsupported: 0, misattributed: 0 };
  for (const c of r.claims) claims[c.verdict]++;
  const unsupported = r.claims.filter((c) => c.verdict !== "supported");
  return {
    verdict: r.verdict,
    score: r.score,
    threshold: r.verdict === "unscorable" ? null : r.threshold,
    reason: r.verdict === "unscorable" ? r.reason : null,
    claims,
    skipped: r.skipped.length,
    backend: r.backend,
    limits: r.limits,
    entailment: entailmentCounts(r),
    ...(r.verdict !== "grounded" ? { flaggedClaims: unsupported.map(flaggedClaimRef) } : {}),
    ...(captureContent
      ? {
          content: {
            claims: unsupported.map((c) => c.text),
            // The sentence that bears on each claim: what contradicts it, or its nearest support.
            evidence: unsupported.map((c) => evidenceToShow(c)?.text ?? ""),
            ...(r.unstableClaims ? { unstableClaims: r.unstableClaims.map((c) => c.text) } : {}),
          },
        }
      : {}),
    ...(r.entropy
      ? {
          entropy: {
            entropy: r.entropy.entropy,
            normalized: r.entropy.normalizedEntropy,
            clusters: r.entropy.clusters.length,
            samples: r.entropy.diagnostics.samples,
            reliable: r.entropy.reliable,
            abstained: r.entropy.abstained,
            reasons: r.entropy.reasons,
          },
        }
      : {}),
    ...(r.claimConsistency
      ? {
          claimConsistency: {
            claims: r.claimConsistency.claims,
            measured: r.claimConsistency.measured,
            unstable: r.claimConsistency.unstable,
            samples: r.claimConsistency.samples,
            unstableShare: r.claimConsistency.unstableShare,
            reliable: r.claimConsistency.reliable,
            degenerate: r.claimConsistency.degenerate,
            reasons: r.claimConsistency.reasons,
          },
        }
      : {}),
    ...(r.combined ? { combined: r.combined } : {}),
    ...citationsOf(r),
    ...(r.verdict === "ungrounded" && r.cause ? { cause: r.cause } : {}),
    ...(r.verdict === "ungrounded" && r.cause === "unknown" && r.causeReason ? { causeReason: r.causeReason } : {}),
    ...relevanceOf(r),
    ...(review ? { reviewClaims: r.claims.map(reviewClaim) } : {}),
  };
}
