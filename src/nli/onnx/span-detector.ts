/**
 * The ONNX tier's span detector (a token-classification model such as LettuceDetect or
 * TinyLettuce): one run per group of passages per answer, every answer token's probability of being
 * unsupported mapped to its characters in the answer. Issue 40's engine fills this in; until then
 * creating one fails with a ConfigError, never a made-up probability.
 */
import type { SpanDetector } from "../../core/backend.ts";
import { ConfigError } from "../../config/errors.ts";
import type { OnnxEngineDeps, OnnxEngineOptions } from "./engine-types.ts";

export interface OnnxSpanDetectorOptions extends OnnxEngineOptions {
  /** Worker threads, each with its own session (default 1). */
  readonly workers?: number;
  /** The longest wait for other answers to fill a batch, ms (default 5). */
  readonly batchWaitMs?: number;
  /** The prompt's language (the detector's prompt files: en, de, fr, es, it, pl, cn, hu); default en. */
  readonly language?: string;
}

/** Loads a token-classification model directory as a span detector. */
export function createOnnxSpanDetector(options: OnnxSpanDetectorOptions, _deps: OnnxEngineDeps = {}): Promise<SpanDetector> {
  return Promise.reject(new ConfigError("spanModel", options.dir, "the onnx span detector is not built yet"));
}
