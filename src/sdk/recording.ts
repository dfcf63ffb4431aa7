import type { Span } from "@opentelemetry/api";
import { diag, trace } from "@opentelemetry/api";
import type { FlaggedRing } from "../evaluation/flagged-ring.ts";
import type { EvaluationSummary } from "../evaluation/types.ts";
import { evaluationEventOf, flaggedAnswerOf } from "../evaluation/views.ts";
import type { ProviderBinding } from "../telemetry/providers.ts";
import type { ContentPolicy } from "../telemetry/content-policy.ts";
import { recordEvaluation } from "../telemetry/record.ts";
import { ATTR_LIMIT, ATTR_LIMITS, ATTR_ROUTE } from "../telemetry/semconv.ts";
import type { MonitorOptions, ResolvedMonitorOptions } from "./options.ts";
import type { ReviewSpool } from "./review-spool.ts";
import type { Job } from "./scheduler.ts";

/**
 * Where a scored result goes on the host thread, each through its view (evaluation/views.ts): the
 * span, events and metrics (telemetry), the ring of answers not grounded, the review spool, and the
 * host's onEvaluation callback. Content follows the content policy's one rule (telemetry/content-policy.ts):
 * a throwing redact hook makes each sink's record without content (never unredacted), counted.
 */
export interface RecordingDeps {
  /** The monitor's options as resolved now. */
  readonly resolved: () => ResolvedMonitorOptions;
  /** Which user text the span, the ring and the spool carry (the spool holds the same policy). */
  readonly content: ContentPolicy;
  readonly onEvaluation: MonitorOptions["onEvaluation"];
  readonly providers: ProviderBinding;
  readonly flaggedRing: FlaggedRing;
  readonly reviewSpool: ReviewSpool | undefined;
  /** Told of every result recorded (the monitor's counts, calibration state and score tallies). */
  readonly scored: (route: string, result: EvaluationSummary) => void;
}

/** Records a scored result; never throws what the host's callback throws. */
export type RecordResult = (job: Job, result: EvaluationSummary, span: Span, durationS: number) => void;

export function createRecording(deps: RecordingDeps): RecordResult {
  const { content, onEvaluation, providers, flaggedRing, reviewSpool } = deps;
  let onEvaluationFailed = false;

  /** Keeps an answer that is not grounded (flagged or unscorable) in the ring, its text (question, answer, claims, documents' names) as the content policy carries it (a throwing redact hook: without). */
  const keepFlagged = (result: EvaluationSummary, job: Job, span: Span): number | undefined => {
    if (result.verdict === "grounded") return undefined;
    const at = { route: job.route, traceId: span.spanContext().traceId, spanId: span.spanContext().spanId };
    const entry = content.record("flagged", job.route, () => flaggedAnswerOf(result, at, { capture: (text) => content.text(text), input: job.observation }), () => flaggedAnswerOf(result, at));
    return entry ? flaggedRing.add(entry) : undefined;
  };

  /** Calls the host's onEvaluation; what it throws (or its promise rejects with) is reported once and never reaches scoring. */
  const notifyEvaluation = (callback: NonNullable<MonitorOptions["onEvaluation"]>, route: string, result: EvaluationSummary, durationS: number): void => {
    const report = (error: unknown): void => {
      if (onEvaluationFailed) return;
      onEvaluationFailed = true;
      try {
        diag.error(`groundwatch: the onEvaluation callback threw (${error instanceof Error ? error.message : String(error)}); later errors from it are not reported`);
      } catch {
        // An error whose message cannot be read: nothing more to say.
      }
    };
    try {
      const returned: unknown = callback(evaluationEventOf(route, durationS, result));
      if (returned instanceof Promise) returned.catch(report);
    } catch (error) {
      report(error);
    }
  };

  return (job, result, span, durationS) => {
    const resolved = deps.resolved();
    const limits = result.limits;
    if (limits.length > 0) span.setAttribute(ATTR_LIMITS, [...limits]);
    // The events are emitted in the request's context; outside any request span, in the evaluation span's, so they always carry a trace id.
    const eventContext = trace.getSpanContext(job.parent) ? job.parent : trace.setSpan(job.parent, span);
    const instruments = providers.instruments();
    const base = { result, route: job.route, span, eventContext, logger: providers.logger(), instruments, durationS };
    recordEvaluation({ ...base, options: { spanEvent: resolved.spanEvent, openInference: resolved.openInference, content } });
    // The ring's time is the spool record's too: an answer filled back from the spool at start keeps the time it had.
    const keptAt = keepFlagged(result, job, span);
    reviewSpool?.offer(job.observation, result, { route: job.route, traceId: span.spanContext().traceId, spanId: span.spanContext().spanId }, keptAt);
    deps.scored(job.route, result);
    for (const limit of limits) instruments.limited.add(1, { [ATTR_ROUTE]: job.route, [ATTR_LIMIT]: limit });
    if (onEvaluation) notifyEvaluation(onEvaluation, job.route, result, durationS);
  };
}
