import type { Attributes, Context, MeterProvider, Span, SpanContext, TracerProvider } from "@opentelemetry/api";
import { ProxyTracerProvider, ROOT_CONTEXT, context as otelContext, diag, metrics, trace } from "@opentelemetry/api";
import type { LoggerProvider } from "@opentelemetry/api-logs";
import { createNoopLogger, logs } from "@opentelemetry/api-logs";
import type { ContextInput } from "../core/context.ts";
import { contextTexts } from "../core/context.ts";
import { explainCalibrationFailure } from "../core/calibration.ts";
import type { DriftTracker } from "../core/drift.ts";
import { createDriftTracker } from "../core/drift.ts";
import type { Sample } from "../core/entropy/semantic-entropy.ts";
import { resolveBackendSettings } from "../config/hub.ts";
import type { EvaluationSummary } from "../telemetry/summary.ts";
import { onnxRuntimeNeed, resolveModelDir } from "../nli/registry.ts";
import { OnnxRuntimeMissingError, onnxRuntimeResolvable } from "../nli/onnx/runtime.ts";
import type { WorkerPool } from "../nli/worker-pool.ts";
import { PoolError, createWorkerPool, workerUrl } from "../nli/worker-pool.ts";
import { createRouteLabels } from "../telemetry/route-labels.ts";
import { countLiveMonitor } from "./live-monitors.ts";
import type { Instruments } from "../telemetry/instruments.ts";
import type { ObservableSources } from "../telemetry/instruments.ts";
import { createInstruments, isNoopMeter, observeSources } from "../telemetry/instruments.ts";
import { recordEvaluation, recordFailure } from "../telemetry/record.ts";
import { ATTR_LIMIT, ATTR_LIMITS, ATTR_REASON, ATTR_RESAMPLE_OUTCOME, ATTR_ROUTE, ATTR_TOKEN_KIND, EVENT_GEN_AI_EVALUATION_RESULT, METRICS, SPAN_EVALUATE } from "../telemetry/semconv.ts";
import type { MonitorOptions, ResolvedMonitorOptions } from "./options.ts";
import { resolveMonitorOptions, scoringWorkerData } from "./options.ts";
import { createCalibrationState } from "./calibration-state.ts";
import type { Sampler } from "./sampling.ts";
import { createSampler } from "./sampling.ts";
import type { ScoringRequest, ScoringWorkerData } from "./worker.ts";
import type { ResampleDraw, ResampleOutcome, Resampler } from "./resample.ts";
import { RESAMPLE_OUTCOMES, createResampler } from "./resample.ts";
import { sampleChars } from "./copy.ts";
import { copyInput, readHead } from "./input.ts";

/** What the host passes at the point where it has the retrieved context and the answer. */
export interface ObserveInput {
  /** Route template (e.g. "/api/advice/:id"), never the URL: it labels metrics. */
  readonly route: string;
  readonly context: ContextInput;
  readonly answer: string;
  readonly question?: string;
  /** Resamples of the same question, for semantic entropy. */
  readonly samples?: readonly Sample[];
  /** Extra attributes for the evaluation span (not for metrics). */
  readonly attributes?: Attributes;
  /** "always" or "never" overrides the sampling rate for this call. */
  readonly sample?: "always" | "never";
}

/**
 * Where every observation went. seen = sampled + notSampled; sampled = scored + dropped + failed + pending.
 * `resample` counts calls to the host's sampler, apart from that identity: an observation whose
 * resample failed is still scored (without a reliable entropy).
 */
export interface MonitorStats {
  readonly seen: number;
  readonly notSampled: number;
  readonly sampled: number;
  readonly scored: number;
  readonly dropped: Readonly<Record<string, number>>;
  readonly failed: Readonly<Record<string, number>>;
  /** Queued, being resampled, or being scored. */
  readonly pending: number;
  /**
   * Resampler calls by outcome (every outcome present, 0 when none), and how many run now; all
   * zero without the `resample` option. `budget` and `busy` count observations picked for
   * resampling but scored without entropy, no call made: the calls-per-minute budget was spent,
   * or maxConcurrent calls were running with as many waiting.
   */
  readonly resample: { readonly calls: Readonly<Record<ResampleOutcome, number>>; readonly inFlight: number };
  /** What the scorer said the user must know when the workers started (as in health()); empty until then. */
  readonly warnings: readonly string[];
}

export interface Monitor {
  /** Returns at once and never throws; scoring happens off the request path. */
  observe(input: ObserveInput): void;
  /** Resolves when every observation sampled so far has been scored, dropped or failed. */
  flush(): Promise<void>;
  /** Stops accepting observations, drains within `deadlineMs` (default 10 s), drops the rest (counted), stops workers. */
  shutdown(deadlineMs?: number): Promise<void>;
  /**
   * The label this monitor records a route under on its metrics: the route sanitised, or
   * `__other__` once maxRoutes distinct routes are labelled. Every metric labelled by a route goes
   * through it (a collector's own counters too), so the cap is the same everywhere.
   */
  routeLabel(route: string): string;
  /** Re-reads sampling rates from the config file and environment, without a restart. */
  reload(): void;
  stats(): MonitorStats;
  /**
   * Whether the queue has room for the observations of these routes, counting each by its
   * sampling rate (the expected number sampled, rounded up), and for `bytes` more text in the
   * queue's byte budget (queueBytes). A service answers 429 when not.
   */
  hasRoomFor(routes: readonly string[], bytes?: number): boolean;
  /** Resolves once the scoring workers are ready (or rejects with why they could not start). */
  ready(): Promise<void>;
  /**
   * Whether the monitor can score now: false while its workers start, when they failed to start,
   * while no worker is running (a dead one is being replaced), and after shutdown; `reason` says which.
   */
  health(): MonitorHealth;
}

/** What health() reports; readiness endpoints answer from `ready`. */
export interface MonitorHealth {
  readonly ready: boolean;
  /** Why not ready (absent when ready). */
  readonly reason?: string;
  readonly workers: { readonly alive: number; readonly size: number; readonly restarts: number };
  /** Observations queued or being scored, and the text they hold (≈ bytes). */
  readonly queue: { readonly depth: number; readonly bytes: number };
  /**
   * What the scorer said the user must know when the workers started: a fallback to the
   * triage-grade offline backend, a judge called without an API key. Each is also said once with
   * diag.warn. Empty until the workers are ready, and when there is nothing to say.
   */
  readonly warnings: readonly string[];
}

interface Job {
  readonly route: string;
  readonly observation: ScoringRequest;
  readonly parent: Context;
  readonly parentSpan: SpanContext | undefined;
  readonly attributes: Attributes | undefined;
  /** Text the job holds (≈ bytes), counted against queueBytes until it settles; resamples add theirs once drawn. */
  readonly bytes: number;
  /** Whether it is resampled before scoring: decided once, when it reaches the head of the queue. */
  picked?: boolean;
  /** How its resample call ended, for the evaluation span. */
  readonly resampleOutcome?: ResampleOutcome;
}

/** Idle time after a job of `durationMs` so that scoring keeps at most `share` of a core busy. */
export function cooldownMs(durationMs: number, share: number): number {
  return share >= 1 ? 0 : durationMs * (1 / share - 1);
}
const PACKAGE = "groundwatch";
/**
 * observe() re-resolves the global MeterProvider on every this-many calls (and on the first);
 * recording an evaluation, a drop or a failure re-resolves it every time. A late check loses
 * nothing: what observe() feeds are cumulative tallies read by observable counters.
 */
const METER_CHECK_EVERY = 16;

/**
 * `resolve()` gives the provider to use now, `bind` what the monitor takes from it (a tracer,
 * a logger). The returned function re-binds only when the provider is another object: a
 * reference comparison, so it is cheap enough for every call.
 */
function boundTo<P, T>(resolve: () => P, bind: (provider: P) => T): () => T {
  let provider = resolve();
  let bound = bind(provider);
  return () => {
    const current = resolve();
    if (current !== provider) {
      provider = current; // a provider that fails is not retried on every call
      try {
        bound = bind(current);
      } catch (error) {
        diag.error(`groundwatch: could not use the registered OpenTelemetry provider: ${(error as Error).message}`);
      }
    }
    return bound;
  };
}

/**
 * Whether the tracer provider is the API's no-op one. `trace.getTracerProvider()` is a
 * ProxyTracerProvider; without a registered SDK its delegate is the API's internal no-op
 * provider, the same object any fresh ProxyTracerProvider falls back to. Nothing is started
 * on it, so the check creates no span.
 */
function isNoopTracerProvider(provider: TracerProvider): boolean {
  const delegate = (provider as { getDelegate?: () => TracerProvider }).getDelegate?.() ?? provider;
  return delegate === new ProxyTracerProvider().getDelegate() || delegate.constructor.name === "NoopTracerProvider";
}

/**
 * Whether the logger provider is the Logs API's no-op one. Without a registered SDK,
 * `logs.getLoggerProvider()` is a proxy whose delegate is the no-op provider, which hands out
 * NoopLogger instances.
 */
function isNoopLoggerProvider(provider: LoggerProvider): boolean {
  const delegate = (provider as { _getDelegate?: () => LoggerProvider })._getDelegate?.() ?? provider;
  const logger = delegate.getLogger(PACKAGE);
  return logger instanceof createNoopLogger().constructor || logger.constructor.name === "NoopLogger";
}

const START_SDK = "Start the OpenTelemetry SDK (e.g. NodeSDK) before the first request, or pass";

/**
 * Creates a monitor. Options are validated here (a bad one throws a ConfigError naming
 * it); after that, nothing the monitor does throws into the host.
 */
export function createMonitor(options: MonitorOptions = {}): Monitor {
  let resolved: ResolvedMonitorOptions = resolveMonitorOptions(options);
  const env = options.env ?? process.env;
  const scoreOptions = resolved.score;
  const backendSettings = resolveBackendSettings(env);
  // A model that cannot be found is a configuration error: raise it now, not in a worker.
  if (scoreOptions.model !== undefined) resolveModelDir(scoreOptions.model, backendSettings.hubCacheDir);
  // So is asking for the onnx backend without its optional runtime installed.
  const runtimeNeed = onnxRuntimeNeed(scoreOptions, backendSettings.hubCacheDir);
  if (runtimeNeed?.need === "required" && !onnxRuntimeResolvable()) throw new OnnxRuntimeMissingError(runtimeNeed.field, runtimeNeed.value);
  const cal = resolved.calibration;
  // A calibration that established nothing is applied (requireValidCalibration refuses it), but never silently.
  const failed = cal ? explainCalibrationFailure(cal) : undefined;
  if (cal && failed) {
    const applied = resolved.thresholdSource === "calibration" ? `Its threshold ${cal.threshold} is applied but is not trustworthy` : "Its threshold is not applied (one is set explicitly)";
    const what = cal.verdict ? `failed (verdict ${cal.verdict}${cal.auroc ? `, AUROC ${cal.auroc.value.toFixed(3)}` : ""})` : "cannot be checked";
    diag.warn(`groundwatch: the calibration ${cal.path} ${what}: ${failed.meaning}. ${applied}. To fix: ${failed.advice}.`);
  }
  // Fitted on groundwatch's examples, or with another backend: warned about, and refused for drift.
  const calibrationState = createCalibrationState(resolved, scoreOptions.backend);
  const releaseLive = countLiveMonitor(resolved.workers);
  const onEvaluation = options.onEvaluation;
  let onEvaluationFailed = false;
  const random = options.random ?? Math.random;
  const now = options.now ?? (() => performance.now());
  let sampler: Sampler = createSampler(resolved.sampling, random);
  // Providers the host passes are used as they are. The global ones are re-resolved on use:
  // a host often creates the monitor at module load and starts its OpenTelemetry SDK later.
  // Tracers and loggers from the API's proxies delegate once a provider is registered; the
  // re-resolution also follows a provider that replaces the proxy (after trace.disable() or
  // logs.disable()). Metrics have no proxy: see bindMeter.
  const tracerProviderOption = options.tracerProvider;
  const loggerProviderOption = options.loggerProvider;
  const meterProviderOption = options.meterProvider;
  const tracer = boundTo(() => tracerProviderOption ?? trace.getTracerProvider(), (p) => p.getTracer(PACKAGE));
  const logger = boundTo(() => loggerProviderOption ?? logs.getLoggerProvider(), (p) => p.getLogger(PACKAGE));

  const counts = { seen: 0, notSampled: 0, sampled: 0, scored: 0, dropped: {} as Record<string, number>, failed: {} as Record<string, number> };
  const queue: Job[] = [];
  let inFlight = 0;
  // Resampling stage, between the queue and the workers: jobs whose draw is waiting or running,
  // and jobs back from it, scored before the queue.
  const resampler: Resampler | undefined = resolved.resample ? createResampler(resolved.resample, { now, random }) : undefined;
  const resampleCounts = Object.fromEntries(RESAMPLE_OUTCOMES.map((o) => [o, 0])) as Record<ResampleOutcome, number>;
  /** Picked for resampling, handed to the resampler from a setImmediate callback (never inside observe()). */
  const toDraw: Job[] = [];
  let drawScheduled = false;
  /** Handed to the resampler and not back yet. */
  let drawing = 0;
  const resampled: Job[] = [];
  /** Observations waiting to be scored: queued, in the resampling stage, or back from it. */
  const waiting = (): number => queue.length + toDraw.length + drawing + resampled.length;
  /** With a scoring share below 1, no job starts before this time (ms, on `now`). */
  let resumeAt = 0;
  let resumeTimer: NodeJS.Timeout | undefined;
  let accepting = true;
  const idleWaiters: Array<() => void> = [];
  /** Per-route tallies of the hot path, exported by observable counters at collection time. */
  const routes = new Map<string, { seen: number; notSampled: number; sampled: number }>();
  const drift = new Map<string, DriftTracker>();
  const sources: ObservableSources & { workersAlive?: () => number | undefined } = { queueDepth: waiting, routes, drift, scoring: calibrationState.scoringInfo, driftRefused: calibrationState.driftRefused };

  // The instruments live on one meter. Without a meterProvider option it is the global
  // provider's, and the API returns its no-op provider until the host registers one (there is
  // no proxy for metrics), so the monitor checks the global provider as it goes and, when it is
  // another object, creates the instruments again on the new meter and moves the observable
  // callbacks there (the old ones are removed, so nothing is reported twice).
  let meterProvider: MeterProvider = meterProviderOption ?? metrics.getMeterProvider();
  let meter = meterProvider.getMeter(PACKAGE);
  let m: Instruments = createInstruments(meter);
  let unobserve = observeSources(m, sources);
  /** observe() calls since the last check of the global MeterProvider. */
  let sinceMeterCheck = METER_CHECK_EVERY;
  const bindMeter = (): void => {
    if (meterProviderOption) return;
    const current = metrics.getMeterProvider();
    if (current === meterProvider) return;
    try {
      const nextMeter = current.getMeter(PACKAGE);
      const next = createInstruments(nextMeter);
      const nextUnobserve = observeSources(next, sources);
      unobserve();
      meterProvider = current;
      meter = nextMeter;
      m = next;
      unobserve = nextUnobserve;
    } catch (error) {
      meterProvider = current; // not retried on every call; the previous instruments stay in use
      diag.error(`groundwatch: could not create metrics on the registered MeterProvider: ${(error as Error).message}`);
    }
  };

  /** Said once, at the first observe(): which signals go nowhere because no provider is registered. */
  let providersChecked = false;
  const warnUnexported = (): void => {
    providersChecked = true;
    try {
      if (!tracerProviderOption && isNoopTracerProvider(trace.getTracerProvider())) {
        diag.warn(`groundwatch: no OpenTelemetry TracerProvider is registered: groundwatch evaluation spans (${SPAN_EVALUATE}) will not be exported. ${START_SDK} tracerProvider to createMonitor.`);
      }
      if (!meterProviderOption && isNoopMeter(meter)) {
        diag.warn(`groundwatch: no OpenTelemetry MeterProvider is registered: groundwatch metrics (${METRICS.score.name}, ${METRICS.evaluations.name}, groundwatch.observations.* …) will not be exported. ${START_SDK} meterProvider to createMonitor.`);
      }
      if (!loggerProviderOption && isNoopLoggerProvider(logs.getLoggerProvider())) {
        diag.warn(`groundwatch: no OpenTelemetry LoggerProvider is registered: groundwatch evaluation events (${EVENT_GEN_AI_EVALUATION_RESULT}) will not be exported. ${START_SDK} loggerProvider to createMonitor.`);
      }
    } catch (error) {
      diag.debug(`groundwatch: could not check the OpenTelemetry providers: ${(error as Error).message}`);
    }
  };

  /** The one cap on route labels (telemetry/route-labels.ts): the sampling rules' own routes are admitted first. */
  const routeLabels = createRouteLabels(
    resolved.maxRoutes,
    Object.keys(resolved.sampling.routes ?? {}).filter((r) => !r.includes("*")),
  );
  /** The tally of a route's label (created on first use; bounded by the cap). */
  const tallyFor = (label: string): { seen: number; notSampled: number; sampled: number } => {
    let tally = routes.get(label);
    if (!tally) routes.set(label, (tally = { seen: 0, notSampled: 0, sampled: 0 }));
    return tally;
  };
  const drop = (route: string, reason: string): void => {
    counts.dropped[reason] = (counts.dropped[reason] ?? 0) + 1;
    bindMeter();
    m.dropped.add(1, { [ATTR_ROUTE]: route, [ATTR_REASON]: reason });
  };
  const fail = (route: string, reason: string): void => {
    counts.failed[reason] = (counts.failed[reason] ?? 0) + 1;
    bindMeter();
    m.failed.add(1, { [ATTR_ROUTE]: route, [ATTR_REASON]: reason });
  };
  const settleIdle = (): void => {
    if (waiting() === 0 && inFlight === 0) for (const w of idleWaiters.splice(0)) w();
  };

  const workerData: ScoringWorkerData = scoringWorkerData(resolved, backendSettings);
  let pool: WorkerPool<ScoringRequest, EvaluationSummary> | undefined;
  let poolError: Error | undefined;
  /** The scorer's warnings, carried back by the workers' "ready" (see MonitorHealth.warnings). */
  let scorerWarnings: readonly string[] = [];
  /** Set by shutdown(): jobs the closing pool gives back are counted "shutdown". */
  let closing = false;
  /** Text held by queued and in-flight jobs (≈ bytes), against resolved.queueBytes. */
  let queuedBytes = 0;
  /** Settlement of every job in flight, so shutdown() returns only once each is counted. */
  const running = new Set<Promise<void>>();
  const poolReady = createWorkerPool<ScoringRequest, EvaluationSummary>(workerUrl(import.meta.url), workerData, {
    size: resolved.workers,
    timeoutMs: resolved.timeoutMs,
    // A worker came back (or went): resume dispatching.
    onChange: () => pump(),
    onRestart: (cause, message) => {
      bindMeter();
      m.workerRestarts.add(1, { [ATTR_REASON]: cause });
      diag.warn(`groundwatch: a scoring worker was replaced (${cause}: ${message})`);
    },
  }).then(
    (p) => {
      pool = p;
      scorerWarnings = p.warnings;
      for (const warning of scorerWarnings) diag.warn(`groundwatch: ${warning}`);
      pump();
    },
    (error: unknown) => {
      poolError = error instanceof Error ? error : new Error(String(error));
      diag.error(`groundwatch: scoring workers failed to start: ${poolError.message}`);
      pump();
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
    const base = { result, route: job.route, span, eventContext, logger: logger(), instruments: m, durationS };
    try {
      recordEvaluation({ ...base, options: { ...resolved, ...(options.redact ? { redact: options.redact } : {}) } });
    } catch (error) {
      if (!options.redact || !resolved.captureContent) throw error;
      diag.error(`groundwatch: the redact hook threw (${(error as Error).message}); the evaluation on route ${job.route} is recorded without content`);
      recordEvaluation({ ...base, options: { ...resolved, captureContent: false } });
    }
    counts.scored++;
    for (const limit of limits) m.limited.add(1, { [ATTR_ROUTE]: job.route, [ATTR_LIMIT]: limit });
    calibrationState.scored(result.backend, result.threshold);
    if (result.score !== null) {
      let t = drift.get(job.route);
      if (!t) {
        const reference = calibrationState.driftReference();
        drift.set(job.route, (t = createDriftTracker({ windowSize: resolved.drift.windowSize, minScores: resolved.drift.minScores, ...(reference ? { reference } : {}) })));
      }
      t.add(result.score);
    }
    if (onEvaluation) notifyEvaluation(onEvaluation, job.route, result, durationS);
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
      const { content: _content, ...rest } = result;
      const returned: unknown = callback({ route, durationMs: durationS * 1000, result: rest });
      if (returned instanceof Promise) returned.catch(report);
    } catch (error) {
      report(error);
    }
  };

  const runJob = (job: Job): void => {
    inFlight++;
    const started = now();
    let span: Span | undefined;
    const settled = (async (): Promise<void> => {
      try {
        const links = resolved.spanRelation === "link" && job.parentSpan ? [{ context: job.parentSpan }] : [];
        span = tracer().startSpan(
          SPAN_EVALUATE,
          { links, attributes: { [ATTR_ROUTE]: job.route, ...job.attributes, ...(job.resampleOutcome ? { [ATTR_RESAMPLE_OUTCOME]: job.resampleOutcome } : {}) } },
          resolved.spanRelation === "child" ? job.parent : ROOT_CONTEXT,
        );
        if (!pool) throw poolError ?? new PoolError("unavailable", "scoring workers unavailable");
        // The pool times the job out (and replaces its worker), so a runaway job cannot hold the queue.
        const result = await pool.run(job.observation);
        bindMeter();
        record(job, result, span, (now() - started) / 1000);
      } catch (error) {
        const reason = failureReason(error);
        const message = error instanceof Error ? error.message : String(error);
        fail(job.route, reason);
        if (span) recordFailure(span, reason, message);
        diag.warn(`groundwatch: evaluation failed (${reason}) on route ${job.route}: ${message}`);
      } finally {
        span?.end();
        inFlight--;
        queuedBytes -= job.bytes;
        if (resolved.scoringShare < 1) resumeAt = Math.max(resumeAt, now() + cooldownMs(now() - started, resolved.scoringShare));
      }
    })();
    running.add(settled);
    void settled.finally(() => {
      running.delete(settled);
      pump();
      settleIdle();
    });
  };

  /** Counts a resampler call by outcome, with its duration and the tokens it reported. */
  const recordDraw = (route: string, draw: Exclude<ResampleDraw, { outcome: "skipped" }>): void => {
    resampleCounts[draw.outcome]++;
    bindMeter();
    m.resampleCalls.add(1, { [ATTR_ROUTE]: route, [ATTR_RESAMPLE_OUTCOME]: draw.outcome });
    if (!("durationS" in draw)) return;
    m.resampleDuration.record(draw.durationS, { [ATTR_ROUTE]: route });
    if ("samples" in draw) {
      if (draw.usage?.promptTokens) m.resampleTokens.add(draw.usage.promptTokens, { [ATTR_ROUTE]: route, [ATTR_TOKEN_KIND]: "prompt" });
      if (draw.usage?.completionTokens) m.resampleTokens.add(draw.usage.completionTokens, { [ATTR_ROUTE]: route, [ATTR_TOKEN_KIND]: "completion" });
    } else {
      const said = `groundwatch: resampling on route ${route} failed (${draw.outcome}): ${draw.why}${draw.message !== undefined ? `: ${draw.message}` : ""}; the answer is scored without a reliable entropy`;
      // Aborting at shutdown is expected, not a fault to warn about.
      if (draw.outcome === "shutdown") diag.debug(said);
      else diag.warn(said);
    }
  };

  /** The job as it goes to scoring after its draw: with the samples (counted in queueBytes), or with why there are none. */
  const afterDraw = (job: Job, draw: ResampleDraw, n: number): Job => {
    // No call was made (over budget, busy, or skipped at shutdown): scored without entropy, as if not picked.
    if (draw.outcome === "skipped") return job;
    if (!("durationS" in draw)) return { ...job, resampleOutcome: draw.outcome };
    if (!("samples" in draw)) return { ...job, resampleOutcome: draw.outcome, observation: { ...job.observation, resample: { requested: n, failure: draw.why } } };
    const extra = sampleChars(draw.samples);
    if (queuedBytes + extra > resolved.queueBytes) {
      const failure = `the resamples (${extra} characters) did not fit the queue's byte budget (queueBytes)`;
      return { ...job, resampleOutcome: draw.outcome, observation: { ...job.observation, resample: { requested: n, failure } } };
    }
    queuedBytes += extra;
    return { ...job, bytes: job.bytes + extra, resampleOutcome: draw.outcome, observation: { ...job.observation, samples: draw.samples, resample: { requested: n } } };
  };

  /** Sends a job to the resampler; it comes back to `resampled` (exactly once) and is scored from there. */
  const startDraw = (r: Resampler, job: Job): void => {
    const o = job.observation;
    drawing++;
    r.submit({ route: job.route, question: o.question, context: contextTexts(o.context), answer: o.answer, parent: resolved.spanRelation === "child" ? job.parent : ROOT_CONTEXT }, (draw) => {
      drawing--;
      try {
        if (draw.outcome !== "skipped") recordDraw(job.route, draw);
      } catch (error) {
        diag.error(`groundwatch: recording a resample failed: ${(error as Error).message}`);
      }
      resampled.push(afterDraw(job, draw, r.n));
      pump();
    });
  };
  const startDraws = (): void => {
    drawScheduled = false;
    for (const job of toDraw.splice(0)) {
      if (resampler) startDraw(resampler, job);
      else resampled.push(job);
    }
    pump();
  };

  /** Jobs scored at once: the pump's dispatch limit. */
  const scoringSlots = resolved.scoringShare < 1 ? resolved.workers : resolved.workers * 2;
  /**
   * Moves the jobs at the head of the queue that are picked for resampling toward the resampler,
   * once they are about to be scored: no more than the workers' slots stand ready or wait to be
   * handed over (the draws themselves are bounded by the resampler), so a deep queue waits
   * as it is and each draw, and its budget decision, happens just before the job is scored. On the
   * request path (pump runs in observe()) this is the pick and a push; the resampler is reached
   * from a setImmediate callback. Observations that came with their own samples are never resampled.
   */
  const stageHead = (): void => {
    // After shutdown begins nothing more is resampled: what is left is scored as it is.
    if (!resampler || !accepting) return;
    for (let job = queue[0]; job; job = queue[0]) {
      if (job.picked === undefined) {
        const wanted = !job.observation.samples?.length && resampler.picks(job.route, job.parentSpan?.traceId);
        // Without a question there is nothing to redraw an answer to: counted, scored without entropy.
        if (wanted && (job.observation.question ?? "").trim() === "") recordDraw(job.route, { outcome: "no_question" });
        job.picked = wanted && (job.observation.question ?? "").trim() !== "";
      }
      if (!job.picked || toDraw.length + resampled.length >= scoringSlots) return;
      queue.shift();
      toDraw.push(job);
      if (!drawScheduled) {
        drawScheduled = true;
        setImmediate(startDraws);
      }
    }
  };

  function pump(): void {
    if (!pool && !poolError) return;
    // No live worker (one is being replaced): keep the jobs queued; the pool calls back when one is up.
    if (pool && pool.alive === 0 && !closing) return settleIdle();
    stageHead();
    const wait = resumeAt - now();
    if (wait > 0 && (queue.length > 0 || resampled.length > 0)) {
      resumeTimer ??= setTimeout(() => {
        resumeTimer = undefined;
        pump();
      }, wait);
      return;
    }
    while (inFlight < scoringSlots) {
      // A head picked for resampling waits for its draw (stageHead moves it once there is room).
      const job = resampled.shift() ?? (queue[0]?.picked && accepting ? undefined : queue.shift());
      if (!job) break;
      runJob(job);
      stageHead();
    }
    settleIdle();
  }

  return {
    observe(input: ObserveInput): void {
      // Where this observation stands, so an unexpected error still leaves it accounted for.
      let stage: "none" | "seen" | "sampled" | "settled" = "none";
      let route = "unknown";
      let tally = { seen: 0, notSampled: 0, sampled: 0 };
      try {
        if (++sinceMeterCheck >= METER_CHECK_EVERY) {
          sinceMeterCheck = 0;
          bindMeter();
        }
        if (!providersChecked) warnUnexported();
        // The route and the override first: the rest is read only for an observation that is sampled.
        const head = readHead(input);
        route = routeLabels.label(head.route);
        tally = tallyFor(route);
        counts.seen++;
        tally.seen++;
        stage = "seen";
        if (!head.ok) {
          // Not sampled by the usual decision: input that cannot be read is always counted as failed.
          counts.sampled++;
          tally.sampled++;
          stage = "settled";
          fail(route, "invalid_input");
          diag.warn(`groundwatch: observe() on route ${route} got an invalid "${head.field}": ${head.why}`);
          return;
        }
        const active = otelContext.active();
        const spanContext = trace.getSpanContext(active);
        // Sampling rules match the route itself: one past the label cap keeps its own rate.
        const decision = head.sample === "always" ? true : head.sample === "never" ? false : sampler.decide(routeLabels.clean(head.route), spanContext?.traceId);
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
        const copied = copyInput(input as object, head);
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
        if (waiting() >= resolved.queueSize) {
          stage = "settled";
          return drop(route, "queue_full");
        }
        if (queuedBytes + copied.bytes > resolved.queueBytes) {
          stage = "settled";
          return drop(route, "queue_bytes");
        }
        queuedBytes += copied.bytes;
        queue.push({ route, observation: copied.observation, parent: active, parentSpan: spanContext, attributes: copied.attributes, bytes: copied.bytes });
        stage = "settled";
        pump();
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
      if (waiting() === 0 && inFlight === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    async shutdown(deadlineMs = 10_000): Promise<void> {
      accepting = false;
      // Resampler calls in flight are aborted (their observations are scored without entropy);
      // the draining below is for scoring, not for the host's model.
      resampler?.close();
      startDraws();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.flush(), new Promise<void>((r) => (timer = setTimeout(r, deadlineMs)))]);
      clearTimeout(timer);
      clearTimeout(resumeTimer);
      for (const job of [...resampled.splice(0), ...toDraw.splice(0), ...queue.splice(0)]) {
        queuedBytes -= job.bytes;
        drop(job.route, "shutdown");
      }
      closing = true;
      releaseLive();
      await poolReady;
      await pool?.close();
      // The pool rejected what was in flight: wait until each of those is counted.
      await Promise.allSettled([...running]);
      settleIdle();
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
      return { seen: counts.seen, notSampled: counts.notSampled, sampled: counts.sampled, scored: counts.scored, dropped: { ...counts.dropped }, failed: { ...counts.failed }, pending: waiting() + inFlight, resample: { calls: { ...resampleCounts }, inFlight: resampler?.inFlight ?? 0 }, warnings: [...scorerWarnings] };
    },
    routeLabel(route: string): string {
      return routeLabels.label(route);
    },
    hasRoomFor(routes: readonly string[], bytes = 0): boolean {
      const expected = Math.ceil(routes.reduce((n, r) => n + sampler.rateFor(r), 0));
      return waiting() + expected <= resolved.queueSize && queuedBytes + bytes <= resolved.queueBytes;
    },
    async ready(): Promise<void> {
      await poolReady;
      if (poolError) throw poolError;
    },
    health(): MonitorHealth {
      const workers = { alive: pool?.alive ?? 0, size: resolved.workers, restarts: pool?.restarts ?? 0 };
      const queueState = { depth: waiting() + inFlight, bytes: queuedBytes };
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
