import type { EntailmentBackend } from "../../core/backend.ts";
import type { OnnxEngineOptions, OnnxModelInfo } from "./engine.ts";
import { locateModelFiles } from "./model-dir.ts";
import { createInferencePool } from "./pool.ts";
import type { OnnxImporter } from "./runtime.ts";
import { loadOnnxRuntime } from "./runtime.ts";
import { readCpuFeatures } from "./variants.ts";

export interface OnnxBackendOptions extends OnnxEngineOptions {
  /** Worker threads, each with its own session (default 1). */
  readonly workers?: number;
}

export interface OnnxBackend extends EntailmentBackend {
  readonly model: OnnxModelInfo;
}

export interface OnnxBackendDeps {
  /** Imports onnxruntime-node (default: the real import); injected in tests. */
  readonly importOnnxRuntime?: OnnxImporter;
}

/**
 * A local NLI cross-encoder (tier production), inferring in worker threads. onnxruntime-node
 * is loaded here first, on the calling thread, so that a missing runtime rejects with an
 * OnnxRuntimeMissingError (a ConfigError) rather than a message relayed from a worker.
 */
export async function createOnnxBackend(options: OnnxBackendOptions, deps: OnnxBackendDeps = {}): Promise<OnnxBackend> {
  const workers = options.workers ?? 1;
  if (!Number.isInteger(workers) || workers < 1) throw new Error(`onnx backend: workers must be a positive integer (got ${workers})`);
  await loadOnnxRuntime(deps.importOnnxRuntime);
  // The graph is chosen here too, so that a variant the directory cannot satisfy is a
  // ConfigError on this thread (a worker's error would arrive as a plain Error); the workers
  // choose again for the same CPU, and so take the same graph, with the same reason.
  const cpu = options.cpu ?? readCpuFeatures();
  locateModelFiles(options.dir, options.variant, cpu);
  const { workers: _, ...engineOptions } = options;
  const pool = await createInferencePool({ ...engineOptions, cpu }, workers);
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
