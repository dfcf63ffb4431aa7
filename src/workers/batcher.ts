/**
 * Batching across observations: the pairs of every caller in flight are gathered into
 * length-bucketed batches for the inference workers, within a wait bound, and each result is
 * routed back to the caller that sent it.
 */

import type { BatchQueue } from "./batch-queue.ts";
import { createRankedQueue } from "./ranked-queue.ts";
import { GroundwatchError } from "../errors/groundwatch-error.ts";

/** A timer's handle, as the injected `setTimer` returns it. */
export type TimerHandle = unknown;

export interface DynamicBatcherOptions<T, R> {
  /** Most items in one batch (≥ 1). */
  readonly maxBatch: number;
  /** Longest the oldest queued item waits for others to fill its batch while a slot is free, in ms; 0 = dispatch at once. */
  readonly waitMs: number;
  /** Batches that may run at once now (the inference workers able to take one); read before each dispatch. */
  readonly slots: () => number;
  /** Runs one batch: one result per item, in order, or a rejection for the whole batch. */
  readonly run: (items: readonly T[]) => Promise<readonly R[]>;
  /** An item's length proxy (e.g. characters of premise + hypothesis): batches gather items near in length. */
  readonly lengthOf: (item: T) => number;
  /** Identical items queued at once are run once and answered to each (key by content); without it, none are merged. */
  readonly keyOf?: (item: T) => string;
  /** The clock the wait bound is measured on (ms). Default Date.now. */
  readonly now?: () => number;
  /** Starts a timer (default setTimeout). */
  readonly setTimer?: (fn: () => void, ms: number) => TimerHandle;
  /** Stops a timer (default clearTimeout). */
  readonly clearTimer?: (handle: TimerHandle) => void;
}

/** How one submit is made. */
export interface SubmitOptions {
  /** Withdraws the submit's items still queued and rejects it with the signal's reason (a batch in flight that holds some runs on for its other submitters). */
  readonly signal?: AbortSignal;
  /** Lower ranks lead the batches (ranked-queue.ts); default: unranked, after every ranked submit. */
  readonly rank?: number;
}

export interface DynamicBatcher<T, R> {
  /** Queues `items`; resolves with their results in order, or rejects once with the error of a failed batch that held one of them (or when its signal aborts). */
  submit(items: readonly T[], options?: SubmitOptions): Promise<R[]>;
  /** Items queued and not dispatched yet. */
  readonly queued: number;
  /** Batches dispatched and not settled yet. */
  readonly inFlight: number;
  /** Rejects every submitter with items still queued; later submits reject. Batches in flight settle as they do. */
  close(): void;
}

interface Submitter<T, R> {
  readonly results: R[];
  /** The entries it queued (those still queued are withdrawn when it fails). */
  readonly entries: Array<Entry<T, R>>;
  remaining: number;
  done: boolean;
  readonly resolve: (r: R[]) => void;
  readonly reject: (e: Error) => void;
}

interface Entry<T, R> {
  readonly rank: number;
  readonly item: T;
  readonly length: number;
  readonly key: string | undefined;
  readonly at: number;
  readonly submitter: Submitter<T, R>;
  readonly index: number;
}

/** The signal's reason as an Error. */
function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(reason === undefined ? "onnx backend: the call was aborted" : String(reason));
}

/** The error close() rejects queued submitters with. */
export class BatcherClosedError extends GroundwatchError {
  override readonly code = "batcher_closed";
  constructor() {
    super("onnx backend: the inference batcher is closed");
    this.name = "BatcherClosedError";
  }
}

/**
 * A dynamic batcher. A batch is dispatched when a slot is free and either `maxBatch` items are queued
 * or the oldest has waited `waitMs` (a timer is armed for the oldest's remaining wait otherwise).
 * Queued items from every submitter are batched together, so what queues while every slot is busy
 * goes out as one batch when one frees. A failed batch rejects exactly the submitters with an item in
 * it, each once; their items still queued are withdrawn; no other submitter is affected. Holds no
 * module-level state; the clock and timers are injectable.
 */
export function createDynamicBatcher<T, R>(options: DynamicBatcherOptions<T, R>): DynamicBatcher<T, R> {
  const maxBatch = Math.max(1, Math.floor(options.maxBatch));
  const waitMs = Math.max(0, options.waitMs);
  const now = options.now ?? Date.now;
  const setTimer = options.setTimer ?? ((fn: () => void, ms: number): TimerHandle => setTimeout(fn, ms));
  const clearTimer = options.clearTimer ?? ((h: TimerHandle): void => clearTimeout(h as NodeJS.Timeout));
  const queue: BatchQueue<Entry<T, R>> = createRankedQueue();
  let inFlight = 0;
  let closed = false;
  let timer: { handle: TimerHandle; at: number } | undefined;

  const disarm = (): void => {
    if (timer) clearTimer(timer.handle);
    timer = undefined;
  };
  const fail = (submitters: Iterable<Submitter<T, R>>, error: Error): void => {
    for (const s of submitters) {
      if (s.done) continue;
      s.done = true;
      queue.withdraw(s.entries);
      s.reject(error);
    }
  };
  const dispatch = (): void => {
    const { entries, slotOf, distinct } = queue.take(maxBatch);
    const items = new Array<T>(distinct);
    entries.forEach((e, k) => (items[slotOf[k] as number] = e.item));
    inFlight++;
    const settle = (results: readonly R[] | undefined, error: Error | undefined): void => {
      inFlight--;
      if (error || !results || results.length !== items.length) {
        fail(
          entries.map((e) => e.submitter),
          error ?? new Error(`onnx backend: a batch of ${items.length} pair(s) returned ${results?.length ?? 0} result(s)`),
        );
      } else {
        entries.forEach((e, k) => {
          const s = e.submitter;
          if (s.done) return;
          s.results[e.index] = results[slotOf[k] as number] as R;
          if (--s.remaining === 0) {
            s.done = true;
            s.resolve(s.results);
          }
        });
      }
      pump();
    };
    let running: Promise<readonly R[]>;
    try {
      running = options.run(items);
    } catch (error) {
      running = Promise.reject(error);
    }
    running.then(
      (results) => settle(results, undefined),
      (error: unknown) => settle(undefined, error instanceof Error ? error : new Error(String(error))),
    );
  };
  const pump = (): void => {
    if (closed) return;
    let oldest: Entry<T, R> | undefined;
    while ((oldest = queue.oldest()) && inFlight < Math.max(1, options.slots())) {
      const left = oldest.at + waitMs - now();
      if (queue.size < maxBatch && left > 0) {
        // Not full and the oldest may still wait: come back when its wait is over.
        const at = oldest.at + waitMs;
        if (!timer || timer.at !== at) {
          disarm();
          const handle = setTimer(() => {
            timer = undefined;
            pump();
          }, left);
          timer = { handle, at };
        }
        return;
      }
      disarm();
      dispatch();
    }
    if (queue.size === 0) disarm();
  };

  return {
    submit(items: readonly T[], submitOptions: SubmitOptions = {}): Promise<R[]> {
      const { signal } = submitOptions;
      const rank = submitOptions.rank ?? Infinity;
      if (closed) return Promise.reject(new BatcherClosedError());
      if (signal?.aborted) return Promise.reject(abortError(signal));
      if (items.length === 0) return Promise.resolve([]);
      return new Promise<R[]>((resolve, reject) => {
        const onAbort = (): void => fail([submitter], abortError(signal as AbortSignal));
        const settled = (): void => signal?.removeEventListener("abort", onAbort);
        const submitter: Submitter<T, R> = {
          results: new Array<R>(items.length),
          entries: [],
          remaining: items.length,
          done: false,
          resolve: (r) => {
            settled();
            resolve(r);
          },
          reject: (e) => {
            settled();
            reject(e);
          },
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        const at = now();
        items.forEach((item, index) => {
          const entry: Entry<T, R> = { item, length: options.lengthOf(item), key: options.keyOf?.(item), at, submitter, index, rank };
          submitter.entries.push(entry);
          queue.push(entry);
        });
        pump();
      });
    },
    get queued() {
      return queue.size;
    },
    get inFlight() {
      return inFlight;
    },
    close(): void {
      if (closed) return;
      closed = true;
      disarm();
      fail(
        queue.clear().map((e) => e.submitter),
        new BatcherClosedError(),
      );
    },
  };
}
