import type { Attributes, Context, MeterProvider, TracerProvider } from "@opentelemetry/api";
import type { ContextInput } from "../core/context.ts";
import type { Sample } from "../core/entropy/semantic-entropy.ts";
import type { FlaggedAnswer } from "../evaluation/types.ts";
import type { FlaggedPage, FlaggedPageQuery, FlaggedQuery } from "../evaluation/flagged-ring.ts";
import type { ResampleOutcome } from "./resample.ts";
import type { LoggerProvider } from "@opentelemetry/api-logs";
import type { Calibration } from "../config/calibration-file.ts";
import type { ResolvedScoreOptions, ScoreOptions } from "../config/score-options.ts";
import type { EvaluationEvent } from "../evaluation/types.ts";
import type { DriftOptionsInput, ResolvedDrift } from "./drift-options.ts";
import type { ResampleOptions, ResolvedResampleOptions } from "./resample-options.ts";
import type { ResolvedReviewOptions, ReviewOptions } from "./review-options.ts";
import type { SamplingRules } from "./sampling.ts";
import type { GuardOptions } from "./guard-options.ts";
import type { GuardDecision, GuardStats } from "./guard-types.ts";
import type { StreamGuard, StreamGuardEvent, StreamGuardListener, StreamGuardOptions, StreamGuardSource } from "./guard-stream-types.ts";

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

/** What a guarded stream (Monitor.guardStream, openStreamGuard) needs besides its text: observe()'s input without the answer, which is what the stream carries. */
export type StreamGuardInput = Omit<ObserveInput, "answer">;

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
  /** Every guard() decision: pass, block, correct, bypass by reason; all routes and per route label. Apart from the identity above: a guard check is no observation. */
  readonly guard: GuardStats;
}

/** Per-call options of observe(), kept apart from the host's data. */
export interface ObserveOptions {
  /** Route template the observation is recorded under; given here, `input.route` is not read (the express helper passes the request's). */
  readonly route?: string;
  /** The trace context the evaluation belongs to (its span's parent); default the active context. A collector passes the context of the trace it read, which holds without a registered context manager. */
  readonly parent?: Context;
}

export interface Monitor {
  /** The review spool directory in force (docs/review.md), or undefined when review is off. */
  readonly reviewDir: string | undefined;
  /**
   * Returns at once and never throws; scoring happens off the request path. The route is
   * `options.route` when given, otherwise `input.route`.
   */
  observe(input: ObserveInput): void;
  observe(input: Omit<ObserveInput, "route">, options: ObserveOptions & { readonly route: string }): void;
  /**
   * Checks an answer before it reaches the user (docs/guard.md): the same input as observe(), scored
   * now — not sampled, not queued behind monitoring work — within `budgetMs`, and decided: pass,
   * block (with the replacement), correct (unsupported claims removed or marked) or bypass (no check
   * made, with its reason; `onFail` says whether that sends the replacement or the answer). Never
   * rejects; options over MonitorOptions.guard. Counted in stats().guard; not an observation (call
   * observe() as well to monitor the answer).
   */
  guard(input: ObserveInput, options?: GuardOptions): Promise<GuardDecision>;
  /** Counts and records a decision made for this monitor outside guard() (the collector's `saturated` bypass), as guard()'s own are: stats().guard, the guardrail event and the guard metrics. */
  recordGuardDecision(decision: GuardDecision): void;
  /**
   * Guards a streamed answer read from `source` (see StreamGuardSource): returns the user-facing
   * events (release, correct, block, retract, end: send each event's `text`), the end event last with
   * the one decision for the stream. Never throws: a bad or failing source ends with a bypass
   * (`source_error`). When the consumer stops iterating or `options.signal` aborts, the source is
   * cancelled (its iterator returned; an OpenAI SDK stream aborts its request) and pending checks
   * are given up.
   */
  guardStream(source: StreamGuardSource, input: StreamGuardInput, options?: StreamGuardOptions): AsyncIterable<StreamGuardEvent>;
  /**
   * The push engine under guardStream, for callers that read the stream themselves (the SSE
   * middleware): feed it deltas, receive events in original-answer offsets. `options.signal` is
   * not read here (call abort()).
   */
  openStreamGuard(input: StreamGuardInput, options: StreamGuardOptions | undefined, listener: StreamGuardListener): StreamGuard;
  /** Resolves when every observation sampled so far has been scored, dropped or failed. */
  flush(): Promise<void>;
  /**
   * Stops accepting observations, drains within `deadlineMs` (default 10 s), gives up the rest (counted),
   * then stops the workers: no new inference starts, the batch running finishes, models are released.
   * So it may resolve up to one inference batch after the deadline; a worker is never ended inside a
   * model run (that would abort the process).
   */
  shutdown(deadlineMs?: number): Promise<void>;
  /**
   * The label this monitor records a route under on its metrics: the route sanitised, or
   * `__other__` once maxRoutes distinct routes are labelled. Every metric labelled by a route goes
   * through it (a collector's own counters too), so the cap is the same everywhere.
   */
  routeLabel(route: string): string;
  /**
   * The most recent scored answers that are not grounded: flagged (verdict ungrounded) and unscorable
   * (verdict unscorable, with its reason). Newest first, at most `limit` (default 100,
   * capped at 1000), by route label, cause and time: trace and span ids, verdict, score, and the claims
   * with their evidence's document (its index in the context) and offsets; the question, the answer,
   * claim and evidence text and the evidence documents' id, title and url only with captureContent,
   * after `redact`.
   */
  flagged(query?: FlaggedQuery): FlaggedAnswer[];
  /**
   * The same answers a page at a time, to read on without missing any: pass a page's `cursor` back as
   * `after` (same route and cause) for the answers kept since, oldest first; `more` says another page
   * is ready, `missed` how many the monitor let go (flaggedPerRoute, flaggedMaxBytes) before they
   * were read. Without `after`, the newest first, as `flagged`.
   */
  flaggedPage(query?: FlaggedPageQuery): FlaggedPage;
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

/** @deprecated use EvaluationEvent */
export type CompletedEvaluation = EvaluationEvent;

/** Options of `createMonitor`. Every field is optional; resolution order: option > env > config file > default. */
export interface MonitorOptions {
  /** Live semantic entropy: resample scored answers with the host's sampler (off the request path). Off by default. */
  readonly resample?: ResampleOptions;
  /** Sampling: default rate (env GROUNDWATCH_SAMPLE_RATE, default 0.05) and per-route rates (env GROUNDWATCH_SAMPLE_ROUTES="/a/*=1,/b=0.2"). */
  readonly sampling?: Partial<SamplingRules>;
  /** How answers are scored (backend, model, thresholds…): see ScoreOptions. */
  readonly scoring?: ScoreOptions;
  /** Most observations waiting to be scored; beyond it they are dropped and counted. Env GROUNDWATCH_QUEUE_SIZE, default 1000. */
  readonly queueSize?: number;
  /**
   * Most text (characters of answers, documents, questions and samples, ≈ bytes) held by observations
   * queued or being scored; an observation that does not fit is dropped with reason "queue_bytes".
   * Env GROUNDWATCH_QUEUE_BYTES, default 67 108 864 (64 MiB).
   */
  readonly queueBytes?: number;
  /** Scoring worker threads. Env GROUNDWATCH_WORKERS, default 1. */
  readonly workers?: number;
  /**
   * Observations each scoring worker scores at once, 1–256. Default 2; 8 when scoring uses the onnx backend
   * (backend "onnx", or "auto" with a model set or the default model cached), so that the inference batcher has other observations' pairs
   * to batch with. With scoringShare below 1 each worker scores one at a time. Env GROUNDWATCH_IN_FLIGHT_PER_WORKER.
   */
  readonly inFlightPerWorker?: number;
  /**
   * Share of one core the scoring workers may keep busy, in (0, 1]: after a job that took
   * d ms the next starts no sooner than d·(1/share − 1) ms later. Lower it on small hosts
   * where scoring competes with request handling. Env GROUNDWATCH_SCORING_SHARE, default 1.
   */
  readonly scoringShare?: number;
  /**
   * Time budget per observation in ms, 1–3 600 000, from when its worker starts it: the observations a
   * worker scores at once share its inference, the one it started first served first, so an observation's
   * budget runs from when those started before it on that worker have ended. Over it the observation
   * fails with reason "timeout" and is given up on its worker (its queued inference withdrawn; a worker
   * that does not give it up within seconds is replaced, never while a model runs on it). A resample
   * comes before and is not counted here (it has `resample.timeoutMs`). Default 30 000; 120 000 when
   * scoring uses the onnx backend (backend "onnx", or "auto" with a model set or the default model cached), so that an observation
   * at the entailment budget (1 000 pairs) fits well inside it on the pods docs/deploy.md sizes (2 cores:
   * ≈ 17 s for the default model's int8 graph, ≈ 41 s for its fp32 graph). Env GROUNDWATCH_TIMEOUT_MS.
   */
  readonly timeoutMs?: number;
  /** Distinct route labels kept; further routes are reported as "__other__". Default 200. */
  readonly maxRoutes?: number;
  /** Record claim text and evidence on spans (off by default). Env GROUNDWATCH_CAPTURE_CONTENT=1. */
  readonly captureContent?: boolean;
  /** Longest captured text, in characters. Default 500. */
  readonly contentMaxLength?: number;
  /** Most recent answers that are not grounded kept per route label for Monitor.flagged() and /v1/flagged. Default 50. */
  readonly flaggedPerRoute?: number;
  /** Bytes those flagged answers may hold over all routes (the oldest go first; counted on groundwatch.flagged.dropped). Default 4 MiB. */
  readonly flaggedMaxBytes?: number;
  /** Applied to every captured text before it is recorded (e.g. to mask personal data). */
  readonly redact?: (text: string) => string;
  /** Write flagged answers and a sample of grounded ones to a review spool on disk (needs captureContent): see ReviewOptions, docs/review.md. Off by default. */
  readonly review?: ReviewOptions;
  /** Also attach the evaluation result as a span event (the log-based event is always emitted). Default false. */
  readonly spanEvent?: boolean;
  /** Also set OpenInference `evaluations.N.evaluation.*` attributes on the evaluation span. Default true. */
  readonly openInference?: boolean;
  /** "child" (default): the evaluation span is a child of the request's span; "link": a new trace linked to it. */
  readonly spanRelation?: "child" | "link";
  /**
   * Drift: recent scores per route compared with the reference (default window 200, no verdict under
   * 20 scores). A `reference` with fewer than `minScores` scores could never give a verdict: it is a
   * ConfigError.
   */
  readonly drift?: DriftOptionsInput;
  /**
   * calibration.json from `groundwatch calibrate`: its threshold applies when none is set,
   * and its reference scores are the drift reference. Env GROUNDWATCH_CALIBRATION; in a config
   * file (monitor.calibrationFile) a relative path is relative to the config file's folder.
   * A calibration fitted on groundwatch's bundled examples, or with another backend or model than
   * the one that scores, is applied with a diag warning, and its reference scores are refused for
   * drift (counted on groundwatch.drift.reference_refused).
   * A calibration whose verdict is not "pass" (weak, anti-correlated, or none recorded) is still
   * applied, with a diag warning naming the verdict and the AUROC interval, unless
   * `requireValidCalibration` is set. Its reference scores are not used for drift when there are
   * fewer than `drift.minScores` of them (diag warning; drift then has no reference).
   * A calibration on answers from production review (`groundwatch review export`) has one
   * reference per route, each answer weighted by the rate it was sampled at: route R's scores are
   * compared with route R's reference; a route whose reference is worth fewer than
   * `drift.minScores` answers, or that it does not name, uses its own first window (counted). A set
   * whose rows cannot stand for live traffic (exported for their labels, mixed with another set,
   * or without their sample rates) is refused for drift, with its reason.
   */
  readonly calibrationFile?: string;
  /**
   * Refuse a calibration whose verdict is not "pass": createMonitor throws a ConfigError instead of
   * applying a threshold no labelled set supports. Env GROUNDWATCH_REQUIRE_VALID_CALIBRATION=1. Default false.
   */
  readonly requireValidCalibration?: boolean;
  /**
   * Called with each completed evaluation (route, verdict, score, threshold, claim counts, limits;
   * never user text), e.g. to log evaluations while wiring a service up. It runs after the
   * evaluation is recorded; an exception it throws is caught (diag error, once) and changes nothing.
   */
  readonly onEvaluation?: (evaluation: EvaluationEvent) => void;
  /** Guard mode's defaults for every guard() call (budgetMs, onFail, action, replacement, correction, marker): see GuardOptions, docs/guard.md. */
  readonly guard?: GuardOptions;
  /** JSON config file with "sampling", "scoring" and "monitor" sections. Env GROUNDWATCH_CONFIG. */
  readonly configFile?: string;
  /** Environment to read (default process.env). */
  readonly env?: NodeJS.ProcessEnv;
  /** OpenTelemetry providers; default: the global ones the host registered. */
  readonly tracerProvider?: TracerProvider;
  readonly meterProvider?: MeterProvider;
  readonly loggerProvider?: LoggerProvider;
  /** Random source for sampling observations without a trace id (default Math.random). */
  readonly random?: () => number;
  /** Clock in ms (default performance.now based). */
  readonly now?: () => number;
}

export interface ResolvedMonitorOptions {
  readonly sampling: SamplingRules;
  /** Live resampling for semantic entropy; undefined when the `resample` option is not given. */
  readonly resample: ResolvedResampleOptions | undefined;
  /**
   * How answers are scored, resolved once (option > env > config file's scoring section > default),
   * with the calibration's threshold when no threshold is set explicitly.
   */
  readonly score: ResolvedScoreOptions;
  readonly queueSize: number;
  readonly queueBytes: number;
  readonly workers: number;
  /** Observations each scoring worker scores at once (scoringShare below 1: one). */
  readonly inFlightPerWorker: number;
  readonly timeoutMs: number;
  readonly scoringShare: number;
  readonly maxRoutes: number;
  readonly captureContent: boolean;
  readonly contentMaxLength: number;
  readonly flaggedPerRoute: number;
  readonly flaggedMaxBytes: number;
  readonly spanEvent: boolean;
  readonly openInference: boolean;
  readonly spanRelation: "child" | "link";
  readonly drift: ResolvedDrift;
  readonly configFile: string | undefined;
  /** The calibration in force, if a file was given. */
  readonly calibration: Calibration | undefined;
  /** Where the answer threshold comes from (the value itself is scoring.threshold, or the backend's when "default"). */
  readonly thresholdSource: ThresholdSource;
  readonly requireValidCalibration: boolean;
  /** The review spool in force; undefined when review is off. */
  readonly review: ResolvedReviewOptions | undefined;
}

/**
 * Where the answer threshold comes from: a code option (or CLI flag), the config file's scoring
 * section, GROUNDWATCH_THRESHOLD, the calibration file, or the backend's own ("default").
 */
export type ThresholdSource = "option" | "config" | "env" | "calibration" | "default";
