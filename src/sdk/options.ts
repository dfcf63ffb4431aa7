import { MONITOR_ENV } from "../config/env.ts";
import { ConfigError } from "../config/errors.ts";
import type { BackendSettings } from "../config/hub.ts";
import { resolveBackendSettings } from "../config/hub.ts";
import type { Parser } from "../config/parse.ts";
import { integerIn, numberIn, oneOf, parseBoolean } from "../config/parse.ts";
import type { ValueSource } from "../config/resolve.ts";
import { fieldReader } from "../config/resolve.ts";
import type { ResolvedScoreOptions } from "../config/score-options.ts";
import { resolveScoreSources } from "../config/score-options.ts";
import type { LoadedConfig } from "../config/file.ts";
import { loadConfig } from "../config/file.ts";
import { withCalibratedThresholds } from "../config/calibration-file.ts";
import { predictBackend } from "../nli/registry.ts";
import { resolveCalibration } from "./calibration-state.ts";
import { pickDrift, resolveDrift } from "./drift-options.ts";
import { resolveResampleOptions } from "./resample-options.ts";
import { resolveReviewOptions } from "./review-options.ts";
import { resolveGuardDefaults } from "./guard-defaults.ts";
import { resolveSampling } from "./sampling-options.ts";
import type { MonitorOptions, ResolvedMonitorOptions, ThresholdSource } from "./types.ts";
import type { ScoringWorkerData } from "./worker.ts";

export type { CompletedEvaluation, MonitorOptions, ResolvedMonitorOptions, ThresholdSource } from "./types.ts";

/** A share of one core, greater than 0 and at most 1. */
const coreShare: Parser<number> = (field, raw) => {
  const n = numberIn({ min: 0, max: 1, what: "a share of one core" })(field, raw);
  if (n === 0) throw new ConfigError(field, raw, "expected a share of one core, greater than 0 and at most 1");
  return n;
};

/**
 * Validates every option and resolves option > env > config file > default; a bad value throws a ConfigError naming it.
 * `loaded`: the config file when the caller has read it already (loadConfig with the same configFile and env), so it is read once.
 */
export function resolveMonitorOptions(options: MonitorOptions = {}, loaded?: LoadedConfig): ResolvedMonitorOptions {
  const env = options.env ?? process.env;
  const { path: configFile, file } = loaded ?? loadConfig(options.configFile, env);
  const fm = file.monitor ?? {};
  const read = fieldReader<keyof MonitorOptions>({ options, env, envNames: MONITOR_ENV, file: fm, section: "monitor" });
  const { calibration, requireValidCalibration } = resolveCalibration(read, configFile);
  // Scoring resolves here, once, and says where the threshold came from. A calibrated threshold (and
  // each relevance threshold) applies when none is set (option, env or file).
  const scoring = resolveScoreSources(options.scoring ?? {}, { env, ...(file.scoring ? { file: file.scoring } : {}) });
  const explicitThreshold = scoring.sources.threshold !== "default";
  const score: ResolvedScoreOptions = withCalibratedThresholds(calibration && !explicitThreshold ? { ...scoring.values, threshold: calibration.threshold } : scoring.values, calibration);
  // The backend-dependent defaults follow the backend the workers will load (auto included), as the registry decides it.
  const onnx = predictBackend(score, resolveBackendSettings(env)).name === "onnx";
  const captureContent = read("captureContent", parseBoolean, false);
  return {
    sampling: resolveSampling(options.sampling, { env, file: file.sampling }),
    resample: resolveResampleOptions(options.resample),
    score,
    queueSize: read("queueSize", integerIn(1, 1_000_000), 1000),
    queueBytes: read("queueBytes", integerIn(1024, 2 ** 40), 64 * 1024 * 1024),
    workers: read("workers", integerIn(1, 64), 1),
    inFlightPerWorker: read("inFlightPerWorker", integerIn(1, 256), onnx ? 8 : 2),
    timeoutMs: read("timeoutMs", integerIn(1, 3_600_000), onnx ? ONNX_TIMEOUT_MS : DEFAULT_TIMEOUT_MS),
    scoringShare: read("scoringShare", coreShare, 1),
    maxRoutes: read("maxRoutes", integerIn(1, 100_000), 200),
    captureContent,
    contentMaxLength: read("contentMaxLength", integerIn(1, 100_000), 500),
    flaggedPerRoute: read("flaggedPerRoute", integerIn(0, 100_000), 50),
    flaggedMaxBytes: read("flaggedMaxBytes", integerIn(0, 2 ** 40), 4 * 1024 * 1024),
    spanEvent: read("spanEvent", parseBoolean, false),
    openInference: read("openInference", parseBoolean, true),
    spanRelation: read("spanRelation", oneOf(["child", "link"] as const), "child"),
    drift: resolveDrift(pickDrift(options.drift, fm.drift), calibration, score.backend),
    configFile,
    calibration,
    thresholdSource: explicitThreshold ? THRESHOLD_SOURCE[scoring.sources.threshold] : calibration ? "calibration" : "default",
    requireValidCalibration,
    review: resolveReviewOptions(options.review, { env, file: fm.review as Readonly<Record<string, unknown>> | undefined, configFile, captureContent }),
    guard: resolveGuardDefaults(options.guard, { env, file: fm.guard }),
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

/** The monitor's word for each source of the threshold (--print-config prints it: "config" is the config file). */
const THRESHOLD_SOURCE: Readonly<Record<ValueSource, ThresholdSource>> = { option: "option", env: "env", file: "config", calibration: "calibration", default: "default" };
