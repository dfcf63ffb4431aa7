import type { NliPair, NliResult, RelevancePair } from "../../core/backend.ts";
import { createWorkerPool, workerUrl } from "../../runtime/worker-pool.ts";
import type { OnnxEngineOptions, OnnxModelInfo } from "./engine.ts";
import type { RelevanceModelInfo } from "./relevance-engine.ts";
import type { OnnxWorkerData, OnnxWorkerReply, OnnxWorkerRequest } from "./worker.ts";

export interface InferencePool {
  readonly info: OnnxModelInfo;
  classify(pairs: readonly NliPair[]): Promise<NliResult[]>;
  close(): Promise<void>;
}

export interface RelevancePool {
  readonly info: RelevanceModelInfo;
  /** sigmoid(logit) per pair, in order. */
  score(pairs: readonly RelevancePair[]): Promise<number[]>;
  close(): Promise<void>;
}

/** Splits `items` into chunks of `chunk`, runs each on the pool (least busy worker first), and joins the replies in order. */
async function chunked<T, R>(items: readonly T[], chunk: number, run: (part: T[]) => Promise<R[]>): Promise<R[]> {
  if (items.length === 0) return [];
  const parts: Array<Promise<R[]>> = [];
  for (let i = 0; i < items.length; i += chunk) parts.push(run(items.slice(i, i + chunk)));
  return (await Promise.all(parts)).flat();
}

/**
 * Runs inference in worker threads, so the host's event loop never waits on a
 * model. A call is split into chunks spread over the least busy workers.
 */
export async function createInferencePool(options: OnnxEngineOptions, size: number): Promise<InferencePool> {
  const data: OnnxWorkerData = { ...options, head: "nli" };
  const pool = await createWorkerPool<OnnxWorkerRequest, OnnxWorkerReply>(workerUrl(import.meta.url), data, size);
  const info = (await pool.run({ kind: "info" })) as OnnxModelInfo;
  const chunk = Math.max(1, options.maxBatch ?? 32);
  return {
    info,
    classify: (pairs) => chunked(pairs, chunk, (part) => pool.run({ kind: "classify", pairs: part.map(({ premise, hypothesis }) => ({ premise, hypothesis })) }) as Promise<NliResult[]>),
    close: () => pool.close(),
  };
}

/** The same machinery for a relevance cross-encoder (relevance-engine.ts): its own workers, each with its own session. */
export async function createRelevancePool(options: OnnxEngineOptions, size: number): Promise<RelevancePool> {
  const data: OnnxWorkerData = { ...options, head: "relevance" };
  const pool = await createWorkerPool<OnnxWorkerRequest, OnnxWorkerReply>(workerUrl(import.meta.url), data, size);
  const info = (await pool.run({ kind: "info" })) as RelevanceModelInfo;
  const chunk = Math.max(1, options.maxBatch ?? 32);
  return {
    info,
    score: (pairs) => chunked(pairs, chunk, (part) => pool.run({ kind: "relevance", pairs: part.map(({ query, passage }) => ({ query, passage })) }) as Promise<number[]>),
    close: () => pool.close(),
  };
}
