import type { Worker } from "node:worker_threads";
import { isMainThread } from "node:worker_threads";
import type { NativeGate } from "./native-gate.ts";
import { closeNativeGate, waitNativeIdleSync, whenNativeIdle } from "./native-gate.ts";
import type { RunOptions, WorkerPool, WorkerPoolOptions } from "./pool-types.ts";
import { PoolError } from "./pool-types.ts";
import type { PoolMessage, PoolReply } from "./protocol.ts";
import type { Started } from "./start-worker.ts";
import { startWorker as start } from "./start-worker.ts";

export type { PoolFailure, RunOptions, WorkerPool, WorkerPoolOptions } from "./pool-types.ts";
export { PoolError } from "./pool-types.ts";
export type { PoolControl, PoolMessage, PoolReply, PoolRequest } from "./protocol.ts";
export type { WorkerHandler, WorkerInit } from "./serve-worker.ts";
export { JobAbortedError, serveWorker } from "./serve-worker.ts";

/**
 * The worker script beside the module at `moduleUrl` (pass `import.meta.url`). Compiled
 * JavaScript starts `./worker.js` directly; TypeScript sources (tests, tsx) start
 * `./worker-entry.js`, which registers tsx's loader in the worker thread first.
 */
export function workerUrl(moduleUrl: string): URL {
  return new URL(moduleUrl.endsWith(".ts") ? "./worker-entry.js" : "./worker.js", moduleUrl);
}

interface Job<Q, R> {
  readonly id: number;
  readonly payload: Q;
  readonly resolve: (r: R) => void;
  readonly reject: (e: Error) => void;
  /** Resent once already after its worker was replaced for another job. */
  resent: boolean;
  /** Past its time limit: its caller was told, and its worker was asked to give it up. */
  cancelled: boolean;
  /** While cancelled: when its worker is replaced unless it has given the job up. */
  graceTimer: NodeJS.Timeout | undefined;
}

interface Slot<Q, R> {
  worker: Worker | undefined;
  /** The current worker's gate: closed before the worker is ended. */
  gate: NativeGate | undefined;
  /** Jobs sent to this slot's current worker, oldest first. */
  readonly jobs: Map<number, Job<Q, R>>;
  /** The job whose time limit is running (the oldest not cancelled), and its timer. */
  timed: { readonly job: Job<Q, R>; readonly timer: NodeJS.Timeout } | undefined;
  /** Consecutive failed starts (reset when the worker answers a job). */
  failures: number;
  restartTimer: NodeJS.Timeout | undefined;
  /** Resolves the wait of close() when the worker answers "closed". */
  onClosed: (() => void) | undefined;
}

/**
 * Starts `size` worker threads from `entry` and spreads requests over the least busy. Rejects if any
 * worker fails to start (the error is the worker's own). After that the pool keeps itself whole: a
 * worker that exits or crashes is replaced with backoff (its jobs fail "worker_crashed": one of them
 * may be what killed it); a job past `timeoutMs` fails "timeout" and is cancelled on its worker, which
 * is replaced only if it does not give the job up (its other jobs, innocent, are sent again once).
 *
 * No worker is ever ended while a native call may be running on it (native-gate.ts): its gate is
 * closed, the calls in flight finish, then it is terminated. On the main thread the same holds for
 * the process's exit: an 'exit' listener waits (up to `nativeWaitMs`) for the calls in flight.
 */
export async function createWorkerPool<Q, R>(entry: URL, workerData: unknown, options: WorkerPoolOptions | number): Promise<WorkerPool<Q, R>> {
  const opts: WorkerPoolOptions = typeof options === "number" ? { size: options } : options;
  const started = await Promise.allSettled(Array.from({ length: opts.size }, () => start(entry, workerData)));
  const failed = started.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed) {
    await Promise.all(started.map((s) => (s.status === "fulfilled" ? s.value.worker.terminate() : undefined)));
    throw failed.reason instanceof Error ? failed.reason : new Error(String(failed.reason));
  }
  const baseDelay = opts.restartDelayMs ?? 100;
  const maxDelay = opts.maxRestartDelayMs ?? 30_000;
  const cancelGraceMs = opts.cancelGraceMs ?? 5_000;
  const closeGraceMs = opts.closeGraceMs ?? 10_000;
  const nativeWaitMs = opts.nativeWaitMs ?? 30_000;
  const slots: Array<Slot<Q, R>> = [];
  /** Innocent jobs whose worker was replaced, waiting for a live worker. */
  const waiting: Array<Job<Q, R>> = [];
  /** The gates of every worker not ended yet (live, or waiting for its native calls to end). */
  const gates = new Set<NativeGate>();
  /** Workers taken out of rotation and not ended yet. */
  const ending = new Set<Promise<void>>();
  let nextId = 0;
  let closed = false;
  let restarts = 0;
  let lastError: string | undefined;
  // Every worker starts from the same workerData, so they say the same things: each is kept once.
  const warnings = [...new Set(started.flatMap((s) => (s.status === "fulfilled" ? s.value.warnings : [])))];
  const changed = (): void => {
    try {
      opts.onChange?.();
    } catch {
      // a listener's failure must not break the pool
    }
  };

  /**
   * Ends a worker out of rotation: no native call starts on it any more; once none is in flight, it is
   * terminated. A call that never returns (a hung runtime) leaves the worker running, unreferenced,
   * after nativeWaitMs: never ended inside it, and never holding up close().
   */
  const end = (worker: Worker, gate: NativeGate): void => {
    worker.removeAllListeners("exit");
    worker.removeAllListeners("message");
    worker.on("error", () => undefined);
    closeNativeGate(gate);
    const ended = (async (): Promise<void> => {
      if (!(await whenNativeIdle(gate, nativeWaitMs))) {
        worker.unref();
        return;
      }
      await worker.terminate().catch(() => undefined);
      gates.delete(gate);
    })();
    ending.add(ended);
    void ended.finally(() => ending.delete(ended));
  };

  /** The process exits (main thread only): close every gate and wait for the native calls in flight, or the exit aborts. */
  const onProcessExit = (): void => {
    for (const gate of gates) closeNativeGate(gate);
    const deadline = performance.now() + nativeWaitMs;
    for (const gate of gates) waitNativeIdleSync(gate, Math.max(0, deadline - performance.now()));
  };
  if (isMainThread) process.on("exit", onProcessExit);

  const post = (slot: Slot<Q, R>, message: PoolMessage<Q>): boolean => {
    try {
      slot.worker?.postMessage(message);
      return slot.worker !== undefined;
    } catch {
      return false;
    }
  };

  /** Runs the time limit of the slot's oldest job not cancelled, from now if it was not running yet. */
  const timeHead = (slot: Slot<Q, R>): void => {
    if (opts.timeoutMs === undefined) return;
    let head: Job<Q, R> | undefined;
    for (const job of slot.jobs.values()) {
      if (!job.cancelled) {
        head = job;
        break;
      }
    }
    if (slot.timed?.job === head) return;
    if (slot.timed) clearTimeout(slot.timed.timer);
    slot.timed = undefined;
    if (!head || !slot.worker) return;
    const job = head;
    const timer = setTimeout(() => onTimeout(slot, job), opts.timeoutMs);
    timer.unref?.();
    slot.timed = { job, timer };
  };

  const send = (slot: Slot<Q, R>, job: Job<Q, R>): void => {
    if (!slot.worker) return;
    slot.jobs.set(job.id, job);
    // A worker with work keeps the process alive until it answers; an idle one does not (see idle()).
    slot.worker.ref();
    try {
      slot.worker.postMessage({ id: job.id, payload: job.payload } satisfies PoolMessage<Q>);
    } catch (error) {
      slot.jobs.delete(job.id);
      job.reject(error instanceof Error ? error : new Error(String(error)));
    }
    timeHead(slot);
  };
  const live = (): Array<Slot<Q, R>> => slots.filter((s) => s.worker !== undefined);
  const leastBusy = (): Slot<Q, R> | undefined => live().reduce<Slot<Q, R> | undefined>((a, b) => (!a || b.jobs.size < a.jobs.size ? b : a), undefined);
  const sendWaiting = (): void => {
    while (waiting.length > 0) {
      const slot = leastBusy();
      if (!slot) return;
      const job = waiting.shift();
      if (job) send(slot, job);
    }
  };

  /** Empties a slot whose worker is going: cancelled jobs are done with; the others are innocent and go to another worker, once. */
  const evacuate = (slot: Slot<Q, R>, failure: (job: Job<Q, R>) => PoolError | undefined): void => {
    if (slot.timed) clearTimeout(slot.timed.timer);
    slot.timed = undefined;
    for (const job of slot.jobs.values()) {
      clearTimeout(job.graceTimer);
      if (job.cancelled) continue;
      const error = failure(job);
      if (error) job.reject(error);
      else {
        job.resent = true;
        waiting.push(job);
      }
    }
    slot.jobs.clear();
  };

  /** Takes the slot's worker out of rotation (ended safely, see end()) and schedules its replacement. */
  const retire = (slot: Slot<Q, R>, cause: "crashed" | "timeout", message: string): void => {
    const { worker, gate } = slot;
    slot.worker = undefined;
    slot.gate = undefined;
    if (worker && gate) end(worker, gate);
    if (closed) return;
    restarts++;
    try {
      opts.onRestart?.(cause, message);
    } catch {
      // a listener's failure must not break the pool
    }
    changed();
    scheduleStart(slot);
  };
  const scheduleStart = (slot: Slot<Q, R>): void => {
    const delay = Math.min(maxDelay, baseDelay * 2 ** Math.min(slot.failures, 20));
    slot.restartTimer = setTimeout(() => {
      slot.restartTimer = undefined;
      if (closed) return;
      start(entry, workerData).then(
        ({ worker, gate }) => {
          if (closed) {
            void worker.terminate();
            return;
          }
          attach(slot, worker, gate);
          if (live().length === slots.length) lastError = undefined;
          sendWaiting();
          changed();
        },
        (error: unknown) => {
          slot.failures++;
          lastError = (error as Error).message;
          scheduleStart(slot);
        },
      );
    }, delay);
    // Jobs waiting for this replacement keep the process alive; otherwise the wait does not.
    if (waiting.length === 0) slot.restartTimer.unref?.();
  };

  /**
   * Gives up a job on its worker: its caller gets `error` now, the worker is told to cancel it, and
   * is replaced if it has not given it up within cancelGraceMs (`why` says what the job did).
   */
  const giveUp = (slot: Slot<Q, R>, job: Job<Q, R>, error: PoolError, why: string): void => {
    job.cancelled = true;
    job.reject(error);
    const told = post(slot, { control: "cancel", id: job.id });
    const replace = (): void => {
      if (slot.jobs.get(job.id) !== job) return;
      evacuate(slot, (other) => (other.resent ? new PoolError("worker_crashed", "its worker was replaced twice for other jobs past their time limit") : undefined));
      retire(slot, "timeout", `${why} and its worker did not give it up within ${cancelGraceMs} ms`);
      sendWaiting();
    };
    if (!told) return replace();
    job.graceTimer = setTimeout(replace, cancelGraceMs);
    job.graceTimer.unref?.();
    // The next job's limit starts now.
    timeHead(slot);
  };
  const onTimeout = (slot: Slot<Q, R>, job: Job<Q, R>): void => {
    slot.timed = undefined;
    if (slot.jobs.get(job.id) !== job) return;
    giveUp(slot, job, new PoolError("timeout", `no result within ${opts.timeoutMs} ms of its start; it was cancelled`), `a job ran over ${opts.timeoutMs} ms`);
  };
  /** The caller's signal aborted: the job is withdrawn from the waiting jobs, or given up on its worker. */
  const onAbort = (job: Job<Q, R>): void => {
    const error = new PoolError("aborted", "the job was given up: its caller's signal aborted");
    const at = waiting.indexOf(job);
    if (at >= 0) {
      waiting.splice(at, 1);
      return job.reject(error);
    }
    const slot = slots.find((s) => s.jobs.get(job.id) === job);
    if (slot && !job.cancelled) giveUp(slot, job, error, "a job was aborted by its caller");
  };

  /**
   * An idle worker does not keep the process alive: a host that never calls shutdown() still exits
   * once its script is done and every job sent has been answered.
   */
  const idle = (slot: Slot<Q, R>): void => {
    if (slot.jobs.size === 0) slot.worker?.unref();
  };
  const attach = (slot: Slot<Q, R>, worker: Worker, gate: NativeGate): void => {
    slot.worker = worker;
    slot.gate = gate;
    gates.add(gate);
    let crash: string | undefined;
    worker.on("message", (m: PoolReply<R>) => {
      if (m.type === "closed") return slot.onClosed?.();
      if (m.type !== "result" && m.type !== "failed") return;
      const job = slot.jobs.get(m.id);
      if (!job) return;
      slot.jobs.delete(m.id);
      clearTimeout(job.graceTimer);
      slot.failures = 0;
      if (!job.cancelled) {
        if (m.type === "result") job.resolve(m.value);
        else job.reject(new Error(m.message));
      }
      timeHead(slot);
      idle(slot);
    });
    worker.on("error", (e: Error) => {
      crash = e.message;
    });
    worker.on("exit", (code: number) => {
      if (slot.worker !== worker) return;
      // The thread is gone, and with it whatever ran on it: its gate no longer guards anything.
      gates.delete(gate);
      slot.gate = undefined;
      const message = crash ? `worker crashed: ${crash}` : `worker exited with code ${code}`;
      evacuate(slot, () => new PoolError("worker_crashed", message));
      retire(slot, "crashed", message);
    });
    // After the listeners: adding a message listener refs the worker's port again.
    idle(slot);
  };

  for (const s of started) {
    const slot: Slot<Q, R> = { worker: undefined, gate: undefined, jobs: new Map(), timed: undefined, failures: 0, restartTimer: undefined, onClosed: undefined };
    slots.push(slot);
    const { worker, gate } = (s as PromiseFulfilledResult<Started>).value;
    attach(slot, worker, gate);
  }

  /** Closes one worker: it ends its jobs and releases what it holds ("closed"), or the grace passes; then it is ended safely. */
  const closeSlot = async (slot: Slot<Q, R>): Promise<void> => {
    const { worker, gate } = slot;
    if (!worker || !gate) return;
    // Out of rotation first: its exit from here on is the end of this close, not a crash to replace.
    slot.worker = undefined;
    slot.gate = undefined;
    // No new inference starts on it: its jobs' next batches are refused at once.
    closeNativeGate(gate);
    let timer: NodeJS.Timeout | undefined;
    const answered = new Promise<void>((resolve) => {
      slot.onClosed = resolve;
      worker.once("exit", () => resolve());
      timer = setTimeout(resolve, closeGraceMs);
    });
    try {
      worker.postMessage({ control: "close" } satisfies PoolMessage<Q>);
      await answered;
    } catch {
      // It cannot be told: it is ended below, as safely.
    }
    clearTimeout(timer);
    slot.onClosed = undefined;
    end(worker, gate);
  };

  return {
    get busy() {
      return slots.reduce((n, s) => n + s.jobs.size, 0) + waiting.length;
    },
    get alive() {
      return live().length;
    },
    size: opts.size,
    get restarts() {
      return restarts;
    },
    get lastError() {
      return live().length === 0 ? lastError : undefined;
    },
    warnings,
    run(payload: Q, runOptions?: RunOptions): Promise<R> {
      if (closed) return Promise.reject(new PoolError("closed", "worker pool is closed"));
      const signal = runOptions?.signal;
      if (signal?.aborted) return Promise.reject(new PoolError("aborted", "the job was given up: its caller's signal aborted"));
      const slot = leastBusy();
      if (!slot) return Promise.reject(new PoolError("unavailable", `no scoring worker is running${lastError ? ` (last start failed: ${lastError})` : ""}`));
      return new Promise<R>((resolve, reject) => {
        const abort = (): void => onAbort(job);
        const done = (): void => signal?.removeEventListener("abort", abort);
        const job: Job<Q, R> = { id: nextId++, payload, resolve: (r) => { done(); resolve(r); }, reject: (e) => { done(); reject(e); }, resent: false, cancelled: false, graceTimer: undefined };
        signal?.addEventListener("abort", abort, { once: true });
        send(slot, job);
      });
    },
    runOnEach(payload: Q): Promise<R[]> {
      if (closed) return Promise.reject(new PoolError("closed", "worker pool is closed"));
      return Promise.all(live().map((slot) => new Promise<R>((resolve, reject) => send(slot, { id: nextId++, payload, resolve, reject, resent: false, cancelled: false, graceTimer: undefined }))));
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      for (const slot of slots) {
        clearTimeout(slot.restartTimer);
        evacuate(slot, () => new PoolError("closed", "worker pool closed"));
      }
      for (const job of waiting.splice(0)) job.reject(new PoolError("closed", "worker pool closed"));
      await Promise.all(slots.map((slot) => closeSlot(slot)));
      await Promise.all([...ending]);
      if (isMainThread) process.off("exit", onProcessExit);
    },
  };
}
