import type { MessagePort } from "node:worker_threads";
import type { PoolMessage, PoolReply } from "./protocol.ts";
import { isPoolControl } from "./protocol.ts";
import { GroundwatchError } from "../errors/groundwatch-error.ts";

/** Answers one job; `signal` aborts when the pool gives the job up (its time limit passed) or the worker closes. */
export type WorkerHandler<Q, R> = (payload: Q, signal: AbortSignal) => Promise<R>;

/** What a worker's init builds: the handler, or the handler with the warnings its "ready" carries and what releases its resources. */
export type WorkerInit<Q, R> =
  | WorkerHandler<Q, R>
  | {
      readonly handle: WorkerHandler<Q, R>;
      /** Told to the pool with "ready", for the user (e.g. a fallback to a triage backend). */
      readonly warnings?: readonly string[];
      /** Releases what the handler holds (models, nested workers); called once no job is running, when the pool closes the worker. */
      readonly close?: () => Promise<void>;
    };

/** Why a job's signal aborted. */
export class JobAbortedError extends GroundwatchError {
  override readonly code = "job_aborted";
  constructor(why: "cancelled" | "closing") {
    super(why === "cancelled" ? "the job was cancelled: it ran past its time limit" : "the worker is closing");
    this.name = "JobAbortedError";
  }
}

/**
 * Worker side: builds the handler from workerData, reports ready (with its warnings) or the error, then
 * answers jobs. "cancel" aborts one job's signal; "close" aborts every job, waits until none is running,
 * runs the init's close and answers "closed", then closes the port so that the thread ends by itself.
 */
export async function serveWorker<Q, R>(port: MessagePort, init: () => Promise<WorkerInit<Q, R>>): Promise<void> {
  let handle: WorkerHandler<Q, R>;
  let release: (() => Promise<void>) | undefined;
  try {
    const built = await init();
    handle = typeof built === "function" ? built : built.handle;
    release = typeof built === "function" ? undefined : built.close;
    const warnings = typeof built === "function" ? [] : [...(built.warnings ?? [])];
    port.postMessage({ type: "ready", ...(warnings.length > 0 ? { warnings } : {}) } satisfies PoolReply<R>);
  } catch (error) {
    port.postMessage({ type: "error", message: (error as Error).message } satisfies PoolReply<R>);
    return;
  }
  const running = new Map<number, { readonly controller: AbortController; readonly done: Promise<void> }>();
  let closing = false;
  const close = async (): Promise<void> => {
    if (closing) return;
    closing = true;
    for (const job of running.values()) job.controller.abort(new JobAbortedError("closing"));
    await Promise.allSettled([...running.values()].map((job) => job.done));
    try {
      await release?.();
    } catch {
      // What could not be released goes with the thread; the pool ends it after this reply either way.
    }
    port.postMessage({ type: "closed" } satisfies PoolReply<R>);
    port.close();
  };
  port.on("message", (m: PoolMessage<Q>) => {
    if (isPoolControl(m)) {
      if (m.control === "cancel") running.get(m.id)?.controller.abort(new JobAbortedError("cancelled"));
      else void close();
      return;
    }
    const { id, payload } = m;
    if (closing) {
      port.postMessage({ type: "failed", id, message: "the worker is closing" } satisfies PoolReply<R>);
      return;
    }
    const controller = new AbortController();
    let started: Promise<R>;
    try {
      started = handle(payload, controller.signal);
    } catch (error) {
      started = Promise.reject(error);
    }
    const fail = (error: unknown): void => port.postMessage({ type: "failed", id, message: error instanceof Error ? error.message : String(error) } satisfies PoolReply<R>);
    const done = started.then((value) => {
      try {
        port.postMessage({ type: "result", id, value } satisfies PoolReply<R>);
      } catch (error) {
        // A value that cannot be sent (not cloneable): the job fails with why, instead of never answering.
        fail(error);
      }
    }, fail);
    running.set(id, { controller, done });
    void done.finally(() => running.delete(id));
  });
}
