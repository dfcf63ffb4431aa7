import type { EntailmentBackend } from "../backend.ts";
import type { OnnxEngineOptions, OnnxModelInfo } from "./engine.ts";
import { createInferencePool } from "./pool.ts";

export interface OnnxBackendOptions extends OnnxEngineOptions {
  /** Worker threads, each with its own session (default 1). */
  readonly workers?: number;
}

export interface OnnxBackend extends EntailmentBackend {
  readonly model: OnnxModelInfo;
}

/** A local NLI cross-encoder (tier production), inferring in worker threads. */
export async function createOnnxBackend(options: OnnxBackendOptions): Promise<OnnxBackend> {
  const workers = options.workers ?? 1;
  if (!Number.isInteger(workers) || workers < 1) throw new Error(`onnx backend: workers must be a positive integer (got ${workers})`);
  const { workers: _, ...engineOptions } = options;
  const pool = await createInferencePool(engineOptions, workers);
  const dirName = pool.info.dir.replace(/\/+$/, "").split("/").slice(-2).join("/");
  return {
    name: "onnx",
    version: `${dirName}:${pool.info.graph}@${pool.info.graphSha256}`,
    tier: "production",
    recommendedThreshold: 0.5,
    model: pool.info,
    classify: (pairs) => pool.classify(pairs),
    close: () => pool.close(),
  };
}
