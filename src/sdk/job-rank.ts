/**
 * Where a scoring worker queues a job's inference (CallOptions.rank; the onnx batcher serves lower
 * ranks first): observations by when the worker started them, counting up from 0; guard checks
 * (Monitor.guard) below every observation, the oldest check first, so that a check is never served
 * behind monitoring work.
 */

/** The rank of a worker's first guard check: below every observation's. */
export const GUARD_RANK_BASE = Number.MIN_SAFE_INTEGER;

/** One worker's ranks. */
export interface JobRanks {
  /** The rank of the job the worker starts now. */
  next(guard: boolean): number;
}

export function createJobRanks(): JobRanks {
  let observations = 0;
  let guards = 0;
  return { next: (guard) => (guard ? GUARD_RANK_BASE + guards++ : observations++) };
}
