import { diag } from "@opentelemetry/api";
import { explainCalibrationFailure } from "../core/calibration.ts";
import type { ResolvedScoreOptions } from "../config/score-options.ts";
import { onnxRuntimeNeed, resolveModelDir } from "../nli/registry.ts";
import { OnnxRuntimeMissingError, onnxRuntimeResolvable } from "../nli/onnx/runtime.ts";
import type { ResolvedMonitorOptions } from "./types.ts";

/**
 * What createMonitor checks before any worker starts: a model that cannot be found and the onnx
 * backend without its optional runtime throw (configuration errors, raised now, not in a worker);
 * a calibration that established nothing is warned about.
 */
export function checkStartup(resolved: ResolvedMonitorOptions, scoreOptions: ResolvedScoreOptions, hubCacheDir: string): void {
  // A model that cannot be found is a configuration error: raise it now, not in a worker.
  if (scoreOptions.model !== undefined) resolveModelDir(scoreOptions.model, hubCacheDir);
  if (scoreOptions.relevanceModel !== undefined && scoreOptions.backend !== "offline" && scoreOptions.backend !== "judge") resolveModelDir(scoreOptions.relevanceModel, hubCacheDir, "relevanceModel");
  if (scoreOptions.spanModel !== undefined) resolveModelDir(scoreOptions.spanModel, hubCacheDir, "spanModel");
  // So is asking for the onnx backend (or a span detector, which runs on it) without its optional runtime installed.
  const runtimeNeed = onnxRuntimeNeed(scoreOptions, hubCacheDir) ?? (scoreOptions.spanModel !== undefined ? { need: "required" as const, field: "spanModel", value: scoreOptions.spanModel } : undefined);
  if (runtimeNeed?.need === "required" && !onnxRuntimeResolvable()) throw new OnnxRuntimeMissingError(runtimeNeed.field, runtimeNeed.value);
  const calibration = resolved.calibration;
  // A calibration that established nothing is applied (requireValidCalibration refuses it), but never silently.
  const failed = calibration ? explainCalibrationFailure(calibration) : undefined;
  if (calibration && failed) {
    const applied = resolved.thresholdSource === "calibration" ? `Its threshold ${calibration.threshold} is applied but is not trustworthy` : "Its threshold is not applied (one is set explicitly)";
    const what = calibration.verdict ? `failed (verdict ${calibration.verdict}${calibration.auroc ? `, AUROC ${calibration.auroc.value.toFixed(3)}` : ""})` : "cannot be checked";
    diag.warn(`groundwatch: the calibration ${calibration.path} ${what}: ${failed.meaning}. ${applied}. To fix: ${failed.advice}.`);
  }
}
