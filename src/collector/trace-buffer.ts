import type { TraceParts } from "./trace-parts.ts";

/** One trace held by the joiner: what it holds so far, and its bookkeeping. */
export interface TraceEntry {
  parts: TraceParts;
  /** When its first record arrived (maxAgeMs counts from it). */
  readonly firstSeen: number;
  lastSeen: number;
  /** Span ids and log record digests already absorbed, to count repeats once. */
  seen: Set<string>;
  /** Text held (see RECORD_BYTES), and how much of parts.documents and parts.prompt is counted in it. */
  bytes: number;
  documentsCounted: number;
  promptCounted: number;
  /** Over maxTraceBytes: its content was let go; it waits for its root span or the timeout to be counted once. */
  tooLarge: boolean;
  /** Complete, waiting for room to be scored. */
  waiting: boolean;
}

/** What admission may read of the buffer, changing nothing: a held trace, and whether a trace is settled already. */
export interface TraceLookup {
  held(traceId: string): Readonly<TraceEntry> | undefined;
  isSettled(traceId: string): boolean;
}

/**
 * The joiner's trace buffer: the traces held, in the order their first record arrived; those
 * complete and waiting for room to be scored, in the order they completed; and the routes of traces
 * settled lately (so their late records are counted, and open no new trace). Its invariants:
 * `totalBytes` is the sum of every held trace's bytes, `waitingBytes` the sum over the waiting ones,
 * and a trace is either open (eviction may let it go) or waiting (it leaves only when handed on).
 */
export class TraceBuffer implements TraceLookup {
  private readonly traces = new Map<string, TraceEntry>();
  /** The traces not waiting, in the order their first record arrived: the ones eviction may let go, oldest first. */
  private readonly open = new Map<string, TraceEntry>();
  /** Traces complete and waiting for room to be scored, in the order they completed. */
  private readonly waitingIds = new Set<string>();
  /** Traces settled lately, with their route; the oldest are forgotten past `settledMemory`. */
  private readonly settled = new Map<string, string>();
  private total = 0;
  private waitingTotal = 0;

  /** `settledMemory`: how many settled traces are remembered (late records of older ones open a new trace). */
  constructor(private readonly settledMemory: number) {}

  /** Traces held, waiting ones included. */
  get size(): number {
    return this.traces.size;
  }

  /** Traces complete and waiting for room to be scored. */
  get waiting(): number {
    return this.waitingIds.size;
  }

  /** Text the held traces hold. */
  get totalBytes(): number {
    return this.total;
  }

  /** Text the waiting traces hold: the part of totalBytes that eviction cannot free. */
  get waitingBytes(): number {
    return this.waitingTotal;
  }

  held(traceId: string): TraceEntry | undefined {
    return this.traces.get(traceId);
  }

  isSettled(traceId: string): boolean {
    return this.settled.has(traceId);
  }

  /** The route a settled trace was counted under, or undefined when it is not (or no longer) remembered. */
  settledRoute(traceId: string): string | undefined {
    return this.settled.get(traceId);
  }

  /** Opens a new, empty trace (the caller makes room first). */
  openTrace(traceId: string, now: number): TraceEntry {
    const entry: TraceEntry = { parts: { documents: [], rootSeen: false }, firstSeen: now, lastSeen: now, seen: new Set(), bytes: 0, documentsCounted: 0, promptCounted: 0, tooLarge: false, waiting: false };
    this.traces.set(traceId, entry);
    this.open.set(traceId, entry);
    return entry;
  }

  /** Adds text to a trace's count and the buffer's (and the waiting traces', when it waits); negative to let text go. */
  addBytes(entry: TraceEntry, n: number): void {
    entry.bytes += n;
    this.total += n;
    if (entry.waiting) this.waitingTotal += n;
  }

  /** Marks a held trace complete and waiting: eviction no longer lets it go. */
  markWaiting(traceId: string, entry: TraceEntry): void {
    if (entry.waiting) return;
    entry.waiting = true;
    this.waitingIds.add(traceId);
    this.open.delete(traceId);
    this.waitingTotal += entry.bytes;
  }

  /** Lets a trace go (settled: scored or counted), remembering the route it was counted under. */
  remove(traceId: string, entry: TraceEntry, route: string): void {
    if (this.traces.get(traceId) !== entry) return;
    this.traces.delete(traceId);
    this.open.delete(traceId);
    if (this.waitingIds.delete(traceId)) this.waitingTotal -= entry.bytes;
    this.total -= entry.bytes;
    this.settled.set(traceId, route);
    if (this.settled.size > this.settledMemory) this.settled.delete(this.settled.keys().next().value as string);
  }

  /** The trace a full buffer lets go first: the oldest open one, else (only waiting ones held) the oldest held. */
  oldest(): [string, TraceEntry] | undefined {
    return (this.open.size > 0 ? this.open : this.traces).entries().next().value;
  }

  /** The open traces, oldest first (live: letting one go while iterating is safe). */
  openTraces(): IterableIterator<[string, TraceEntry]> {
    return this.open.entries();
  }

  /** The waiting traces' ids, in the order they completed (live: letting one go while iterating is safe). */
  waitingTraces(): IterableIterator<string> {
    return this.waitingIds.values();
  }

  /** Every held trace (live). */
  allTraces(): IterableIterator<[string, TraceEntry]> {
    return this.traces.entries();
  }
}
