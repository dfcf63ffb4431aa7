/**
 * Batching across observations: the pairs of every caller in flight are gathered into
 * length-bucketed batches for the inference workers, within a wait bound, and each result is
 * routed back to the caller that sent it.
 */

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

export interface DynamicBatcher<T, R> {
  /** Queues `items`; resolves with their results in order, or rejects once with the error of a failed batch that held one of them. */
  submit(items: readonly T[]): Promise<R[]>;
  /** Items queued and not dispatched yet. */
  readonly queued: number;
  /** Batches dispatched and not settled yet. */
  readonly inFlight: number;
  /** Rejects every submitter with items still queued; later submits reject. Batches in flight settle as they do. */
  close(): void;
}

interface Submitter<R> {
  readonly results: R[];
  remaining: number;
  done: boolean;
  readonly resolve: (r: R[]) => void;
  readonly reject: (e: Error) => void;
}

interface Entry<T, R> {
  readonly item: T;
  readonly length: number;
  readonly key: string | undefined;
  readonly at: number;
  readonly submitter: Submitter<R>;
  readonly index: number;
}

/** The error close() rejects queued submitters with. */
export class BatcherClosedError extends Error {
  constructor() {
    super("onnx backend: the inference batcher is closed");
    this.name = "BatcherClosedError";
  }
}

/**
 * The batch to send: the oldest queued entry (so it never starves) and the queued entries nearest to
 * it in length, up to `maxBatch` distinct items; entries with the key of one chosen ride along.
 * Returns the chosen entries (their queue order kept) and the distinct items to run.
 */
function pickBatch<T, R>(queue: readonly Entry<T, R>[], maxBatch: number): { entries: Array<Entry<T, R>>; items: T[]; slotOf: number[] } {
  const oldest = queue[0];
  if (!oldest) return { entries: [], items: [], slotOf: [] };
  const byNearness = queue.map((e, i) => ({ i, d: Math.abs(e.length - oldest.length) })).sort((a, b) => a.d - b.d || a.i - b.i);
  const chosen = new Map<number, number>();
  const keys = new Map<string, number>();
  let distinct = 0;
  for (const { i } of byNearness) {
    const e = queue[i] as Entry<T, R>;
    const same = e.key === undefined ? undefined : keys.get(e.key);
    if (same !== undefined) chosen.set(i, same);
    else if (distinct < maxBatch) {
      chosen.set(i, distinct);
      if (e.key !== undefined) keys.set(e.key, distinct);
      distinct++;
    }
  }
  const entries: Array<Entry<T, R>> = [];
  const slotOf: number[] = [];
  const items = new Array<T>(distinct);
  for (const [i, slot] of [...chosen].sort((a, b) => a[0] - b[0])) {
    const e = queue[i] as Entry<T, R>;
    entries.push(e);
    slotOf.push(slot);
    items[slot] = e.item;
  }
  return { entries, items, slotOf };
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
  let queue: Array<Entry<T, R>> = [];
  let inFlight = 0;
  let closed = false;
  let timer: { handle: TimerHandle; at: number } | undefined;

  const disarm = (): void => {
    if (timer) clearTimer(timer.handle);
    timer = undefined;
  };
  const fail = (submitters: Iterable<Submitter<R>>, error: Error): void => {
    const failed = new Set<Submitter<R>>();
    for (const s of submitters) {
      if (s.done) continue;
      s.done = true;
      failed.add(s);
      s.reject(error);
    }
    if (failed.size > 0) queue = queue.filter((e) => !failed.has(e.submitter));
  };
  const dispatch = (): void => {
    const { entries, items, slotOf } = pickBatch(queue, maxBatch);
    const taken = new Set(entries);
    queue = queue.filter((e) => !taken.has(e));
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
    while (queue.length > 0 && inFlight < Math.max(1, options.slots())) {
      const oldest = queue[0] as Entry<T, R>;
      const left = oldest.at + waitMs - now();
      if (queue.length < maxBatch && left > 0) {
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
    if (queue.length === 0) disarm();
  };

  return {
    submit(items: readonly T[]): Promise<R[]> {
      if (closed) return Promise.reject(new BatcherClosedError());
      if (items.length === 0) return Promise.resolve([]);
      return new Promise<R[]>((resolve, reject) => {
        const submitter: Submitter<R> = { results: new Array<R>(items.length), remaining: items.length, done: false, resolve, reject };
        const at = now();
        items.forEach((item, index) => queue.push({ item, length: options.lengthOf(item), key: options.keyOf?.(item), at, submitter, index }));
        pump();
      });
    },
    get queued() {
      return queue.length;
    },
    get inFlight() {
      return inFlight;
    },
    close(): void {
      if (closed) return;
      closed = true;
      disarm();
      const queued = queue.map((e) => e.submitter);
      queue = [];
      fail(queued, new BatcherClosedError());
    },
  };
}
