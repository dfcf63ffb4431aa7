import type { CallOptions, NliPair, NliResult, RelevancePair, SpanDetection, SpanInput } from "../../core/backend.ts";
import { nliPairKey, pairKey, relevancePairKey } from "../../core/pair-key.ts";
import type { WorkerPool } from "../../workers/worker-pool.ts";
import { createWorkerPool, workerUrl } from "../../workers/worker-pool.ts";
import type { DynamicBatcher, SubmitOptions } from "../../workers/batcher.ts";
import { createDynamicBatcher } from "../../workers/batcher.ts";
import type { InferenceStats, OnnxEngineOptions, OnnxModelInfo } from "./engine.ts";
import type { RelevanceModelInfo } from "./relevance-engine.ts";
import type { SpanModelInfo } from "./token-engine.ts";
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

/** What tells one model head's pool from another's: the head its workers load, how a batch is asked for, and a pair's length and key. */
export interface HeadSpec<T> {
  readonly head: NonNullable<OnnxWorkerData["head"]>;
  /** The worker request that runs one batch (only the pairs' texts travel). */
  readonly request: (part: readonly T[]) => OnnxWorkerRequest;
  readonly lengthOf: (t: T) => number;
  /** Identical pairs queued at once run once: the one pair key (core/pair-key.ts). */
  readonly keyOf: (t: T) => string;
}

/** A pool of one head's workers behind a batcher: `run` resolves to one R per pair, in order. */
interface HeadPool<T, R, I> {
  readonly info: I;
  run(pairs: readonly T[], options?: CallOptions): Promise<R[]>;
  stats(): Promise<InferenceStats>;
  close(): Promise<void>;
}

export const NLI_HEAD: HeadSpec<NliPair> = {
  head: "nli",
  request: (part) => ({ kind: "classify", pairs: part.map(({ premise, hypothesis }) => ({ premise, hypothesis })) }),
  lengthOf: (p) => p.premise.length + p.hypothesis.length,
  keyOf: nliPairKey,
};

export const RELEVANCE_HEAD: HeadSpec<RelevancePair> = {
  head: "relevance",
  request: (part) => ({ kind: "relevance", pairs: part.map(({ query, passage }) => ({ query, passage })) }),
  lengthOf: (p) => p.query.length + p.passage.length,
  keyOf: relevancePairKey,
};

/** One answer of a span detector queues as one item: its texts travel, its length is theirs, and identical inputs in flight run once. */
export const SPANS_HEAD: HeadSpec<SpanInput> = {
  head: "spans",
  request: (part) => ({ kind: "spans", inputs: part.map(({ answer, passages, question }) => ({ answer, passages: [...passages], ...(question !== undefined ? { question } : {}) })) }),
  lengthOf: (i) => i.answer.length + i.passages.reduce((n, p) => n + p.length, 0) + (i.question?.length ?? 0),
  // Each text's length leads its part (pairKey), so no two different inputs share a key; the question's presence is marked.
  keyOf: (i) => pairKey(i.question === undefined ? "-" : `+${pairKey(i.question, "")}`, [i.answer, ...i.passages].map((t) => pairKey(t, "")).join("")),
};

/**
 * Runs one head's inference in worker threads, so the host's event loop never waits on a model.
 * The pairs of every call in flight are gathered into length-bucketed batches (batcher.ts), each
 * sent to the least busy worker.
 */
async function createHeadPool<T, R, I>(spec: HeadSpec<T>, options: OnnxEngineOptions, sizing: InferencePoolOptions | number): Promise<HeadPool<T, R, I>> {
  const opts: InferencePoolOptions = typeof sizing === "number" ? { size: sizing } : sizing;
  const data: OnnxWorkerData = { ...options, head: spec.head };
  const pool = await createWorkerPool<OnnxWorkerRequest, OnnxWorkerReply>(workerUrl(import.meta.url), data, opts.size);
  const info = (await pool.run({ kind: "info" })) as I;
  const batcher = batcherFor<T, R>(pool, options, opts, (part) => pool.run(spec.request(part)) as Promise<R[]>, spec.lengthOf, spec.keyOf);
  return {
    info,
    run: (pairs, callOptions) => batcher.submit(pairs, submitOptions(callOptions)),
    stats: () => sumStats(pool),
    close: async () => {
      batcher.close();
      await pool.close();
    },
  };
}

/** An NLI model's pool (engine.ts): classify resolves to one NliResult per pair. */
export async function createInferencePool(options: OnnxEngineOptions, sizing: InferencePoolOptions | number): Promise<InferencePool> {
  const pool = await createHeadPool<NliPair, NliResult, OnnxModelInfo>(NLI_HEAD, options, sizing);
  return { info: pool.info, classify: (pairs, callOptions) => pool.run(pairs, callOptions), stats: () => pool.stats(), close: () => pool.close() };
}

/** A relevance cross-encoder's pool (relevance-engine.ts): its own workers, each with its own session. */
export async function createRelevancePool(options: OnnxEngineOptions, sizing: InferencePoolOptions | number): Promise<RelevancePool> {
  const pool = await createHeadPool<RelevancePair, number, RelevanceModelInfo>(RELEVANCE_HEAD, options, sizing);
  return { info: pool.info, score: (pairs, callOptions) => pool.run(pairs, callOptions), stats: () => pool.stats(), close: () => pool.close() };
}

export interface SpanPool {
  readonly info: SpanModelInfo;
  /** One detection per answer, in order. */
  detect(inputs: readonly SpanInput[], options?: CallOptions): Promise<SpanDetection[]>;
  /** session.run calls and model inputs (answer × passage group) run so far, summed over the workers. */
  stats(): Promise<InferenceStats>;
  close(): Promise<void>;
}

/** A span detector's pool (token-engine.ts): answers of every call in flight batched together, each worker with its own session. */
export async function createSpanPool(options: OnnxEngineOptions & { readonly language?: string }, sizing: InferencePoolOptions | number): Promise<SpanPool> {
  const pool = await createHeadPool<SpanInput, SpanDetection, SpanModelInfo>(SPANS_HEAD, options, sizing);
  return { info: pool.info, detect: (inputs, callOptions) => pool.run(inputs, callOptions), stats: () => pool.stats(), close: () => pool.close() };
}
