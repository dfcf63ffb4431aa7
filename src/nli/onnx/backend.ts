import type { CallOptions, EntailmentBackend, RelevancePair, RelevanceScorerInfo } from "../../core/backend.ts";
import { ConfigError, isConfigError } from "../../config/errors.ts";
import { VARIANT_NAMES } from "../../config/variant.ts";
import type { InferenceStats, OnnxEngineOptions, OnnxModelInfo } from "./engine.ts";
import { NLI_RECIPE } from "../recipes/onnx.ts";
import { recogniseRecipe } from "../recipes/recognise.ts";
import { locateModelFiles } from "./model-dir.ts";
import { readModelFiles } from "./model-read.ts";
import type { InferencePool, RelevancePool } from "./pool.ts";
import { createInferencePool, createRelevancePool } from "./pool.ts";
import { OFFLINE_RELEVANCE_THRESHOLDS } from "../offline/backend.ts";
import type { RelevanceModelInfo } from "./relevance-engine.ts";
import type { OnnxImporter } from "./runtime.ts";
import { loadOnnxRuntime } from "./runtime.ts";
import type { CpuFeatures } from "./variants.ts";
import { readCpuFeatures } from "./variants.ts";

export interface OnnxBackendOptions extends OnnxEngineOptions {
  /** Worker threads, each with its own session (default 1); a relevance model gets as many of its own. */
  readonly workers?: number;
  /**
   * The wait bound, in ms: the longest a pair waits for other observations' pairs to fill its batch
   * (of at most `maxBatch`) while an inference worker is idle; 0 = never wait. Default 5.
   */
  readonly batchWaitMs?: number;
  /**
   * A relevance cross-encoder's directory (relevance-engine.ts: one logit per pair, read as its
   * sigmoid). Its graph is chosen as the NLI model's: by `variant` when that names a kind (auto,
   * fp32, int8, quantized, …), by auto when it names one file of the NLI model. Without it,
   * relevance is `lexicalRelevance`'s.
   */
  readonly relevanceDir?: string;
}

export interface OnnxBackend extends EntailmentBackend {
  readonly model: OnnxModelInfo;
  /** The relevance cross-encoder, when one is loaded. */
  readonly relevanceModel?: RelevanceModelInfo;
  /** session.run calls and pairs run so far, summed over the NLI inference workers (for tests and the bench). */
  inferenceStats(): Promise<InferenceStats>;
}

export interface OnnxBackendDeps {
  /** Imports onnxruntime-node (default: the real import); injected in tests. */
  readonly importOnnxRuntime?: OnnxImporter;
  /**
   * Without a relevance model: builds the backend whose relevance this one answers with (the
   * registry passes the offline backend: lexical relevance), on first use, closed with this one.
   * Without either, the backend has no relevance.
   */
  readonly lexicalRelevance?: () => EntailmentBackend;
}

/** The graph request for the relevance model: the NLI model's `variant` when it names a kind, else auto. */
export function relevanceVariant(variant: string | undefined): string {
  return variant !== undefined && (VARIANT_NAMES as readonly string[]).includes(variant) ? variant : "auto";
}

/**
 * A model's version: its directory's last two parts, its graph and the graph's hash, and the recipe
 * that reads it unless that is the NLI one (one graph read by two recipes gives two answers).
 */
function modelVersion(info: { readonly dir: string; readonly graph: string; readonly graphSha256: string; readonly recipe?: { readonly name: string } }): string {
  const recipe = info.recipe && info.recipe.name !== NLI_RECIPE.name ? ` recipe ${info.recipe.name}` : "";
  return `${info.dir.replace(/\/+$/, "").split("/").slice(-2).join("/")}:${info.graph}@${info.graphSha256}${recipe}`;
}

/** Starts the relevance pool, after choosing its graph on this thread (a ConfigError here, not from a worker). */
async function startRelevance(options: OnnxBackendOptions, dir: string, cpu: CpuFeatures, workers: number): Promise<RelevancePool> {
  const variant = relevanceVariant(options.variant);
  locateModelFiles(dir, variant, cpu);
  // A relevance model is read by RELEVANCE_RECIPE, whatever recipe the NLI model has.
  const { workers: _, relevanceDir: __, batchWaitMs, recipe: ___, ...engineOptions } = options;
  return createRelevancePool({ ...engineOptions, dir, variant, cpu }, { size: workers, ...(batchWaitMs !== undefined ? { batchWaitMs } : {}) });
}

/**
 * A local NLI cross-encoder (tier production), inferring in worker threads. onnxruntime-node
 * is loaded here first, on the calling thread, so that a missing runtime rejects with an
 * OnnxRuntimeMissingError (a ConfigError) rather than a message relayed from a worker.
 * Relevance: a relevance cross-encoder in its own workers when `relevanceDir` is given (refused at
 * start, a ConfigError on relevanceModel, when it cannot be loaded or its graph has not exactly one
 * logit per pair), else `deps.lexicalRelevance`'s;
 * `relevanceScorer` says which.
 */
export async function createOnnxBackend(options: OnnxBackendOptions, deps: OnnxBackendDeps = {}): Promise<OnnxBackend> {
  const workers = options.workers ?? 1;
  if (!Number.isInteger(workers) || workers < 1) throw new Error(`onnx backend: workers must be a positive integer (got ${workers})`);
  await loadOnnxRuntime(deps.importOnnxRuntime);
  // The graph is chosen here too, so that a variant the directory cannot satisfy is a
  // ConfigError on this thread (a worker's error would arrive as a plain Error); the workers
  // choose again for the same CPU, and so take the same graph, with the same reason.
  const cpu = options.cpu ?? readCpuFeatures();
  // So is the recipe: an unknown name is a ConfigError on recipe, and a model no recipe fits is refused, here.
  const found = readModelFiles({ ...options, cpu });
  recogniseRecipe({ name: options.recipe, dir: found.files.dir, config: found.config, source: found.files.config });
  const { workers: _, relevanceDir, batchWaitMs, ...engineOptions } = options;
  const pool: InferencePool = await createInferencePool({ ...engineOptions, cpu }, { size: workers, ...(batchWaitMs !== undefined ? { batchWaitMs } : {}) });
  let relevancePool: RelevancePool | undefined;
  if (relevanceDir !== undefined) {
    try {
      relevancePool = await startRelevance(options, relevanceDir, cpu, workers);
    } catch (error) {
      await pool.close();
      // A relevance model that cannot be loaded (not a single-logit cross-encoder, a broken graph) is the
      // configured relevanceModel's fault: a ConfigError naming it, as a variant it cannot satisfy is one on variant.
      if (isConfigError(error)) throw error;
      throw new ConfigError("relevanceModel", relevanceDir, (error as Error).message.replace(/^onnx backend: /, ""));
    }
  }
  const lexicalRelevance = deps.lexicalRelevance;
  let lexical: EntailmentBackend | undefined;
  const lexicalBackend = (): EntailmentBackend | undefined => (lexicalRelevance ? (lexical ??= lexicalRelevance()) : undefined);
  const relevance = relevancePool
    ? (pairs: readonly RelevancePair[], callOptions?: CallOptions): Promise<number[]> => (relevancePool as RelevancePool).score(pairs, callOptions)
    : lexicalRelevance
      ? (pairs: readonly RelevancePair[]): Promise<number[]> => {
          const backend = lexicalBackend();
          return backend?.relevance ? backend.relevance(pairs) : Promise.reject(new Error("onnx backend: the lexical relevance backend has no relevance"));
        }
      : undefined;
  const relevanceScorer: RelevanceScorerInfo | undefined = relevancePool ? { name: "onnx", model: modelVersion(relevancePool.info) } : lexicalRelevance ? { name: "offline-lexical" } : undefined;
  return {
    name: "onnx",
    version: modelVersion(pool.info),
    tier: "production",
    recommendedThreshold: 0.5,
    // Lexical relevance is the offline backend's, read against the thresholds fitted for it; a cross-encoder's sigmoid against 0.5.
    ...(relevancePool === undefined && lexicalRelevance ? { recommendedRelevanceThresholds: OFFLINE_RELEVANCE_THRESHOLDS } : {}),
    model: pool.info,
    ...(relevancePool ? { relevanceModel: relevancePool.info } : {}),
    ...(relevance ? { relevance } : {}),
    ...(relevanceScorer ? { relevanceScorer } : {}),
    classify: (pairs, callOptions) => pool.classify(pairs, callOptions),
    inferenceStats: () => pool.stats(),
    close: async () => {
      await Promise.all([pool.close(), relevancePool?.close(), lexical?.close()]);
    },
  };
}
