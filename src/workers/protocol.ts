/** The messages between a worker pool (worker-pool.ts) and its workers (serve-worker.ts). */

/** Worker → pool. */
export type PoolReply<R> =
  | { readonly type: "ready"; readonly warnings?: readonly string[] }
  | { readonly type: "error"; readonly message: string }
  | { readonly type: "result"; readonly id: number; readonly value: R }
  | { readonly type: "failed"; readonly id: number; readonly message: string }
  /** Every job ended and what the worker holds released, after a "close": the thread ends by itself now. */
  | { readonly type: "closed" };

/** Pool → worker: a job. */
export interface PoolRequest<Q> {
  readonly id: number;
  readonly payload: Q;
}

/**
 * Pool → worker: give up a job (it ran past the pool's time limit; its caller was already told), or
 * close — give up every job, wait until none is running, release what the worker holds, answer
 * "closed" and let the thread end by itself.
 */
export type PoolControl = { readonly control: "cancel"; readonly id: number } | { readonly control: "close" };

/** Everything a pool sends its workers. */
export type PoolMessage<Q> = PoolRequest<Q> | PoolControl;

export function isPoolControl<Q>(m: PoolMessage<Q>): m is PoolControl {
  return typeof (m as { control?: unknown }).control === "string";
}
