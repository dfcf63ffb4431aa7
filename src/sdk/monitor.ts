import type { Span } from "@opentelemetry/api";
import { ROOT_CONTEXT, context as otelContext, diag, trace } from "@opentelemetry/api";
import { resolveBackendSettings } from "../config/hub.ts";
import type { EvaluationSummary } from "../telemetry/summary.ts";
import type { WorkerPool } from "../workers/worker-pool.ts";
import { PoolError, createWorkerPool, workerUrl } from "../workers/worker-pool.ts";
import { countLiveMonitor } from "./live-monitors.ts";
import type { ObservableSources } from "../telemetry/instruments.ts";
import { createProviderBinding } from "../telemetry/providers.ts";
import { createFlaggedRing, flaggedAnswerOf } from "../telemetry/flagged.ts";
import type { RecordingOptions } from "../telemetry/record.ts";
import { captureText, recordEvaluation, recordFailure } from "../telemetry/record.ts";
import { ATTR_LIMIT, ATTR_LIMITS, ATTR_REASON, ATTR_RESAMPLE_OUTCOME, ATTR_ROUTE, SPAN_EVALUATE } from "../telemetry/semconv.ts";
import type { MonitorOptions, ResolvedMonitorOptions } from "./options.ts";
import { resolveMonitorOptions, scoringWorkerData } from "./options.ts";
import { createCalibrationState } from "./calibration-state.ts";
import type { Sampler } from "./sampling.ts";
import { createSampler } from "./sampling.ts";
import type { ScoringRequest, ScoringWorkerData } from "./worker.ts";
import type { Resampler } from "./resample.ts";
import { createResampler } from "./resample.ts";
import { copyInput, readRouting } from "./input.ts";
import type { FlaggedAnswer, FlaggedPage, FlaggedPageQuery, FlaggedQuery } from "../telemetry/flagged.ts";
import type { Monitor, MonitorHealth, MonitorStats, ObserveInput, ObserveOptions } from "./types.ts";
import type { Job } from "./scheduler.ts";
import { Scheduler } from "./scheduler.ts";
import { createResampleStage } from "./resample-stage.ts";
import { createRouteTallies } from "./route-tally.ts";
import { checkStartup } from "./startup-checks.ts";
import { createReviewSpool } from "./review-spool.ts";

/**
 * observe() re-resolves the global MeterProvider on every this-many calls (and on the first);
 * recording an evaluation, a drop or a failure re-resolves it every time. A late check loses
 * nothing: what observe() feeds are cumulative tallies read by observable counters.
 */
const METER_CHECK_EVERY = 16;

/**
 * Creates a monitor. Options are validated here (a bad one throws a ConfigError naming
 * it); after that, nothing the monitor does throws into the host. An edge that has resolved
 * `options` already (the collector) passes that resolution, so that the monitor runs the
 * configuration the edge reported.
 */
export function createMonitor(options: MonitorOptions = {}, preResolved?: ResolvedMonitorOptions): Monitor {
  let resolved: ResolvedMonitorOptions = preResolved ?? resolveMonitorOptions(options);
  const env = options.env ?? process.env;
  const scoreOptions = resolved.score;
  const backendSettings = resolveBackendSettings(env);
  checkStartup(resolved, scoreOptions, backendSettings.hubCacheDir);
  // Fitted on groundwatch's examples, or with another backend: warned about, and refused for drift.
  const calibrationState = createCalibrationState(resolved, scoreOptions.backend);
  const releaseLive = countLiveMonitor(resolved.workers);
  const onEvaluation = options.onEvaluation;
  let onEvaluationFailed = false;
  const random = options.random ?? Math.random;
  const now = options.now ?? (() => performance.now());
  let sampler: Sampler = createSampler(resolved.sampling, random);

  const counts = { seen: 0, notSampled: 0, sampled: 0, scored: 0, dropped: {} as Record<string, number>, failed: {} as Record<string, number> };
  let accepting = true;
  const resampler: Resampler | undefined = resolved.resample ? createResampler(resolved.resample, { now, random }) : undefined;
  const tallies = createRouteTallies({
    maxRoutes: resolved.maxRoutes,
    preset: Object.keys(resolved.sampling.routes ?? {}).filter((r) => !r.includes("*")),
    driftWindowSize: resolved.drift.windowSize,
    driftMinScores: resolved.drift.minScores,
    driftReference: (route) => calibrationState.driftReference(route),
  });
  const routeLabels = tallies.labels;
  const sources: ObservableSources & { workersAlive?: () => number | undefined } = { queueDepth: () => scheduler.waiting(), routes: tallies.routes, drift: tallies.drift, scoring: calibrationState.scoringInfo, driftRefused: calibrationState.driftRefused };
  const providers = createProviderBinding({ tracerProvider: options.tracerProvider, meterProvider: options.meterProvider, loggerProvider: options.loggerProvider, sources });
  /** observe() calls since the last check of the global MeterProvider. */
  let sinceMeterCheck = METER_CHECK_EVERY;

  const drop = (route: string, reason: string): void => {
    counts.dropped[reason] = (counts.dropped[reason] ?? 0) + 1;
    providers.instruments().dropped.add(1, { [ATTR_ROUTE]: route, [ATTR_REASON]: reason });
  };
  const fail = (route: string, reason: string): void => {
    counts.failed[reason] = (counts.failed[reason] ?? 0) + 1;
    providers.instruments().failed.add(1, { [ATTR_ROUTE]: route, [ATTR_REASON]: reason });
  };

  // The answers behind the page: the most recent flagged ones per route label, bytes bounded.
  const flaggedRing = createFlaggedRing({ perRoute: resolved.flaggedPerRoute, maxBytes: resolved.flaggedMaxBytes, onDrop: (reason) => providers.instruments().flaggedDropped.add(1, { [ATTR_REASON]: reason }) });

  // The review spool (review.dir, with content capture): flagged answers and a sample of grounded ones.
  const reviewSpool = resolved.review ? createReviewSpool({ review: resolved.review, random, redact: options.redact, instruments: () => providers.instruments() }) : undefined;

  const workerData: ScoringWorkerData = scoringWorkerData(resolved, backendSettings);
  let pool: WorkerPool<ScoringRequest, EvaluationSummary> | undefined;
  let poolError: Error | undefined;
  /** The scorer's warnings, carried back by the workers' "ready" (see MonitorHealth.warnings). */
  let scorerWarnings: readonly string[] = [];
  /** Set by shutdown(): jobs the closing pool gives back are counted "shutdown". */
  let closing = false;

  // Resampling stage, between the queue and the workers: jobs whose resample is waiting or running,
  // and jobs back from it, scored before the queue.
  const resampleStage = createResampleStage({ resampler, scheduler: () => scheduler, spanRelation: resolved.spanRelation, accepting: () => accepting, instruments: () => providers.instruments() });
  const scheduler: Scheduler = new Scheduler({
    now,
    scoringShare: resolved.scoringShare,
    workers: resolved.workers,
    inFlightPerWorker: resolved.inFlightPerWorker,
    queueSize: resolved.queueSize,
    queueBytes: resolved.queueBytes,
    workersState: () => (!pool && !poolError ? "starting" : pool && pool.alive === 0 && !closing ? "down" : "open"),
    score: (job) => score(job),
    stage: () => resampleStage,
  });

  const poolReady = createWorkerPool<ScoringRequest, EvaluationSummary>(workerUrl(import.meta.url), workerData, {
    size: resolved.workers,
    timeoutMs: resolved.timeoutMs,
    // A worker came back (or went): resume dispatching.
    onChange: () => scheduler.pump(),
    onRestart: (cause, message) => {
      providers.instruments().workerRestarts.add(1, { [ATTR_REASON]: cause });
      diag.warn(`groundwatch: a scoring worker was replaced (${cause}: ${message})`);
    },
  }).then(
    (p) => {
      pool = p;
      scorerWarnings = p.warnings;
      for (const warning of scorerWarnings) diag.warn(`groundwatch: ${warning}`);
      scheduler.pump();
    },
    (error: unknown) => {
      poolError = error instanceof Error ? error : new Error(String(error));
      diag.error(`groundwatch: scoring workers failed to start: ${poolError.message}`);
      scheduler.pump();
    },
  );
  sources.workersAlive = () => pool?.alive;

  /** The failure reason for a job that got no result. */
  const failureReason = (error: unknown): string => {
    if (error instanceof PoolError) {
      if (error.failure === "closed") return closing ? "shutdown" : "scorer_unavailable";
      if (error.failure === "unavailable") return "scorer_unavailable";
      return error.failure; // timeout, worker_crashed
    }
    return pool ? "scorer_error" : "scorer_unavailable";
  };

  /** Records a scored result; a throwing redact hook records it again without content (never unredacted). */
  const record = (job: Job, result: EvaluationSummary, span: Span, durationS: number): void => {
    const limits = result.limits;
    if (limits.length > 0) span.setAttribute(ATTR_LIMITS, [...limits]);
    // The events are emitted in the request's context; outside any request span, in the evaluation span's, so they always carry a trace id.
    const eventContext = trace.getSpanContext(job.parent) ? job.parent : trace.setSpan(job.parent, span);
    const instruments = providers.instruments();
    const base = { result, route: job.route, span, eventContext, logger: providers.logger(), instruments, durationS };
    let recording: RecordingOptions = { ...resolved, ...(options.redact ? { redact: options.redact } : {}) };
    try {
      recordEvaluation({ ...base, options: recording });
    } catch (error) {
      if (!options.redact || !resolved.captureContent) throw error;
      diag.error(`groundwatch: the redact hook threw (${(error as Error).message}); the evaluation on route ${job.route} is recorded without content`);
      recording = { ...resolved, captureContent: false };
      recordEvaluation({ ...base, options: recording });
    }
    keepFlagged(result, job, span, recording);
    reviewSpool?.offer(job.observation, result, { route: job.route, traceId: span.spanContext().traceId, spanId: span.spanContext().spanId });
    counts.scored++;
    for (const limit of limits) instruments.limited.add(1, { [ATTR_ROUTE]: job.route, [ATTR_LIMIT]: limit });
    calibrationState.scored(result.backend, result.threshold);
    if (result.score !== null) tallies.addScore(job.route, result.score);
    if (onEvaluation) notifyEvaluation(onEvaluation, job.route, result, durationS);
  };
  /** Keeps an answer that is not grounded in the ring, its text (question, answer, claims, documents' names) only as the recording captured it (a throwing redact hook: without). */
  const keepFlagged = (result: EvaluationSummary, job: Job, span: Span, recording: RecordingOptions): void => {
    if (result.verdict === "grounded") return;
    const at = { route: job.route, traceId: span.spanContext().traceId, spanId: span.spanContext().spanId };
    let entry: ReturnType<typeof flaggedAnswerOf>;
    try {
      entry = flaggedAnswerOf(result, at, recording.captureContent ? { capture: (text) => captureText(text, recording), input: job.observation } : undefined);
    } catch {
      entry = flaggedAnswerOf(result, at);
    }
    if (entry) flaggedRing.add(entry);
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
      const { content: _content, reviewClaims: _reviewClaims, ...rest } = result;
      const returned: unknown = callback({ route, durationMs: durationS * 1000, result: rest });
      if (returned instanceof Promise) returned.catch(report);
    } catch (error) {
      report(error);
    }
  };

  /** Scores one job in a worker under its evaluation span, and records the result or why there is none. */
  const score = async (job: Job): Promise<void> => {
    const started = now();
    let span: Span | undefined;
    try {
      const links = resolved.spanRelation === "link" && job.parentSpan ? [{ context: job.parentSpan }] : [];
      span = providers.tracer().startSpan(
        SPAN_EVALUATE,
        { links, attributes: { [ATTR_ROUTE]: job.route, ...job.attributes, ...(job.resampleOutcome ? { [ATTR_RESAMPLE_OUTCOME]: job.resampleOutcome } : {}) } },
        resolved.spanRelation === "child" ? job.parent : ROOT_CONTEXT,
      );
      if (!pool) throw poolError ?? new PoolError("unavailable", "scoring workers unavailable");
      // The pool times the job out (and replaces its worker), so a runaway job cannot hold the queue.
      const result = await pool.run(job.observation);
      record(job, result, span, (now() - started) / 1000);
    } catch (error) {
      const reason = failureReason(error);
      const message = error instanceof Error ? error.message : String(error);
      fail(job.route, reason);
      if (span) recordFailure(span, reason, message);
      diag.warn(`groundwatch: evaluation failed (${reason}) on route ${job.route}: ${message}`);
    } finally {
      span?.end();
    }
  };

  return {
    reviewDir: resolved.review?.dir,
    observe(input: ObserveInput | Omit<ObserveInput, "route">, observeOptions?: ObserveOptions): void {
      // Where this observation stands, so an unexpected error still leaves it accounted for.
      let stage: "none" | "seen" | "sampled" | "settled" = "none";
      let route = "unknown";
      let tally = { seen: 0, notSampled: 0, sampled: 0 };
      try {
        if (++sinceMeterCheck >= METER_CHECK_EVERY) {
          sinceMeterCheck = 0;
          providers.instruments();
        }
        providers.check();
        // The route and the override first: the rest is read only for an observation that is sampled.
        const routing = readRouting(input, observeOptions);
        route = routeLabels.label(routing.route);
        tally = tallies.tallyFor(route);
        counts.seen++;
        tally.seen++;
        stage = "seen";
        if (!routing.ok) {
          // Not sampled by the usual decision: input that cannot be read is always counted as failed.
          counts.sampled++;
          tally.sampled++;
          stage = "settled";
          fail(route, "invalid_input");
          diag.warn(`groundwatch: observe() on route ${route} got an invalid "${routing.field}": ${routing.why}`);
          return;
        }
        const active = observeOptions?.parent ?? otelContext.active();
        const spanContext = trace.getSpanContext(active);
        // Sampling rules match the route itself: one past the label cap keeps its own rate.
        const decision = routing.sample === "always" ? true : routing.sample === "never" ? false : sampler.decide(routeLabels.clean(routing.route), spanContext?.traceId);
        if (!decision) {
          counts.notSampled++;
          tally.notSampled++;
          stage = "settled";
          return;
        }
        counts.sampled++;
        tally.sampled++;
        stage = "sampled";
        // Everything else of the host's is read here, once, inside the guard, and copied.
        const copied = copyInput(input as object, routing);
        if (!copied.ok) {
          stage = "settled";
          fail(route, "invalid_input");
          diag.warn(`groundwatch: observe() on route ${route} got an invalid "${copied.field}": ${copied.why}`);
          return;
        }
        if (!accepting) {
          stage = "settled";
          return drop(route, "shutdown");
        }
        const refused = scheduler.enqueue({ route, observation: copied.observation, parent: active, parentSpan: spanContext, attributes: copied.attributes, bytes: copied.bytes });
        stage = "settled";
        if (refused) return drop(route, refused);
        scheduler.pump();
      } catch (error) {
        // observe() must never throw into the host, and nothing goes unaccounted.
        if (stage === "seen") {
          counts.sampled++;
          tally.sampled++;
        }
        if (stage === "seen" || stage === "sampled") fail(route, "internal_error");
        diag.error(`groundwatch: observe() failed: ${(error as Error).message}`);
      }
    },
    flush(): Promise<void> {
      return scheduler.flush();
    },
    async shutdown(deadlineMs = 10_000): Promise<void> {
      accepting = false;
      // Resampler calls in flight are aborted (their observations are scored without entropy);
      // the draining below is for scoring, not for the host's model.
      resampler?.close();
      resampleStage.startResamples();
      for (const job of await scheduler.drain(deadlineMs)) drop(job.route, "shutdown");
      closing = true;
      releaseLive();
      await poolReady;
      await pool?.close();
      // The pool rejected what was in flight: wait until each of those is counted.
      await scheduler.settled();
      reviewSpool?.close();
    },
    reload(): void {
      try {
        const next = resolveMonitorOptions(options);
        sampler = createSampler(next.sampling, random);
        resolved = { ...resolved, sampling: next.sampling };
      } catch (error) {
        diag.error(`groundwatch: reload kept the previous sampling rates: ${(error as Error).message}`);
      }
    },
    stats(): MonitorStats {
      return { seen: counts.seen, notSampled: counts.notSampled, sampled: counts.sampled, scored: counts.scored, dropped: { ...counts.dropped }, failed: { ...counts.failed }, pending: scheduler.pending(), resample: { calls: { ...resampleStage.counts() }, inFlight: resampler?.inFlight ?? 0 }, warnings: [...scorerWarnings] };
    },
    flagged(query?: FlaggedQuery): FlaggedAnswer[] {
      try {
        return flaggedRing.read(query);
      } catch (error) {
        diag.error(`groundwatch: flagged() failed: ${(error as Error).message}`);
        return [];
      }
    },
    flaggedPage(query?: FlaggedPageQuery): FlaggedPage {
      try {
        return flaggedRing.page(query);
      } catch (error) {
        diag.error(`groundwatch: flaggedPage() failed: ${(error as Error).message}`);
        // Nothing read: the reader tries again from where it was.
        return { flagged: [], cursor: query?.after ?? "", more: false, missed: 0 };
      }
    },
    routeLabel(route: string): string {
      return routeLabels.label(route);
    },
    hasRoomFor(routes: readonly string[], bytes = 0): boolean {
      const expected = Math.ceil(routes.reduce((n, r) => n + sampler.rateFor(r), 0));
      return scheduler.hasRoom(expected, bytes);
    },
    async ready(): Promise<void> {
      await poolReady;
      if (poolError) throw poolError;
    },
    health(): MonitorHealth {
      const workers = { alive: pool?.alive ?? 0, size: resolved.workers, restarts: pool?.restarts ?? 0 };
      const queueState = { depth: scheduler.pending(), bytes: scheduler.bytes() };
      const warnings = [...scorerWarnings];
      const not = (reason: string): MonitorHealth => ({ ready: false, reason, workers, queue: queueState, warnings });
      if (closing || !accepting) return not("shut down");
      if (poolError) return not(`scoring workers failed to start: ${poolError.message}`);
      if (!pool) return not("scoring workers are starting");
      if (pool.alive === 0) return not(`no scoring worker is running; replacing it${pool.lastError ? ` (last start failed: ${pool.lastError})` : ""}`);
      return { ready: true, workers, queue: queueState, warnings };
    },
  };
}
