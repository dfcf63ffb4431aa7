/**
 * Monitor.guardStream: reads a source (guard-stream-source.ts) into a stream guard's push engine and
 * hands its events to the consumer as an AsyncIterable. The source is read ahead of the consumer by
 * at most MAX_QUEUED events (then reading waits), so a slow consumer holds a bounded queue. Never
 * throws into the host: a bad or failing source is the engine's bypass (`source_error`). When the
 * consumer stops iterating (break, return) or the signal aborts, the source is cancelled at once —
 * even while a read is pending — and the engine gives its pending checks up.
 */
import type { SourceReader } from "./guard-stream-source.ts";
import { openSource } from "./guard-stream-source.ts";
import type { StreamGuard, StreamGuardEvent, StreamGuardListener } from "./guard-stream-types.ts";

/** Events the source may be read ahead of the consumer by. */
const MAX_QUEUED = 64;

/** The AbortSignal of a call's options, when they hold one (read without letting a getter's exception out: a bad one is the engine's to report). */
export function signalOf(options: unknown): AbortSignal | undefined {
  try {
    const signal: unknown = options !== null && typeof options === "object" ? (options as { signal?: unknown }).signal : undefined;
    return signal instanceof AbortSignal ? signal : undefined;
  } catch {
    return undefined;
  }
}

/** The events of `source` guarded by the engine `open` starts; `signal` aborting cancels as the consumer stopping does. */
export function guardStreamEvents(open: (listener: StreamGuardListener) => StreamGuard, source: unknown, signal: AbortSignal | undefined): AsyncIterable<StreamGuardEvent> {
  let iterator: AsyncIterator<StreamGuardEvent> | undefined;
  return {
    [Symbol.asyncIterator]() {
      // One source, read once: every iteration shares it.
      iterator ??= start(open, source, signal);
      return iterator;
    },
  };
}

function start(open: (listener: StreamGuardListener) => StreamGuard, source: unknown, signal: AbortSignal | undefined): AsyncIterator<StreamGuardEvent> {
  const queue: StreamGuardEvent[] = [];
  let ended = false; // the end event was queued
  let closed = false; // the consumer stopped
  let wakeConsumer: (() => void) | undefined;
  let wakeReader: (() => void) | undefined;
  let sourceDone = false;
  const reader: SourceReader = openSource(source);
  const cancelSource = (): void => {
    if (sourceDone) return;
    sourceDone = true;
    reader.cancel();
  };
  const engine = open((event) => {
    if (closed) return;
    queue.push(event);
    if (event.type === "end") ended = true;
    wakeConsumer?.();
  });
  const stop = (): void => {
    if (closed) return;
    cancelSource();
    engine.abort("cancelled");
    closed = true;
    queue.length = 0;
    wakeConsumer?.();
    wakeReader?.();
  };
  const onAbort = (): void => {
    cancelSource();
    engine.abort("cancelled");
    wakeReader?.();
  };
  if (signal?.aborted) queueMicrotask(onAbort);
  else signal?.addEventListener("abort", onAbort, { once: true });

  const pump = async (): Promise<void> => {
    while (!engine.stopped && !closed && !sourceDone) {
      if (queue.length >= MAX_QUEUED) {
        await new Promise<void>((resolve) => (wakeReader = resolve));
        wakeReader = undefined;
        continue;
      }
      const r = await reader.read();
      if (closed || sourceDone) break;
      if (r.kind === "text") {
        if (!engine.push(r.text)) break;
        continue;
      }
      // Ended or failed: released (an iterator that ended ignores it; one that sent its end as an item stops).
      cancelSource();
      if (r.kind === "done") engine.end();
      else engine.abort("source_error", r.detail);
    }
    // Blocked (or over the limits, failing closed): the rest of the answer is not paid for.
    if (engine.stopped) cancelSource();
  };
  void engine.done.then(() => {
    signal?.removeEventListener("abort", onAbort);
    cancelSource();
  });
  pump().catch((error: unknown) => {
    cancelSource();
    engine.abort("source_error", `reading the source failed: ${(error as Error)?.message ?? String(error)}`);
  });

  return {
    async next(): Promise<IteratorResult<StreamGuardEvent>> {
      for (;;) {
        const event = queue.shift();
        if (queue.length < MAX_QUEUED) wakeReader?.();
        if (event) return { value: event, done: false };
        if (closed || ended) return { value: undefined, done: true };
        await new Promise<void>((resolve) => (wakeConsumer = resolve));
        wakeConsumer = undefined;
      }
    },
    async return(): Promise<IteratorResult<StreamGuardEvent>> {
      stop();
      return { value: undefined, done: true };
    },
  };
}
