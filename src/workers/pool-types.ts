/** What a worker pool (worker-pool.ts) takes and gives: its options, its interface, and why a job failed. */

import { GroundwatchError } from "../errors/groundwatch-error.ts";

/** Why a job did not get a result from a worker: each maps to a reason the caller counts. */
/** `aborted`: the caller's signal (RunOptions.signal) aborted before a result came. */
export type PoolFailure = "timeout" | "worker_crashed" | "unavailable" | "closed" | "aborted";

/** A job the pool gave up on, with why. Errors a worker's handler threw are plain Errors. */
export class PoolError extends GroundwatchError {
  override readonly code = "pool";
  readonly failure: PoolFailure;
  constructor(failure: PoolFailure, message: string) {
    super(message);
    this.name = "PoolError";
    this.failure = failure;
  }
}

export interface WorkerPoolOptions {
  /** Worker threads to keep running. */
  readonly size: number;
  /**
   * A job's time limit, from when its worker starts it: jobs sent to one worker share it and are
   * served oldest first, so a job's limit runs from when every job sent to that worker before it has
   * ended. Over it the job fails with PoolError("timeout") and the worker is told to give it up; a
   * worker that does not within `cancelGraceMs` is taken out of rotation and replaced. Default: none.
   */
  readonly timeoutMs?: number;
  /** How long a worker has to give up a job that ran past its time limit before it is replaced. Default 5 000. */
  readonly cancelGraceMs?: number;
  /** How long close() waits for a worker to end its jobs and release what it holds before ending it anyway. Default 10 000. */
  readonly closeGraceMs?: number;
  /**
   * The longest ending a worker waits for the native calls in flight on it (a batch), ms: past it the
   * worker is left running, unreferenced, rather than ended inside one, and close() resolves; on the
   * main thread, also the longest the process's exit waits for them, all workers together. Default 30 000.
   */
  readonly nativeWaitMs?: number;
  /** First delay before replacing a worker that died (doubles on each failed start, up to maxRestartDelayMs). Default 100. */
  readonly restartDelayMs?: number;
  /** Longest delay between attempts to replace a worker. Default 30 000. */
  readonly maxRestartDelayMs?: number;
  /** Called when a worker starts, dies or is replaced (for readiness and for resuming work). */
  readonly onChange?: () => void;
  /** Called each time a worker is replaced, with why it went: it crashed or exited, or it did not give up a job past its time limit. */
  readonly onRestart?: (cause: "crashed" | "timeout", message: string) => void;
}

/** Per-job options of WorkerPool.run. */
export interface RunOptions {
  /**
   * Gives the job up when it aborts: the job rejects with PoolError("aborted") at once, is withdrawn
   * from the jobs waiting for a worker, or its worker is told to give it up (and is replaced, as for a
   * job past its time limit, if it does not within `cancelGraceMs`). Already aborted: rejects at once.
   */
  readonly signal?: AbortSignal;
}

export interface WorkerPool<Q, R> {
  /** Sends a job to the least busy live worker; rejects with PoolError("unavailable") when none is live. */
  run(payload: Q, options?: RunOptions): Promise<R>;
  /** Sends the same job to every live worker (e.g. to read each one's counters); the replies, one per worker. */
  runOnEach(payload: Q): Promise<R[]>;
  /** Jobs sent and not yet answered (including those waiting for a replacement worker). */
  readonly busy: number;
  /** Workers running and able to take jobs. */
  readonly alive: number;
  readonly size: number;
  /** Workers replaced since the pool started. */
  readonly restarts: number;
  /** Why the last replacement attempt failed, while no worker is live; undefined otherwise. */
  readonly lastError: string | undefined;
  /** What the workers said the user must be told when they started (e.g. a fallback to a triage backend), each once. */
  readonly warnings: readonly string[];
  /**
   * Rejects every job not answered yet ("closed"), then closes each worker: it gives up its jobs,
   * waits until none is running, releases what it holds and ends. Resolves once every worker has
   * ended; none is ever ended inside a native call (native-gate.ts).
   */
  close(): Promise<void>;
}
