import type { Attributes, Context, MeterProvider, SpanContext, TracerProvider } from "@opentelemetry/api";
import { ProxyTracerProvider, ROOT_CONTEXT, context as otelContext, diag, metrics, trace } from "@opentelemetry/api";
import type { LoggerProvider } from "@opentelemetry/api-logs";
import { createNoopLogger, logs } from "@opentelemetry/api-logs";
import type { ContextInput } from "../core/context.ts";
import type { DriftTracker } from "../core/drift.ts";
import { createDriftTracker } from "../core/drift.ts";
import type { Sample } from "../core/entropy/semantic-entropy.ts";
import { resolveScoreOptions } from "../config/score-options.ts";
import type { Observation } from "../nli/scorer.ts";
import type { EvaluationSummary } from "../telemetry/summary.ts";
import { onnxRuntimeNeed, resolveModelDir } from "../nli/registry.ts";
import { OnnxRuntimeMissingError, onnxRuntimeResolvable } from "../nli/onnx/runtime.ts";
import type { WorkerPool } from "../nli/worker-pool.ts";
import { createWorkerPool, workerUrl } from "../nli/worker-pool.ts";
import type { Instruments } from "../telemetry/instruments.ts";
import { createInstruments, isNoopMeter, observeSources } from "../telemetry/instruments.ts";
import { recordEvaluation, recordFailure } from "../telemetry/record.ts";
import { ATTR_REASON, ATTR_ROUTE, EVENT_GEN_AI_EVALUATION_RESULT, METRICS, SPAN_EVALUATE } from "../telemetry/semconv.ts";
import type { MonitorOptions, ResolvedMonitorOptions } from "./options.ts";
import { resolveMonitorOptions } from "./options.ts";
import type { Sampler } from "./sampling.ts";
import { createSampler } from "./sampling.ts";
import type { ScoringWorkerData } from "./worker.ts";

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

/** Where every observation went. seen = sampled + notSampled; sampled = scored + dropped + failed + pending. */
export interface MonitorStats {
  readonly seen: number;
  readonly notSampled: number;
  readonly sampled: number;
  readonly scored: number;
  readonly dropped: Readonly<Record<string, number>>;
  readonly failed: Readonly<Record<string, number>>;
  /** Queued or being scored. */
  readonly pending: number;
}

export interface Monitor {
  /** Returns at once and never throws; scoring happens off the request path. */
  observe(input: ObserveInput): void;
  /** Resolves when every observation sampled so far has been scored, dropped or failed. */
  flush(): Promise<void>;
  /** Stops accepting observations, drains within `deadlineMs` (default 10 s), drops the rest (counted), stops workers. */
  shutdown(deadlineMs?: number): Promise<void>;
  /** Re-reads sampling rates from the config file and environment, without a restart. */
  reload(): void;
  stats(): MonitorStats;
  /**
   * Whether the queue has room for the observations of these routes, counting each by its
   * sampling rate (the expected number sampled, rounded up). A service answers 429 when not.
   */
  hasRoomFor(routes: readonly string[]): boolean;
  /** Resolves once the scoring workers are ready (or rejects with why they could not start). */
  ready(): Promise<void>;
}

interface Job {
  readonly route: string;
  readonly observation: Observation;
  readonly parent: Context;
  readonly parentSpan: SpanContext | undefined;
  readonly attributes: Attributes | undefined;
}

const OTHER_ROUTE = "__other__";

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
  const scoreOptions = resolveScoreOptions(resolved.scoring, { env });
  // A model that cannot be found is a configuration error: raise it now, not in a worker.
  if (scoreOptions.model !== undefined) resolveModelDir(scoreOptions.model, env);
  // So is asking for the onnx backend without its optional runtime installed.
  const runtimeNeed = onnxRuntimeNeed(scoreOptions, env);
  if (runtimeNeed?.need === "required" && !onnxRuntimeResolvable()) throw new OnnxRuntimeMissingError(runtimeNeed.field, runtimeNeed.value);
  const cal = resolved.calibration;
  if (cal?.backend && scoreOptions.backend !== "auto" && cal.backend.name !== scoreOptions.backend) {
    diag.warn(`groundwatch: the calibration was made with the ${cal.backend.name} backend, but scoring uses ${scoreOptions.backend}: its threshold may not transfer`);
  }
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
  /** With a scoring share below 1, no job starts before this time (ms, on `now`). */
  let resumeAt = 0;
  let resumeTimer: NodeJS.Timeout | undefined;
  let accepting = true;
  const idleWaiters: Array<() => void> = [];
  /** Per-route tallies of the hot path, exported by observable counters at collection time. */
  const routes = new Map<string, { seen: number; notSampled: number; sampled: number }>();
  const drift = new Map<string, DriftTracker>();
  const sources = { queueDepth: () => queue.length, routes, drift };

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

  /** The metric label for a route (capped at maxRoutes distinct labels) and its tally. */
  const tallyFor = (route: string): { label: string; tally: { seen: number; notSampled: number; sampled: number } } => {
    const label = routes.has(route) || routes.size < resolved.maxRoutes ? route : OTHER_ROUTE;
    let tally = routes.get(label);
    if (!tally) routes.set(label, (tally = { seen: 0, notSampled: 0, sampled: 0 }));
    return { label, tally };
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
    if (queue.length === 0 && inFlight === 0) for (const w of idleWaiters.splice(0)) w();
  };

  const workerData: ScoringWorkerData = { scoring: resolved.scoring, env: { ...env }, captureContent: resolved.captureContent };
  let pool: WorkerPool<Observation, EvaluationSummary> | undefined;
  let poolError: Error | undefined;
  const poolReady = createWorkerPool<Observation, EvaluationSummary>(workerUrl(import.meta.url), workerData, resolved.workers).then(
    (p) => {
      pool = p;
      pump();
    },
    (error: unknown) => {
      poolError = error instanceof Error ? error : new Error(String(error));
      diag.error(`groundwatch: scoring workers failed to start: ${poolError.message}`);
      pump();
    },
  );

  const runJob = (job: Job): void => {
    inFlight++;
    const started = now();
    const links = resolved.spanRelation === "link" && job.parentSpan ? [{ context: job.parentSpan }] : [];
    const span = tracer().startSpan(SPAN_EVALUATE, { links, attributes: { [ATTR_ROUTE]: job.route, ...job.attributes } }, resolved.spanRelation === "child" ? job.parent : ROOT_CONTEXT);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("timeout")), resolved.timeoutMs);
    });
    const work = pool ? pool.run(job.observation) : Promise.reject(poolError ?? new Error("scoring workers unavailable"));
    Promise.race([work, timeout])
      .then((result) => {
        counts.scored++;
        bindMeter();
        recordEvaluation({ result, route: job.route, span, eventContext: job.parent, logger: logger(), instruments: m, durationS: (now() - started) / 1000, options: { ...resolved, ...(options.redact ? { redact: options.redact } : {}) } });
        if (result.score !== null) {
          let t = drift.get(job.route);
          if (!t) drift.set(job.route, (t = createDriftTracker(resolved.drift.reference ? { ...resolved.drift, reference: resolved.drift.reference } : { windowSize: resolved.drift.windowSize, minScores: resolved.drift.minScores })));
          t.add(result.score);
        }
      })
      .catch((error: unknown) => {
        const message = (error as Error).message;
        const reason = message === "timeout" ? "timeout" : pool ? "scorer_error" : "scorer_unavailable";
        fail(job.route, reason);
        recordFailure(span, reason, message);
        diag.warn(`groundwatch: evaluation failed (${reason}) on route ${job.route}`);
      })
      .finally(() => {
        clearTimeout(timer);
        span.end();
        inFlight--;
        if (resolved.scoringShare < 1) resumeAt = Math.max(resumeAt, now() + cooldownMs(now() - started, resolved.scoringShare));
        pump();
        settleIdle();
      });
  };

  function pump(): void {
    if (!pool && !poolError) return;
    const wait = resumeAt - now();
    if (wait > 0 && queue.length > 0) {
      resumeTimer ??= setTimeout(() => {
        resumeTimer = undefined;
        pump();
      }, wait).unref();
      return;
    }
    const limit = resolved.scoringShare < 1 ? resolved.workers : resolved.workers * 2;
    while (inFlight < limit && queue.length > 0) {
      const job = queue.shift();
      if (job) runJob(job);
    }
    settleIdle();
  }

  const validate = (input: ObserveInput): string | undefined => {
    if (typeof input.answer !== "string") return "answer";
    const c = input.context as unknown;
    if (typeof c !== "string" && !(Array.isArray(c) && c.every((d) => typeof d === "string"))) return "context";
    if (input.question !== undefined && typeof input.question !== "string") return "question";
    if (input.samples !== undefined && !Array.isArray(input.samples)) return "samples";
    return undefined;
  };

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
        const given = input && typeof input === "object" ? input : undefined;
        ({ label: route, tally } = tallyFor(typeof given?.route === "string" && given.route !== "" ? given.route.slice(0, 200) : "unknown"));
        counts.seen++;
        tally.seen++;
        stage = "seen";
        if (!given) {
          counts.sampled++;
          tally.sampled++;
          stage = "settled";
          fail(route, "invalid_input");
          diag.warn("groundwatch: observe() was called without an observation object");
          return;
        }
        const active = otelContext.active();
        const spanContext = trace.getSpanContext(active);
        const decision = input.sample === "always" ? true : input.sample === "never" ? false : sampler.decide(route, spanContext?.traceId);
        if (!decision) {
          counts.notSampled++;
          tally.notSampled++;
          stage = "settled";
          return;
        }
        counts.sampled++;
        tally.sampled++;
        stage = "sampled";
        if (!accepting) {
          stage = "settled";
          return drop(route, "shutdown");
        }
        const invalid = validate(input);
        if (invalid) {
          stage = "settled";
          fail(route, "invalid_input");
          diag.warn(`groundwatch: observe() on route ${route} got an invalid "${invalid}"`);
          return;
        }
        if (queue.length >= resolved.queueSize) {
          stage = "settled";
          return drop(route, "queue_full");
        }
        queue.push({
          route,
          observation: {
            answer: input.answer,
            context: input.context,
            ...(input.question !== undefined ? { question: input.question } : {}),
            ...(input.samples ? { samples: input.samples } : {}),
          },
          parent: active,
          parentSpan: spanContext,
          attributes: input.attributes,
        });
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
      if (queue.length === 0 && inFlight === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    async shutdown(deadlineMs = 10_000): Promise<void> {
      accepting = false;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.flush(), new Promise<void>((r) => (timer = setTimeout(r, deadlineMs)))]);
      clearTimeout(timer);
      clearTimeout(resumeTimer);
      for (const job of queue.splice(0)) drop(job.route, "shutdown");
      await poolReady;
      await pool?.close();
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
      return { seen: counts.seen, notSampled: counts.notSampled, sampled: counts.sampled, scored: counts.scored, dropped: { ...counts.dropped }, failed: { ...counts.failed }, pending: queue.length + inFlight };
    },
    hasRoomFor(routes: readonly string[]): boolean {
      const expected = Math.ceil(routes.reduce((n, r) => n + sampler.rateFor(r), 0));
      return queue.length + expected <= resolved.queueSize;
    },
    async ready(): Promise<void> {
      await poolReady;
      if (poolError) throw poolError;
    },
  };
}
