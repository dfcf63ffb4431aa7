import type { RelevanceReport } from "../core/result.ts";
import { evidenceToShow } from "../core/verdict.ts";
import type { Evaluation } from "../scoring/scorer.ts";
import type { CitationCountStatus, CitationCounts, EntailmentCounts, EvaluationSummary, RelevanceSummary } from "./types.ts";
import { CITATION_STATUSES } from "./types.ts";
import { claimSummary, claimText } from "./views.ts";

/**
 * The worker → host wire form of an Evaluation (EvaluationSummary, types.ts): `summarize` and the
 * counts it is made of. A scoring worker sends it; the host records it (telemetry) and projects it
 * into its views (views.ts).
 */

/** The model work of a scored answer in counts. */
export function entailmentCounts(r: Pick<Evaluation, "entailmentCalls" | "callsSaved" | "entropy" | "claimConsistency">): EntailmentCounts {
  const calls = r.entailmentCalls + (r.entropy?.entailmentCalls ?? 0) + (r.claimConsistency?.entailmentCalls ?? 0);
  return { calls, saved: { verbatim: r.callsSaved?.verbatim ?? 0, cache: r.callsSaved?.cache ?? 0, triage: r.callsSaved?.triage ?? 0 } };
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
export function citationCounts(r: Pick<Evaluation, "claims" | "citations">): CitationCounts | undefined {
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

function citationsOf(r: Evaluation): { citations?: CitationCounts } {
  const counts = citationCounts(r);
  return counts ? { citations: counts } : {};
}

function relevanceOf(r: Evaluation): { relevance?: RelevanceSummary } {
  const relevance = relevanceSummary(r.relevance);
  return relevance ? { relevance } : {};
}

/** The summary a scoring worker sends; `review` adds every claim with its text (reviewClaims) for the review spool. */
export function summarize(r: Evaluation, captureContent: boolean, review = false): EvaluationSummary {
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
    ...(r.verdict !== "grounded" ? { flaggedClaims: unsupported.map(claimSummary) } : {}),
    ...(captureContent
      ? {
          content: {
            claims: unsupported.map((c) => c.text),
            // The sentence that bears on each claim: what contradicts it, or its nearest support.
            evidence: unsupported.map((c) => evidenceToShow(c)?.text ?? ""),
            ...(r.unstableClaims ? { unstableClaims: r.unstableClaims.map((c) => c.text) } : {}),
            ...(r.spans ? { spans: r.spans.map((s) => s.text) } : {}),
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
    ...(review ? { reviewClaims: r.claims.map(claimText) } : {}),
    ...(r.spans ? { spans: r.spans.map((s) => ({ start: s.start, end: s.end, probability: s.probability, claim: s.claim })) } : {}),
    ...(r.callsByEngine ? { callsByEngine: { claims: r.callsByEngine.claims, spans: r.callsByEngine.spans } } : {}),
  };
}
