import { dirname, resolve as resolvePath } from "node:path";
import type { LoggerProvider } from "@opentelemetry/api-logs";
import type { MeterProvider, TracerProvider } from "@opentelemetry/api";
import { ConfigError } from "../config/errors.ts";
import { MONITOR_ENV } from "../config/env.ts";
import type { BackendSettings } from "../config/hub.ts";
import { resolveBackendSettings } from "../config/hub.ts";
import { predictBackend } from "../nli/registry.ts";
import { parseBoolean, parseInteger, parseNonEmpty, parseNumber, parseOneOf, parseRate } from "../config/parse.ts";
import type { ValueSource } from "../config/resolve.ts";
import { pickSource } from "../config/resolve.ts";
import type { ResolvedScoreOptions, ScoreOptions } from "../config/score-options.ts";
import { resolveScoreSources } from "../config/score-options.ts";
import type { LoadedConfig } from "../config/file.ts";
import { loadConfig } from "../config/file.ts";
import type { Calibration } from "../config/calibration-file.ts";
import { readCalibrationFile, withCalibratedRelevance } from "../config/calibration-file.ts";
import type { DriftOptionsInput, ResolvedDrift } from "./drift-options.ts";
import { resolveDrift } from "./drift-options.ts";
import type { EvaluationSummary } from "../telemetry/summary.ts";
import type { SamplingRules } from "./sampling.ts";
import type { ScoringWorkerData } from "./worker.ts";
import type { ResampleOptions, ResolvedResampleOptions } from "./resample-options.ts";
import { resolveResampleOptions } from "./resample-options.ts";
import type { ResolvedReviewOptions, ReviewOptions } from "./review-options.ts";
import { resolveReviewOptions } from "./review-options.ts";

/**
 * One completed evaluation, as `onEvaluation` receives it: what telemetry records, without any
 * user text (no claims, no evidence, whatever captureContent says).
 */
export interface CompletedEvaluation {
  /** The route label the evaluation was recorded under. */
  readonly route: string;
  /** From dequeue to result, ms. */
  readonly durationMs: number;
  readonly result: Omit<EvaluationSummary, "content" | "reviewClaims">;
}

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
  readonly onEvaluation?: (evaluation: CompletedEvaluation) => void;
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

/** calibration.json as the monitor reads it (config/calibration-file.ts). */
export type { Calibration };

/** Reads calibration.json (from `groundwatch calibrate`); a bad file is a ConfigError naming it. */
export function readCalibration(path: string): Calibration {
  return readCalibrationFile(path);
}

function parseRouteRates(raw: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of raw.split(",").map((p) => p.trim()).filter((p) => p !== "")) {
    const eq = part.lastIndexOf("=");
    const rate = Number(part.slice(eq + 1));
    if (eq <= 0 || !Number.isFinite(rate)) throw new ConfigError(MONITOR_ENV.sampleRoutes, raw, 'expected "route=rate,route=rate"');
    out[part.slice(0, eq)] = rate;
  }
  return out;
}

/** A sampling rate from 0 to 1, or undefined when blank. */
const rate = (field: string, value: unknown): number | undefined => parseRate(field, value, "a sampling rate");

/**
 * Validates every option and resolves option > env > config file > default; a bad value throws a ConfigError naming it.
 * `loaded`: the config file when the caller has read it already (loadConfig with the same configFile and env), so it is read once.
 */
export function resolveMonitorOptions(options: MonitorOptions = {}, loaded?: LoadedConfig): ResolvedMonitorOptions {
  const env = options.env ?? process.env;
  const { path: configFile, file } = loaded ?? loadConfig(options.configFile, env);
  const fm = file.monitor ?? {};
  /** Option > env > the config file's monitor section > fallback, parsed by `parse`. */
  const pick = <T>(key: keyof MonitorOptions & string, envName: string | undefined, parse: (field: string, v: unknown) => T | undefined, fallback: T): T => {
    const picked = pickSource({ key, option: options[key], env, envName, file: fm, section: "monitor" });
    return parse(picked.field, picked.value) ?? fallback;
  };
  const integer = (min: number, max: number) => (field: string, v: unknown): number | undefined => parseInteger(field, v, min, max);
  const sampleRoutes = env[MONITOR_ENV.sampleRoutes];
  const envRoutes = sampleRoutes ? parseRouteRates(sampleRoutes) : undefined;
  const routes = options.sampling?.routes ?? envRoutes ?? file.sampling?.routes ?? {};
  for (const [r, v] of Object.entries(routes)) rate(`sampling.routes["${r}"]`, v);
  const sampleRate = pickSource({ key: "sampling.default", option: options.sampling?.default, env, envName: MONITOR_ENV.sampleRate, file: file.sampling, section: "sampling", fileKey: "default" });
  const sampling: SamplingRules = { default: rate(sampleRate.field, sampleRate.value) ?? 0.05, routes };
  // A path in the config file is the file's own: relative to its folder, wherever the process runs.
  const calibrationPick = pickSource({ key: "calibrationFile", option: options.calibrationFile, env, envName: MONITOR_ENV.calibrationFile, file: fm, section: "monitor" });
  const calibrationPath = parseNonEmpty(calibrationPick.field, calibrationPick.value);
  const calibrationFile = calibrationPath !== undefined && calibrationPick.source === "file" && configFile ? resolvePath(dirname(configFile), calibrationPath) : calibrationPath;
  const calibration = calibrationFile ? readCalibrationFile(calibrationFile, calibrationPick.source === "file" ? calibrationPick.field : "calibrationFile") : undefined;
  const requireValidCalibration = pick("requireValidCalibration", MONITOR_ENV.requireValidCalibration, parseBoolean, false);
  if (calibration && requireValidCalibration && calibration.verdict !== "pass") {
    const ci = calibration.auroc ? ` (AUROC ${calibration.auroc.value.toFixed(3)}, 95% interval ${calibration.auroc.low.toFixed(3)}–${calibration.auroc.high.toFixed(3)})` : "";
    throw new ConfigError("calibrationFile", calibrationFile, `its verdict is ${calibration.verdict ?? "not recorded"}${ci}, and requireValidCalibration is set: its threshold is not evidence; label more answers and run groundwatch calibrate again`);
  }
  // Scoring resolves here, once: option > env > config file > default, and the resolver says where
  // the threshold came from. A calibrated threshold (and each relevance threshold) applies when none is set (option, env or file).
  const resolvedScoring = resolveScoreSources(options.scoring ?? {}, { env, ...(file.scoring ? { file: file.scoring } : {}) });
  const explicitThreshold = resolvedScoring.sources.threshold !== "default";
  const score: ResolvedScoreOptions = withCalibratedRelevance(calibration && !explicitThreshold ? { ...resolvedScoring.values, threshold: calibration.threshold } : resolvedScoring.values, calibration);
  const thresholdSource: ThresholdSource = explicitThreshold ? THRESHOLD_SOURCE[resolvedScoring.sources.threshold] : calibration ? "calibration" : "default";
  const spanRelation = pick<"child" | "link">("spanRelation", undefined, (f, v) => parseOneOf(f, v, ["child", "link"] as const), "child");
  const drift = resolveDrift(options.drift ?? (fm.drift as MonitorOptions["drift"]) ?? {}, calibration, score.backend);
  const resample = resolveResampleOptions(options.resample);
  // The backend-dependent defaults follow the backend the workers will load (auto included), as the registry decides it.
  const onnx = predictBackend(score, resolveBackendSettings(env)).name === "onnx";
  const captureContent = pick("captureContent", MONITOR_ENV.captureContent, parseBoolean, false);
  const review = resolveReviewOptions(options.review, { env, file: fm.review as Readonly<Record<string, unknown>> | undefined, configFile, captureContent });
  return {
    sampling,
    resample,
    score,
    queueSize: pick("queueSize", MONITOR_ENV.queueSize, integer(1, 1_000_000), 1000),
    queueBytes: pick("queueBytes", MONITOR_ENV.queueBytes, integer(1024, 2 ** 40), 64 * 1024 * 1024),
    workers: pick("workers", MONITOR_ENV.workers, integer(1, 64), 1),
    inFlightPerWorker: pick("inFlightPerWorker", MONITOR_ENV.inFlightPerWorker, integer(1, 256), onnx ? 8 : 2),
    timeoutMs: pick("timeoutMs", MONITOR_ENV.timeoutMs, integer(1, 3_600_000), onnx ? ONNX_TIMEOUT_MS : DEFAULT_TIMEOUT_MS),
    scoringShare: pick("scoringShare", MONITOR_ENV.scoringShare, (f, v) => {
      const n = parseNumber(f, v, { min: 0, max: 1, what: "a share of one core" });
      if (n === 0) throw new ConfigError(f, v, "expected a share of one core, greater than 0 and at most 1");
      return n;
    }, 1),
    maxRoutes: pick("maxRoutes", undefined, integer(1, 100_000), 200),
    captureContent,
    contentMaxLength: pick("contentMaxLength", undefined, integer(1, 100_000), 500),
    flaggedPerRoute: pick("flaggedPerRoute", undefined, integer(0, 100_000), 50),
    flaggedMaxBytes: pick("flaggedMaxBytes", undefined, integer(0, 2 ** 40), 4 * 1024 * 1024),
    spanEvent: pick("spanEvent", undefined, parseBoolean, false),
    openInference: pick("openInference", undefined, parseBoolean, true),
    spanRelation,
    drift,
    configFile,
    calibration,
    thresholdSource,
    requireValidCalibration,
    review,
  };
}

/**
 * What each scoring worker is started with: the scoring options resolved here, content capture, and
 * the backend's settings (model cache, judge API key) as values, never a copy of the process environment.
 */
export function scoringWorkerData(resolved: Pick<ResolvedMonitorOptions, "score" | "captureContent" | "review">, settings: BackendSettings): ScoringWorkerData {
  return { score: resolved.score, settings, captureContent: resolved.captureContent, review: resolved.review !== undefined };
}

/** The default time budget per observation (timeoutMs). */
export const DEFAULT_TIMEOUT_MS = 30_000;
/**
 * The default with the onnx backend: three times the ≈ 41 s one observation at the default entailment
 * budget (1 000 pairs) takes on a 2-core pod with the default model's fp32 graph (docs/deploy.md,
 * "Sizing the model tier": 1.38 observations/s of 8.94 pairs per core, ≈ 12.3 pairs/s), and seven
 * times the ≈ 17 s of its int8 graph (≈ 29.8 pairs/s per core).
 */
export const ONNX_TIMEOUT_MS = 120_000;

/** The monitor's name for each source of the threshold that is set explicitly. */
const THRESHOLD_SOURCE: Readonly<Record<ValueSource, ThresholdSource>> = { option: "option", env: "env", file: "config", default: "default" };
