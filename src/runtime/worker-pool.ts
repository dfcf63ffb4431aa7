import type { MessagePort } from "node:worker_threads";
import { Worker } from "node:worker_threads";

/**
 * The worker script beside the module at `moduleUrl` (pass `import.meta.url`). Compiled
 * JavaScript starts `./worker.js` directly; TypeScript sources (tests, tsx) start
 * `./worker-entry.js`, which registers tsx's loader in the worker thread first.
 */
export function workerUrl(moduleUrl: string): URL {
  return new URL(moduleUrl.endsWith(".ts") ? "./worker-entry.js" : "./worker.js", moduleUrl);
}

/** Worker → pool messages. */
export type PoolReply<R> =
  | { readonly type: "ready"; readonly warnings?: readonly string[] }
  | { readonly type: "error"; readonly message: string }
  | { readonly type: "result"; readonly id: number; readonly value: R }
  | { readonly type: "failed"; readonly id: number; readonly message: string };

/** Pool → worker messages. */
export interface PoolRequest<Q> {
  readonly id: number;
  readonly payload: Q;
}

/** Why a job did not get a result from a worker: each maps to a reason the caller counts. */
export type PoolFailure = "timeout" | "worker_crashed" | "unavailable" | "closed";

/** A job the pool gave up on, with why. Errors a worker's handler threw are plain Errors. */
export class PoolError extends Error {
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
   * A job that has not answered this long after it was sent fails with PoolError("timeout"), and its
   * worker is terminated and replaced, so one runaway job cannot hold a worker. Default: no limit.
   */
  readonly timeoutMs?: number;
  /** First delay before replacing a worker that died (doubles on each failed start, up to maxRestartDelayMs). Default 100. */
  readonly restartDelayMs?: number;
  /** Longest delay between attempts to replace a worker. Default 30 000. */
  readonly maxRestartDelayMs?: number;
  /** Called when a worker starts, dies or is replaced (for readiness and for resuming work). */
  readonly onChange?: () => void;
  /** Called each time a worker is replaced, with why it went: it crashed or exited, or a job on it timed out. */
  readonly onRestart?: (cause: "crashed" | "timeout", message: string) => void;
}

export interface WorkerPool<Q, R> {
  /** Sends a job to the least busy live worker; rejects with PoolError("unavailable") when none is live. */
  run(payload: Q): Promise<R>;
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
  close(): Promise<void>;
}

interface Job<Q, R> {
  readonly id: number;
  readonly payload: Q;
  readonly resolve: (r: R) => void;
  readonly reject: (e: Error) => void;
  timer: NodeJS.Timeout | undefined;
  /** Resent once already after its worker was terminated for another job's timeout. */
  resent: boolean;
}

interface Slot<Q, R> {
  worker: Worker | undefined;
  /** Jobs sent to this slot's current worker. */
  readonly jobs: Map<number, Job<Q, R>>;
  /** Consecutive failed starts (reset when the worker answers a job). */
  failures: number;
  restartTimer: NodeJS.Timeout | undefined;
}

/** A started worker and the warnings its "ready" carried. */
interface Started {
  readonly worker: Worker;
  readonly warnings: readonly string[];
}

/** Starts one worker and waits for its "ready" (or its startup error). */
function start(entry: URL, workerData: unknown): Promise<Started> {
  const worker = new Worker(entry, { workerData });
  return new Promise((resolve, reject) => {
    const onMessage = (m: PoolReply<unknown>): void => {
      cleanup();
      if (m.type === "ready") resolve({ worker, warnings: Array.isArray(m.warnings) ? m.warnings.filter((w): w is string => typeof w === "string") : [] });
      else {
        void worker.terminate();
        reject(new Error(m.type === "error" ? m.message : `worker sent ${m.type} before ready`));
      }
    };
    const onError = (e: Error): void => {
      cleanup();
      reject(new Error(`worker failed to start: ${e.message}`));
    };
    const onExit = (code: number): void => {
      cleanup();
      reject(new Error(`worker exited with code ${code} before it was ready`));
    };
    const cleanup = (): void => {
      worker.off("message", onMessage);
      worker.off("error", onError);
      worker.off("exit", onExit);
    };
    worker.on("message", onMessage);
    worker.on("error", onError);
    worker.on("exit", onExit);
  });
}

/**
 * Starts `size` worker threads from `entry` and spreads requests over the least busy. Rejects
 * if any worker fails to start (the error is the worker's own). After that the pool keeps
 * itself whole: a worker that exits or crashes is replaced with backoff (its jobs fail
 * "worker_crashed": one of them may be what killed it), and a job over `timeoutMs` fails
 * "timeout" and its worker is terminated and replaced (the other jobs on that worker are
 * innocent: they are sent again, once, to a live worker).
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
  const slots: Array<Slot<Q, R>> = [];
  /** Innocent jobs whose worker was terminated, waiting for a live worker. */
  const waiting: Array<Job<Q, R>> = [];
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

  const send = (slot: Slot<Q, R>, job: Job<Q, R>): void => {
    const worker = slot.worker;
    if (!worker) return;
    slot.jobs.set(job.id, job);
    // A worker with work keeps the process alive until it answers; an idle one does not (see idle()).
    worker.ref();
    if (opts.timeoutMs !== undefined) {
      clearTimeout(job.timer);
      job.timer = setTimeout(() => onTimeout(slot, job), opts.timeoutMs);
      job.timer.unref?.();
    }
    try {
      worker.postMessage({ id: job.id, payload: job.payload } satisfies PoolRequest<Q>);
    } catch (error) {
      slot.jobs.delete(job.id);
      clearTimeout(job.timer);
      job.reject(error instanceof Error ? error : new Error(String(error)));
    }
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

  /** Takes the slot's worker out of service and schedules its replacement. */
  const retire = (slot: Slot<Q, R>, cause: "crashed" | "timeout", message: string): void => {
    const worker = slot.worker;
    slot.worker = undefined;
    if (worker) {
      worker.removeAllListeners("exit");
      worker.removeAllListeners("message");
      worker.on("error", () => undefined);
      void worker.terminate().catch(() => undefined);
    }
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
        ({ worker }) => {
          if (closed) {
            void worker.terminate();
            return;
          }
          attach(slot, worker);
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

  const onTimeout = (slot: Slot<Q, R>, job: Job<Q, R>): void => {
    if (!slot.jobs.delete(job.id)) return;
    job.reject(new PoolError("timeout", `no result within ${opts.timeoutMs} ms; the worker was terminated and is being replaced`));
    // The other jobs on this worker did nothing wrong: they go to another worker (once).
    for (const other of slot.jobs.values()) {
      clearTimeout(other.timer);
      if (other.resent) other.reject(new PoolError("worker_crashed", "its worker was terminated twice for other jobs' timeouts"));
      else {
        other.resent = true;
        waiting.push(other);
      }
    }
    slot.jobs.clear();
    retire(slot, "timeout", `a job ran over ${opts.timeoutMs} ms`);
    sendWaiting();
  };

  /**
   * An idle worker does not keep the process alive: a host that never calls shutdown() still exits
   * once its script is done and every job sent has been answered.
   */
  const idle = (slot: Slot<Q, R>): void => {
    if (slot.jobs.size === 0) slot.worker?.unref();
  };
  const attach = (slot: Slot<Q, R>, worker: Worker): void => {
    slot.worker = worker;
    let crash: string | undefined;
    worker.on("message", (m: PoolReply<R>) => {
      if (m.type !== "result" && m.type !== "failed") return;
      const job = slot.jobs.get(m.id);
      if (!job) return;
      slot.jobs.delete(m.id);
      idle(slot);
      clearTimeout(job.timer);
      slot.failures = 0;
      if (m.type === "result") job.resolve(m.value);
      else job.reject(new Error(m.message));
    });
    worker.on("error", (e: Error) => {
      crash = e.message;
    });
    worker.on("exit", (code: number) => {
      if (slot.worker !== worker) return;
      const message = crash ? `worker crashed: ${crash}` : `worker exited with code ${code}`;
      for (const job of slot.jobs.values()) {
        clearTimeout(job.timer);
        job.reject(new PoolError("worker_crashed", message));
      }
      slot.jobs.clear();
      retire(slot, "crashed", message);
    });
    // After the listeners: adding a message listener refs the worker's port again.
    idle(slot);
  };

  for (const s of started) {
    const slot: Slot<Q, R> = { worker: undefined, jobs: new Map(), failures: 0, restartTimer: undefined };
    slots.push(slot);
    attach(slot, (s as PromiseFulfilledResult<Started>).value.worker);
  }

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
    run(payload: Q): Promise<R> {
      if (closed) return Promise.reject(new PoolError("closed", "worker pool is closed"));
      const slot = leastBusy();
      if (!slot) return Promise.reject(new PoolError("unavailable", `no scoring worker is running${lastError ? ` (last start failed: ${lastError})` : ""}`));
      return new Promise((resolve, reject) => {
        send(slot, { id: nextId++, payload, resolve, reject, timer: undefined, resent: false });
      });
    },
    runOnEach(payload: Q): Promise<R[]> {
      if (closed) return Promise.reject(new PoolError("closed", "worker pool is closed"));
      return Promise.all(live().map((slot) => new Promise<R>((resolve, reject) => send(slot, { id: nextId++, payload, resolve, reject, timer: undefined, resent: false }))));
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      const workers = slots.map((s) => s.worker).filter((w): w is Worker => w !== undefined);
      for (const slot of slots) {
        clearTimeout(slot.restartTimer);
        for (const w of [slot.worker]) w?.removeAllListeners("exit");
        slot.worker = undefined;
      }
      await Promise.all(workers.map((w) => w.terminate().catch(() => undefined)));
      const pending = [...slots.flatMap((s) => [...s.jobs.values()]), ...waiting.splice(0)];
      for (const slot of slots) slot.jobs.clear();
      for (const job of pending) {
        clearTimeout(job.timer);
        job.reject(new PoolError("closed", "worker pool closed"));
      }
    },
  };
}

/** What a worker's init builds: the handler, or the handler and the warnings its "ready" carries to the pool. */
export type WorkerInit<Q, R> = ((payload: Q) => Promise<R>) | { readonly handle: (payload: Q) => Promise<R>; readonly warnings: readonly string[] };

/** Worker side: build a handler from workerData, report ready (with its warnings) or the error, then answer requests. */
export async function serveWorker<Q, R>(port: MessagePort, init: () => Promise<WorkerInit<Q, R>>): Promise<void> {
  let handler: ((payload: Q) => Promise<R>) | undefined;
  try {
    const built = await init();
    handler = typeof built === "function" ? built : built.handle;
    const warnings = typeof built === "function" ? [] : [...built.warnings];
    port.postMessage({ type: "ready", ...(warnings.length > 0 ? { warnings } : {}) } satisfies PoolReply<R>);
  } catch (error) {
    port.postMessage({ type: "error", message: (error as Error).message } satisfies PoolReply<R>);
    return;
  }
  const h = handler;
  port.on("message", (req: PoolRequest<Q>) => {
    h(req.payload).then(
      (value) => port.postMessage({ type: "result", id: req.id, value } satisfies PoolReply<R>),
      (error: unknown) => port.postMessage({ type: "failed", id: req.id, message: (error as Error).message } satisfies PoolReply<R>),
    );
  });
}
