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
  | { readonly type: "ready" }
  | { readonly type: "error"; readonly message: string }
  | { readonly type: "result"; readonly id: number; readonly value: R }
  | { readonly type: "failed"; readonly id: number; readonly message: string };

/** Pool → worker messages. */
export interface PoolRequest<Q> {
  readonly id: number;
  readonly payload: Q;
}

export interface WorkerPool<Q, R> {
  run(payload: Q): Promise<R>;
  /** Requests sent and not yet answered. */
  readonly busy: number;
  close(): Promise<void>;
}

interface Slot {
  readonly worker: Worker;
  busy: number;
}

function start(entry: URL, workerData: unknown): Promise<Worker> {
  const worker = new Worker(entry, { workerData });
  return new Promise((resolve, reject) => {
    const onMessage = (m: PoolReply<unknown>): void => {
      cleanup();
      if (m.type === "ready") resolve(worker);
      else {
        void worker.terminate();
        reject(new Error(m.type === "error" ? m.message : `worker sent ${m.type} before ready`));
      }
    };
    const onError = (e: Error): void => {
      cleanup();
      reject(new Error(`worker failed to start: ${e.message}`));
    };
    const cleanup = (): void => {
      worker.off("message", onMessage);
      worker.off("error", onError);
    };
    worker.on("message", onMessage);
    worker.on("error", onError);
  });
}

/**
 * Starts `size` worker threads from `entry` and spreads requests over the least busy.
 * Rejects if any worker fails to start (the error is the worker's own).
 */
export async function createWorkerPool<Q, R>(entry: URL, workerData: unknown, size: number): Promise<WorkerPool<Q, R>> {
  const started = await Promise.allSettled(Array.from({ length: size }, () => start(entry, workerData)));
  const failed = started.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed) {
    await Promise.all(started.map((s) => (s.status === "fulfilled" ? s.value.terminate() : undefined)));
    throw failed.reason instanceof Error ? failed.reason : new Error(String(failed.reason));
  }
  const slots: Slot[] = started.map((s) => ({ worker: (s as PromiseFulfilledResult<Worker>).value, busy: 0 }));
  const pending = new Map<number, { resolve: (r: R) => void; reject: (e: Error) => void; slot: Slot }>();
  let nextId = 0;
  let closed = false;
  for (const slot of slots) {
    slot.worker.on("message", (m: PoolReply<R>) => {
      if (m.type !== "result" && m.type !== "failed") return;
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      p.slot.busy--;
      if (m.type === "result") p.resolve(m.value);
      else p.reject(new Error(m.message));
    });
    slot.worker.on("error", (e: Error) => {
      for (const [id, p] of pending) {
        if (p.slot !== slot) continue;
        pending.delete(id);
        p.reject(new Error(`worker crashed: ${e.message}`));
      }
    });
  }
  return {
    get busy() {
      return pending.size;
    },
    run(payload: Q): Promise<R> {
      if (closed) return Promise.reject(new Error("worker pool is closed"));
      const slot = slots.reduce((a, b) => (b.busy < a.busy ? b : a));
      const id = nextId++;
      slot.busy++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject, slot });
        slot.worker.postMessage({ id, payload } satisfies PoolRequest<Q>);
      });
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await Promise.all(slots.map((s) => s.worker.terminate()));
      for (const p of pending.values()) p.reject(new Error("worker pool closed"));
      pending.clear();
    },
  };
}

/** Worker side: build a handler from workerData, report ready (or the error), then answer requests. */
export async function serveWorker<Q, R>(port: MessagePort, init: () => Promise<(payload: Q) => Promise<R>>): Promise<void> {
  let handler: ((payload: Q) => Promise<R>) | undefined;
  try {
    handler = await init();
    port.postMessage({ type: "ready" } satisfies PoolReply<R>);
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
