import type { CallOptions, NliPair, NliResult, RelevancePair } from "../../core/backend.ts";
import type { WorkerPool } from "../../workers/worker-pool.ts";
import { createWorkerPool, workerUrl } from "../../workers/worker-pool.ts";
import type { DynamicBatcher, SubmitOptions } from "../../workers/batcher.ts";
import { createDynamicBatcher } from "../../workers/batcher.ts";
import type { InferenceStats, OnnxEngineOptions, OnnxModelInfo } from "./engine.ts";
import type { RelevanceModelInfo } from "./relevance-engine.ts";
import type { OnnxWorkerData, OnnxWorkerReply, OnnxWorkerRequest } from "./worker.ts";

export interface InferencePool {
  readonly info: OnnxModelInfo;
  classify(pairs: readonly NliPair[], options?: CallOptions): Promise<NliResult[]>;
  /** session.run calls and pairs run so far, summed over the workers. */
  stats(): Promise<InferenceStats>;
  close(): Promise<void>;
}

export interface RelevancePool {
  readonly info: RelevanceModelInfo;
  /** sigmoid(logit) per pair, in order. */
  score(pairs: readonly RelevancePair[], options?: CallOptions): Promise<number[]>;
  /** session.run calls and pairs run so far, summed over the workers. */
  stats(): Promise<InferenceStats>;
  close(): Promise<void>;
}

/** How a pool batches the pairs of every caller in flight (batcher.ts). */
export interface InferencePoolOptions {
  /** Worker threads, each with its own session. */
  readonly size: number;
  /** Longest a pair waits for other callers' pairs to fill its batch while a worker is idle, in ms; 0 = never wait. Default 5. */
  readonly batchWaitMs?: number;
  /** Batches each worker is sent at once. Default BATCHES_PER_WORKER (for the timing comparison). */
  readonly batchesPerWorker?: number;
}

/**
 * Batches each worker is sent at once: one. A second batch in flight would overlap its tokenisation
 * with the first one's session.run, but it runs the same session concurrently (contending for its
 * intra-op threads), and it takes pairs out of the queue before they can fill a batch. Measured
 * (16 clients × 30 observations of 4 pairs, MiniLM-L6-shaped graph, seq ≤ 128, one worker, one
 * intra-op thread, wait bound 2 ms, inferenceStats for runs; on 2 shared cores at a load average of about 7, so noisy):
 * one in flight ran full batches (32.0 pairs a run) at fp32 13.3 / 11.3 pairs/s and int8 29.9 / 25.7;
 * two ran 21–27 pairs a run at fp32 11.6 and int8 41.0 / 26.5 — no gain beyond the noise, smaller
 * batches, and two concurrent runs of one session.
 */
export const BATCHES_PER_WORKER = 1;

/** A pair's length proxy: its characters. */
const nliLength = (p: NliPair): number => p.premise.length + p.hypothesis.length;
const relevanceLength = (p: RelevancePair): number => p.query.length + p.passage.length;
/** Identical pairs (same texts) queued at once run once. The first length makes the key unambiguous. */
const nliKey = (p: NliPair): string => `${p.premise.length}:${p.premise}${p.hypothesis}`;
const relevanceKey = (p: RelevancePair): string => `${p.query.length}:${p.query}${p.passage}`;

/** What the batcher takes of a call's options. */
function submitOptions(options: CallOptions | undefined): SubmitOptions {
  return { ...(options?.signal ? { signal: options.signal } : {}), ...(options?.rank !== undefined ? { rank: options.rank } : {}) };
}

async function sumStats(pool: WorkerPool<OnnxWorkerRequest, OnnxWorkerReply>): Promise<InferenceStats> {
  const each = (await pool.runOnEach({ kind: "stats" })) as InferenceStats[];
  return each.reduce((a, b) => ({ runs: a.runs + b.runs, pairs: a.pairs + b.pairs }), { runs: 0, pairs: 0 });
}

/** A batcher feeding `pool`'s workers: at most maxBatch pairs a batch, BATCHES_PER_WORKER per live worker. */
function batcherFor<T, R>(pool: WorkerPool<OnnxWorkerRequest, OnnxWorkerReply>, options: OnnxEngineOptions, sizing: InferencePoolOptions, run: (part: readonly T[]) => Promise<readonly R[]>, lengthOf: (t: T) => number, keyOf: (t: T) => string): DynamicBatcher<T, R> {
  return createDynamicBatcher<T, R>({
    maxBatch: Math.max(1, options.maxBatch ?? 32),
    waitMs: sizing.batchWaitMs ?? 5,
    // No live worker (one is being replaced): one batch goes, and the pool answers it (queued or "unavailable").
    slots: () => Math.max(1, pool.alive) * (sizing.batchesPerWorker ?? BATCHES_PER_WORKER),
    run,
    lengthOf,
    keyOf,
  });
}

/**
 * Runs inference in worker threads, so the host's event loop never waits on a model. The pairs of
 * every call in flight are gathered into length-bucketed batches (batcher.ts), each sent to the
 * least busy worker.
 */
export async function createInferencePool(options: OnnxEngineOptions, sizing: InferencePoolOptions | number): Promise<InferencePool> {
  const opts: InferencePoolOptions = typeof sizing === "number" ? { size: sizing } : sizing;
  const data: OnnxWorkerData = { ...options, head: "nli" };
  const pool = await createWorkerPool<OnnxWorkerRequest, OnnxWorkerReply>(workerUrl(import.meta.url), data, opts.size);
  const info = (await pool.run({ kind: "info" })) as OnnxModelInfo;
  const batcher = batcherFor<NliPair, NliResult>(
    pool,
    options,
    opts,
    (part) => pool.run({ kind: "classify", pairs: part.map(({ premise, hypothesis }) => ({ premise, hypothesis })) }) as Promise<NliResult[]>,
    nliLength,
    nliKey,
  );
  return {
    info,
    classify: (pairs, callOptions) => batcher.submit(pairs, submitOptions(callOptions)),
    stats: () => sumStats(pool),
    close: async () => {
      batcher.close();
      await pool.close();
    },
  };
}

/** The same machinery for a relevance cross-encoder (relevance-engine.ts): its own workers, each with its own session. */
export async function createRelevancePool(options: OnnxEngineOptions, sizing: InferencePoolOptions | number): Promise<RelevancePool> {
  const opts: InferencePoolOptions = typeof sizing === "number" ? { size: sizing } : sizing;
  const data: OnnxWorkerData = { ...options, head: "relevance" };
  const pool = await createWorkerPool<OnnxWorkerRequest, OnnxWorkerReply>(workerUrl(import.meta.url), data, opts.size);
  const info = (await pool.run({ kind: "info" })) as RelevanceModelInfo;
  const batcher = batcherFor<RelevancePair, number>(
    pool,
    options,
    opts,
    (part) => pool.run({ kind: "relevance", pairs: part.map(({ query, passage }) => ({ query, passage })) }) as Promise<number[]>,
    relevanceLength,
    relevanceKey,
  );
  return {
    info,
    score: (pairs, callOptions) => batcher.submit(pairs, submitOptions(callOptions)),
    stats: () => sumStats(pool),
    close: async () => {
      batcher.close();
      await pool.close();
    },
  };
}
