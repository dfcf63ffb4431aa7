import type { Attributes, Context, Span } from "@opentelemetry/api";
import { SpanStatusCode } from "@opentelemetry/api";
import type { Logger } from "@opentelemetry/api-logs";
import type { EvaluationSummary } from "../evaluation/types.ts";
import type { Instruments } from "./instruments.ts";
import type { ContentPolicy } from "./content-policy.ts";
import { causeLabel } from "../core/cause.ts";
import {
  ATTR_BACKEND_NAME,
  ATTR_CAUSE,
  CAUSES,
  CAUSE_UNKNOWN_REASONS,
  ATTR_BACKEND_TIER,
  ATTR_CITATIONS_FOUND,
  ATTR_CITATIONS_INVALID,
  ATTR_CITATIONS_MISATTRIBUTED,
  ATTR_CITATIONS_VALID,
  ATTR_CITATION_STATUS,
  ATTR_CLAIMS_CONTRADICTED,
  ATTR_CLAIMS_MISATTRIBUTED,
  ATTR_CLAIMS_SKIPPED,
  ATTR_CLAIMS_SUPPORTED,
  ATTR_CLAIMS_UNSTABLE,
  ATTR_CLAIMS_UNSUPPORTED,
  ATTR_CLAIM_VERDICT,
  ATTR_COMBINED_VERDICT,
  ATTR_CONTENT_EVIDENCE,
  ATTR_CONTENT_UNSTABLE_CLAIMS,
  ATTR_CONTENT_SPANS,
  ATTR_CONTENT_UNSUPPORTED_CLAIMS,
  ATTR_ENGINE,
  ATTR_ENTROPY,
  ATTR_ENTROPY_CLUSTERS,
  ATTR_ENTROPY_NORMALIZED,
  ATTR_ENTROPY_RELIABLE,
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_GUARDRAIL_COMPONENT_NAME,
  ATTR_GEN_AI_GUARDRAIL_CONTENT_OUTPUT_VALUE,
  ATTR_GEN_AI_GUARDRAIL_RESULT_REASON,
  ATTR_GEN_AI_GUARDRAIL_RESULT_TYPE,
  ATTR_GEN_AI_GUARDRAIL_RESULT_VALUE,
  ATTR_GEN_AI_GUARDRAIL_RISK_CATEGORY,
  ATTR_GEN_AI_GUARDRAIL_RISK_SCORE,
  ATTR_GEN_AI_GUARDRAIL_SOURCE,
  ATTR_GUARD_DECISION,
  EVENT_GEN_AI_GUARDRAIL_RESULT,
  GUARDRAIL_COMPONENT,
  GUARDRAIL_RESULT_TYPE_DECISION,
  GUARDRAIL_RISK_UNGROUNDED,
  GUARDRAIL_SOURCE_OUTPUT,
  ATTR_GEN_AI_EVALUATION_EXPLANATION,
  ATTR_GEN_AI_EVALUATION_NAME,
  ATTR_GEN_AI_EVALUATION_SCORE_LABEL,
  ATTR_GEN_AI_EVALUATION_SCORE_VALUE,
  ATTR_REASON,
  ATTR_RELEVANCE_ANSWER,
  ATTR_RELEVANCE_CONTEXT,
  ATTR_ROUTE,
  ATTR_SCORE,
  ATTR_SPANS_CLAIM,
  ATTR_SPANS_COUNT,
  ATTR_SPANS_END,
  ATTR_SPANS_PROBABILITY,
  ATTR_SPANS_START,
  ATTR_VERDICT,
  SPAN_ATTRIBUTE_LIMIT,
  CITATION_STATUSES,
  ENTAILMENT_SAVED_REASONS,
  RELEVANCE_UNMEASURED_REASONS,
  EVALUATION_GROUNDEDNESS,
  EVALUATION_SEMANTIC_ENTROPY,
  EVENT_GEN_AI_EVALUATION_RESULT,
  openInferenceEvaluation,
} from "./semconv.ts";

export interface RecordingOptions {
  readonly spanEvent: boolean;
  readonly openInference: boolean;
  /** Which user text the span carries, and how (capture, redact hook, length cap, what a throwing hook does). */
  readonly content: ContentPolicy;
}

/**
 * The number of unstable claims to report, or undefined when stability was not measured well
 * enough to report 0: a count of 0 reads as "every claim is stable", so it is given only for a
 * reliable measurement; instability that was found is reported either way.
 */
export function unstableClaimCount(r: EvaluationSummary): number | undefined {
  const cc = r.claimConsistency;
  if (!cc) return undefined;
  return cc.reliable || cc.unstable > 0 ? cc.unstable : undefined;
}

/**
 * A short explanation: counts, reasons, the cause and the spans' offsets and probabilities, safe for
 * any backend. `spanWords` (the spans' words in order, through the content policy: content capture
 * only) adds each span's words after its offsets; without it the explanation carries no user text.
 */
export function explanationOf(r: EvaluationSummary, spanWords?: readonly string[]): string {
  if (r.verdict === "unscorable" || r.score === null) return `unscorable: ${r.reason ?? "unknown"}`;
  const cause = r.verdict === "ungrounded" ? causeLabel(r.cause) : undefined;
  const counted = `${claimsExplanation(r, r.score)}${spansExplanation(r, spanWords)}`;
  const why = cause === "unknown" ? unknownReason(r) : undefined;
  return cause ? `ungrounded (cause: ${cause}${why ? `, ${why}` : ""}); ${counted}` : counted;
}

/** Why an ungrounded answer's cause is unknown, one of CAUSE_UNKNOWN_REASONS (what the summary carries, else relevance_unmeasured). */
function unknownReason(r: EvaluationSummary): string {
  return r.causeReason && (CAUSE_UNKNOWN_REASONS as readonly string[]).includes(r.causeReason) ? r.causeReason : "relevance_unmeasured";
}

/** The claim counts, score, citations and stability of a scored answer in words. */
function claimsExplanation(r: EvaluationSummary, score: number): string {
  const c = r.claims;
  const misattributed = c.misattributed > 0 ? `, ${c.misattributed} misattributed` : "";
  const cited = r.citations ? `; ${citationsText(r.citations)}` : "";
  const base = `${c.supported + c.contradicted + c.unsupported + c.misattributed} claims: ${c.supported} supported, ${c.contradicted} contradicted, ${c.unsupported} unsupported${misattributed}; score ${score.toFixed(3)} vs threshold ${r.threshold ?? ""}${cited}`;
  const cc = r.claimConsistency;
  if (!cc) return base;
  const unstable = unstableClaimCount(r);
  if (unstable === undefined) return `${base}; claim stability not measured (${cc.reasons[0] ?? "unreliable"})`;
  return `${base}; ${unstable} of ${cc.claims} claims unstable across ${cc.samples} resamples${cc.reliable ? "" : ` (${cc.measured} of ${cc.claims} measured)`}`;
}

/** The most spans an explanation names one by one (the rest are counted). */
export const EXPLAINED_SPANS = 8;

/** The spans in words: "; 2 unsupported spans: [12, 20) p 0.910 in claim 1, [30, 41) p 0.770"; "" when no span detector ran. */
export function spansExplanation(r: Pick<EvaluationSummary, "spans">, spanWords?: readonly string[]): string {
  const spans = r.spans;
  if (!spans) return "";
  if (spans.length === 0) return "; 0 unsupported spans";
  const named = spans.slice(0, EXPLAINED_SPANS).map((s, i) => {
    const words = spanWords?.[i];
    return `[${s.start}, ${s.end})${words !== undefined ? ` ${JSON.stringify(words)}` : ""} p ${s.probability.toFixed(3)}${s.claim !== null ? ` in claim ${s.claim}` : ""}`;
  });
  const more = spans.length > EXPLAINED_SPANS ? `, ${spans.length - EXPLAINED_SPANS} more` : "";
  return `; ${spans.length} unsupported span${spans.length === 1 ? "" : "s"}: ${named.join(", ")}${more}`;
}

/**
 * The spans as span attributes, only when a span detector ran: the count, and for the first
 * SPAN_ATTRIBUTE_LIMIT their offsets, probabilities and claims (-1: in no claim). Never their words.
 */
export function spanAttributes(r: Pick<EvaluationSummary, "spans">): Attributes {
  const spans = r.spans;
  if (!spans) return {};
  const listed = spans.slice(0, SPAN_ATTRIBUTE_LIMIT);
  return {
    [ATTR_SPANS_COUNT]: spans.length,
    [ATTR_SPANS_START]: listed.map((s) => s.start),
    [ATTR_SPANS_END]: listed.map((s) => s.end),
    [ATTR_SPANS_PROBABILITY]: listed.map((s) => s.probability),
    [ATTR_SPANS_CLAIM]: listed.map((s) => s.claim ?? -1),
  };
}

/** The citation summary in words: "3 citations: 2 valid, 1 not retrieved, 1 misattributed". */
export function citationsText(c: NonNullable<EvaluationSummary["citations"]>): string {
  return `${c.found} citation${c.found === 1 ? "" : "s"}: ${c.valid} valid, ${c.invalid} not retrieved, ${c.misattributed} misattributed`;
}

/** The answer's cause as an attribute (span and evaluation event): ungrounded answers only, one of CAUSES. */
function causeAttributes(r: EvaluationSummary): Attributes {
  const cause = r.verdict === "ungrounded" ? causeLabel(r.cause) : undefined;
  return cause ? { [ATTR_CAUSE]: cause } : {};
}

/** A relevance in [0, 1], or undefined for anything else (the histograms and span attributes take nothing out of range). */
/** The most label sets whose cause series are started at 0; past it (routes are capped far below), they start at their first answer. */
const MAX_CAUSE_SERIES_STARTED = 10_000;

/**
 * Starts the ungrounded series of every cause at 0 the first time a (route, backend, tier) is
 * scored with relevance on: Prometheus' rate() loses the first increase of a series that appears
 * mid-window, so a cause first seen during an incident would be undercounted exactly when the
 * by-cause panels and the paging alert's dominant cause are read.
 */
function startCauseSeries(r: EvaluationSummary, base: Attributes, m: Instruments): void {
  if (r.relevance === undefined && r.cause === undefined) return;
  const key = `${String(base[ATTR_ROUTE])}\u0000${String(base[ATTR_BACKEND_NAME])}\u0000${String(base[ATTR_BACKEND_TIER])}`;
  if (m.causeSeriesStarted.has(key) || m.causeSeriesStarted.size >= MAX_CAUSE_SERIES_STARTED) return;
  m.causeSeriesStarted.add(key);
  for (const cause of CAUSES) m.evaluations.add(0, { ...base, [ATTR_VERDICT]: "ungrounded", [ATTR_CAUSE]: cause });
}

function unit(v: unknown): number | undefined {
  return typeof v === "number" && v >= 0 && v <= 1 ? v : undefined;
}

/** Context and answer relevance as span attributes; only those measured against a question. */
function relevanceAttributes(r: EvaluationSummary): Attributes {
  const context = unit(r.relevance?.context);
  const answer = unit(r.relevance?.answer);
  return { ...(context === undefined ? {} : { [ATTR_RELEVANCE_CONTEXT]: context }), ...(answer === undefined ? {} : { [ATTR_RELEVANCE_ANSWER]: answer }) };
}

/** The relevance histograms by route, and the unmeasured counter with its reason. */
function recordRelevance(r: EvaluationSummary, route: string, m: Instruments): void {
  const context = unit(r.relevance?.context);
  const answer = unit(r.relevance?.answer);
  if (context !== undefined) m.contextRelevance.record(context, { [ATTR_ROUTE]: route });
  if (answer !== undefined) m.answerRelevance.record(answer, { [ATTR_ROUTE]: route });
  const reason = r.relevance?.unmeasured;
  if (reason && (RELEVANCE_UNMEASURED_REASONS as readonly string[]).includes(reason)) m.relevanceUnmeasured.add(1, { [ATTR_ROUTE]: route, [ATTR_REASON]: reason });
  // An ungrounded answer whose cause is unknown, with why (one of three values).
  if (r.verdict === "ungrounded" && causeLabel(r.cause) === "unknown") m.causeUnknown.add(1, { [ATTR_ROUTE]: route, [ATTR_REASON]: unknownReason(r) });
}

/**
 * Claims by verdict and, for those not supported, by cause: each flagged claim carries its own
 * (grouped by verdict and cause); a claim without one (an answer that was not attributed) is
 * counted without the label.
 */
function recordClaims(r: EvaluationSummary, base: Attributes, m: Instruments): void {
  const counts = r.claims;
  if (counts.supported > 0) m.claims.add(counts.supported, { ...base, [ATTR_CLAIM_VERDICT]: "supported" });
  const byKey = new Map<string, { verdict: string; cause: string | undefined; n: number }>();
  const refs = r.flaggedClaims ?? [];
  const attributed = r.verdict === "ungrounded" && refs.length === counts.contradicted + counts.unsupported + counts.misattributed;
  if (attributed) {
    for (const c of refs) {
      const cause = causeLabel(c.cause);
      const key = `${c.verdict} ${cause ?? ""}`;
      const held = byKey.get(key);
      if (held) held.n++;
      else byKey.set(key, { verdict: c.verdict, cause, n: 1 });
    }
  } else {
    for (const verdict of ["contradicted", "unsupported", "misattributed"] as const) if (counts[verdict] > 0) byKey.set(verdict, { verdict, cause: undefined, n: counts[verdict] });
  }
  for (const { verdict, cause, n } of byKey.values()) m.claims.add(n, { ...base, [ATTR_CLAIM_VERDICT]: verdict, ...(cause ? { [ATTR_CAUSE]: cause } : {}) });
}

/** The citation summary as attributes (span and evaluation event); empty when the answer cites nothing. */
function citationAttributes(r: EvaluationSummary): Attributes {
  const c = r.citations;
  if (!c) return {};
  return { [ATTR_CITATIONS_FOUND]: c.found, [ATTR_CITATIONS_VALID]: c.valid, [ATTR_CITATIONS_INVALID]: c.invalid, [ATTR_CITATIONS_MISATTRIBUTED]: c.misattributed };
}

/** The content attributes of the span: the unsupported claims, their evidence, the unstable claims, each as the content policy carries a text. */
function contentAttributes(content: NonNullable<EvaluationSummary["content"]>, policy: ContentPolicy): Attributes {
  const attrs: Attributes = {
    [ATTR_CONTENT_UNSUPPORTED_CLAIMS]: content.claims.map((t) => policy.text(t)),
    [ATTR_CONTENT_EVIDENCE]: content.evidence.map((t) => policy.text(t)),
  };
  if (content.unstableClaims && content.unstableClaims.length > 0) attrs[ATTR_CONTENT_UNSTABLE_CLAIMS] = content.unstableClaims.map((t) => policy.text(t));
  if (content.spans && content.spans.length > 0) attrs[ATTR_CONTENT_SPANS] = content.spans.slice(0, SPAN_ATTRIBUTE_LIMIT).map((t) => policy.text(t));
  return attrs;
}

/**
 * Records one evaluation: attributes and status on the evaluation span, the GenAI
 * evaluation event through the Logs API (parented to the request's context), and metrics
 * labelled with route, backend and verdict only.
 */
export function recordEvaluation(params: {
  readonly result: EvaluationSummary;
  readonly route: string;
  readonly span: Span;
  readonly eventContext: Context;
  readonly logger: Logger;
  readonly instruments: Instruments;
  readonly durationS: number;
  readonly options: RecordingOptions;
}): void {
  const { result: r, route, span, instruments: m, options } = params;
  const base: Attributes = { [ATTR_ROUTE]: route, [ATTR_BACKEND_NAME]: r.backend.name, [ATTR_BACKEND_TIER]: r.backend.tier };
  const counts = r.claims;
  const spanAttrs: Attributes = {
    ...base,
    [ATTR_VERDICT]: r.verdict,
    [ATTR_CLAIMS_SUPPORTED]: counts.supported,
    [ATTR_CLAIMS_CONTRADICTED]: counts.contradicted,
    [ATTR_CLAIMS_UNSUPPORTED]: counts.unsupported,
    [ATTR_CLAIMS_MISATTRIBUTED]: counts.misattributed,
    [ATTR_CLAIMS_SKIPPED]: r.skipped,
    ...citationAttributes(r),
    ...causeAttributes(r),
    ...relevanceAttributes(r),
    ...spanAttributes(r),
    ...(r.score !== null ? { [ATTR_SCORE]: r.score } : { [ATTR_REASON]: r.reason ?? "unknown" }),
  };
  if (r.entropy) {
    spanAttrs[ATTR_ENTROPY_RELIABLE] = r.entropy.reliable;
    spanAttrs[ATTR_ENTROPY_CLUSTERS] = r.entropy.clusters;
    if (r.entropy.entropy !== null) spanAttrs[ATTR_ENTROPY] = r.entropy.entropy;
    if (r.entropy.normalized !== null) spanAttrs[ATTR_ENTROPY_NORMALIZED] = r.entropy.normalized;
  }
  if (r.combined) spanAttrs[ATTR_COMBINED_VERDICT] = r.combined.verdict;
  const unstable = unstableClaimCount(r);
  if (unstable !== undefined) spanAttrs[ATTR_CLAIMS_UNSTABLE] = unstable;
  const content = r.content;
  // With content capture: the content attributes and the spans' words (the explanation names them);
  // a redact hook that throws: the span and its event are recorded without content (the content policy's one rule).
  const withContent = content
    ? options.content.record(
        "span",
        route,
        () => ({ attrs: contentAttributes(content, options.content), spanWords: content.spans?.slice(0, EXPLAINED_SPANS).map((t) => options.content.text(t)) }),
        () => ({ attrs: {}, spanWords: undefined }),
      )
    : { attrs: {}, spanWords: undefined };
  const explanation = explanationOf(r, withContent.spanWords);
  if (options.openInference) {
    spanAttrs[openInferenceEvaluation(0, "name")] = EVALUATION_GROUNDEDNESS;
    if (r.score !== null) spanAttrs[openInferenceEvaluation(0, "score")] = r.score;
    spanAttrs[openInferenceEvaluation(0, "label")] = r.verdict;
    spanAttrs[openInferenceEvaluation(0, "explanation")] = explanation;
    spanAttrs[openInferenceEvaluation(0, "annotator_kind")] = r.backend.name === "judge" ? "LLM" : "CODE";
  }
  Object.assign(spanAttrs, withContent.attrs);
  span.setAttributes(spanAttrs);
  if (r.verdict === "unscorable") span.setStatus({ code: SpanStatusCode.UNSET, message: r.reason ?? "unscorable" });

  const eventAttrs: Attributes = {
    [ATTR_GEN_AI_EVALUATION_NAME]: EVALUATION_GROUNDEDNESS,
    [ATTR_GEN_AI_EVALUATION_SCORE_LABEL]: r.verdict,
    [ATTR_GEN_AI_EVALUATION_EXPLANATION]: explanation,
    ...(r.score !== null ? { [ATTR_GEN_AI_EVALUATION_SCORE_VALUE]: r.score } : { [ATTR_ERROR_TYPE]: r.reason ?? "unknown" }),
    ...(unstable !== undefined ? { [ATTR_CLAIMS_UNSTABLE]: unstable } : {}),
    ...citationAttributes(r),
    ...causeAttributes(r),
    ...base,
  };
  params.logger.emit({ eventName: EVENT_GEN_AI_EVALUATION_RESULT, attributes: eventAttrs, context: params.eventContext });
  if (options.spanEvent) span.addEvent(EVENT_GEN_AI_EVALUATION_RESULT, eventAttrs);
  if (r.entropy && r.entropy.normalized !== null) {
    const entropyAttrs: Attributes = {
      [ATTR_GEN_AI_EVALUATION_NAME]: EVALUATION_SEMANTIC_ENTROPY,
      [ATTR_GEN_AI_EVALUATION_SCORE_VALUE]: r.entropy.normalized,
      [ATTR_GEN_AI_EVALUATION_SCORE_LABEL]: r.entropy.reliable ? (r.entropy.abstained ? "abstained" : "measured") : "unreliable",
      [ATTR_GEN_AI_EVALUATION_EXPLANATION]: `${r.entropy.clusters} meanings in ${r.entropy.samples} samples${r.entropy.reliable ? "" : `; unreliable: ${r.entropy.reasons.join("; ")}`}`,
      ...base,
    };
    params.logger.emit({ eventName: EVENT_GEN_AI_EVALUATION_RESULT, attributes: entropyAttrs, context: params.eventContext });
  }

  m.scored.add(1, { [ATTR_ROUTE]: route });
  // An unscorable answer is counted with its reason (empty_context, language_mismatch, …): a handful of values.
  // An ungrounded one with its cause (one of five values, only when relevance is on).
  startCauseSeries(r, base, m);
  m.evaluations.add(1, { ...base, [ATTR_VERDICT]: r.verdict, ...(r.verdict === "unscorable" ? { [ATTR_REASON]: r.reason ?? "unknown" } : {}), ...causeAttributes(r) });
  if (r.score !== null) m.score.record(r.score, { ...base, [ATTR_VERDICT]: r.verdict });
  recordClaims(r, base, m);
  recordRelevance(r, route, m);
  // Model work by route and engine: claim pairs sent, span detector inputs run; and pairs decided without a call by why.
  if (r.entailment) {
    if (r.entailment.calls > 0) m.entailmentCalls.add(r.entailment.calls, { [ATTR_ROUTE]: route, [ATTR_ENGINE]: "claims" });
    for (const reason of ENTAILMENT_SAVED_REASONS) if (r.entailment.saved[reason] > 0) m.entailmentSaved.add(r.entailment.saved[reason], { [ATTR_ROUTE]: route, [ATTR_REASON]: reason });
  }
  if (r.callsByEngine && r.callsByEngine.spans > 0) m.entailmentCalls.add(r.callsByEngine.spans, { [ATTR_ROUTE]: route, [ATTR_ENGINE]: "spans" });
  // Citations by route and status only: the invalid-citation alert sums them per route.
  if (r.citations) for (const status of CITATION_STATUSES) if (r.citations.byStatus[status] > 0) m.citations.add(r.citations.byStatus[status], { [ATTR_ROUTE]: route, [ATTR_CITATION_STATUS]: status });
  if (r.entropy) {
    if (r.entropy.reliable && r.entropy.normalized !== null) m.entropy.record(r.entropy.normalized, base);
    else m.degenerate.add(1, { ...base, [ATTR_REASON]: r.entropy.reasons[0]?.startsWith("all ") && r.entropy.reasons[0].includes("identical") ? "identical_samples" : "unreliable" });
  }
  // Claim consistency, per route: a degenerate resample set (identical samples…) measured nothing,
  // and counting its claims would dilute the unstable share with stability nobody observed.
  const cc = r.claimConsistency;
  if (cc && !cc.degenerate) {
    m.claimsResampled.add(cc.measured, { [ATTR_ROUTE]: route });
    m.claimsUnstable.add(cc.unstable, { [ATTR_ROUTE]: route });
  }
  m.duration.record(params.durationS, base);
}

/** Marks the evaluation span failed, with a low-cardinality error type. */
export function recordFailure(span: Span, reason: string, message: string): void {
  span.setAttribute(ATTR_ERROR_TYPE, reason);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

/**
 * One Monitor.guard() decision as telemetry reads it (sdk/guard-types.ts GuardDecision satisfies it):
 * the decision, its route label (already capped), how long it took, the text it let out, a bypass's
 * reason, and the score and verdict when the answer was scored.
 */
export interface GuardDecisionRecord {
  readonly decision: string;
  readonly route: string;
  readonly durationMs: number;
  readonly text: string;
  readonly reason?: string;
  readonly score?: number;
  readonly evaluation?: { readonly verdict: string; readonly score: number | null };
}

/** What recordGuardDecision records with: the logger and instruments in use now, and the content policy. */
export interface GuardRecordParams {
  readonly logger: Logger;
  readonly instruments: Instruments;
  readonly content: ContentPolicy;
  /** The context the event is emitted in (the host's active one by default). */
  readonly context?: Context;
}

/**
 * Records one guard decision: a gen_ai.guardrail.result event (component groundwatch, result type
 * "decision" and value pass|block|correct|bypass, a bypass's reason, risk category ungrounded with
 * risk score 1 − groundedness when scored, source OUTPUT; the text let out only with content
 * capture, through the content policy: a throwing redact hook makes the event without it), and the
 * decision counter and duration histogram by route and decision (bypasses also by reason).
 */
export function recordGuardDecision(d: GuardDecisionRecord, params: GuardRecordParams): void {
  const score = d.score ?? d.evaluation?.score ?? null;
  const reason = d.decision === "bypass" ? (d.reason ?? "unknown") : undefined;
  const content = params.content.record(
    "guard",
    d.route,
    (): Attributes => ({ [ATTR_GEN_AI_GUARDRAIL_CONTENT_OUTPUT_VALUE]: params.content.text(d.text) }),
    (): Attributes => ({}),
  );
  const attributes: Attributes = {
    [ATTR_GEN_AI_GUARDRAIL_COMPONENT_NAME]: GUARDRAIL_COMPONENT,
    [ATTR_GEN_AI_GUARDRAIL_RESULT_TYPE]: GUARDRAIL_RESULT_TYPE_DECISION,
    [ATTR_GEN_AI_GUARDRAIL_RESULT_VALUE]: d.decision,
    ...(reason !== undefined ? { [ATTR_GEN_AI_GUARDRAIL_RESULT_REASON]: reason } : {}),
    [ATTR_GEN_AI_GUARDRAIL_RISK_CATEGORY]: GUARDRAIL_RISK_UNGROUNDED,
    ...(score !== null ? { [ATTR_GEN_AI_GUARDRAIL_RISK_SCORE]: 1 - score } : {}),
    [ATTR_GEN_AI_GUARDRAIL_SOURCE]: GUARDRAIL_SOURCE_OUTPUT,
    [ATTR_ROUTE]: d.route,
    ...(d.evaluation ? { [ATTR_VERDICT]: d.evaluation.verdict } : {}),
    ...content,
  };
  params.logger.emit({ eventName: EVENT_GEN_AI_GUARDRAIL_RESULT, attributes, ...(params.context ? { context: params.context } : {}) });
  const labels: Attributes = { [ATTR_ROUTE]: d.route, [ATTR_GUARD_DECISION]: d.decision };
  params.instruments.guardDecisions.add(1, reason !== undefined ? { ...labels, [ATTR_REASON]: reason } : labels);
  params.instruments.guardDuration.record(Math.max(0, d.durationMs) / 1000, labels);
}
