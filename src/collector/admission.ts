import { labelOrUndefined } from "../telemetry/labels.ts";
import { ATTR_HTTP_ROUTE, ATTR_SERVICE_NAME } from "./conventions/keys.ts";
import type { TraceJoiner } from "./joiner-types.ts";
import type { OtlpLog, OtlpSpan } from "./otlp.ts";
import { recordText } from "./record-size.ts";
import type { TraceLookup } from "./trace-buffer.ts";
import { traceRoute } from "./trace-parts.ts";

/**
 * Admission of ingest requests: a request is taken only when the trace buffer can hold it and the
 * scoring queue has room for the interactions it could complete; otherwise it is refused (429)
 * before anything is kept, so the sender retries. The buffer's room that requests admitted but
 * still decoding or joining may take is reserved, so concurrent requests are not all admitted
 * against the same free room.
 */

/** Some OTLP records of one request. */
export interface IngestRecords {
  readonly spans?: readonly OtlpSpan[];
  readonly logs?: readonly OtlpLog[];
}

/** What ingesting some records could hand to scoring at once: the routes of the traces that may complete. */
export interface Candidates {
  readonly routes: string[];
}

/** What some records would add to the buffer at most: traces not held yet, and text. */
export interface Footprint {
  readonly traces: number;
  readonly bytes: number;
}

/**
 * The traces that adding these records could complete at once (their root span is in the records or
 * has arrived), by the route each would be counted under; an upper bound: nothing is changed.
 */
export function candidates(buffer: TraceLookup, records: IngestRecords): Candidates {
  // Per trace: its root span in the records, if any, and a record to read the service name from.
  const byTrace = new Map<string, { root: OtlpSpan | undefined; first: OtlpSpan | OtlpLog }>();
  for (const r of [...(records.spans ?? []), ...(records.logs ?? [])]) {
    let t = byTrace.get(r.traceId);
    if (!t) byTrace.set(r.traceId, (t = { root: undefined, first: r }));
    if ("parentSpanId" in r && !r.parentSpanId) t.root = r;
  }
  const routes: string[] = [];
  for (const [id, { root, first }] of byTrace) {
    const entry = buffer.held(id);
    if (buffer.isSettled(id) || entry?.tooLarge || entry?.waiting || (!root && !entry?.parts.rootSeen)) continue;
    // The route the joiner would count the trace under: the root's route once it has arrived, else the service's.
    routes.push(traceRoute({ route: labelOrUndefined(root?.attributes[ATTR_HTTP_ROUTE]) ?? entry?.parts.route, service: entry?.parts.service ?? labelOrUndefined(first.resource[ATTR_SERVICE_NAME]) }));
  }
  return { routes };
}

/** An upper bound of what adding these records would add to the buffer; nothing is changed. */
export function footprint(buffer: TraceLookup, records: IngestRecords): Footprint {
  const fresh = new Set<string>();
  let bytes = 0;
  for (const r of [...(records.spans ?? []), ...(records.logs ?? [])]) {
    bytes += recordText(r);
    if (!buffer.held(r.traceId) && !buffer.isSettled(r.traceId)) fresh.add(r.traceId);
  }
  return { traces: fresh.size, bytes };
}

/** Settings of the full-buffer watch. */
export interface FullWatchOptions {
  /** How long the buffer must stay full before it counts as held full, ms (longer than one burst takes to settle). */
  readonly holdMs: number;
  readonly now: () => number;
  /** Whether the buffer is full now. */
  readonly isFull: () => boolean;
}

/**
 * Tells a buffer held full from a burst: `check()` is called on every sweep and request; the buffer is
 * held full once it was full at every check for holdMs. `heldForMs()` says for how long (undefined when not held full).
 */
export function createFullWatch(options: FullWatchOptions): { check(): void; heldForMs(): number | undefined } {
  let fullSince: number | undefined;
  const check = (): void => {
    if (!options.isFull()) fullSince = undefined;
    else fullSince ??= options.now();
  };
  return {
    check,
    heldForMs() {
      check();
      if (fullSince === undefined) return undefined;
      const held = options.now() - fullSince;
      return held >= options.holdMs ? held : undefined;
    },
  };
}

/** What admission asks of the scoring queue. */
export interface AdmissionQueue {
  /** Whether the queue has room for one interaction per route (and `bytes` more text). */
  hasRoomFor(routes: readonly string[], bytes?: number): boolean;
}

export interface AdmissionOptions {
  readonly joiner: TraceJoiner;
  readonly queue: AdmissionQueue;
  readonly maxTraces: number;
  readonly maxBufferBytes: number;
  /** The joiner's trace timeout: the buffer counts as held full after twice it. */
  readonly traceTimeoutMs: number;
  readonly now: () => number;
}

export interface Admission {
  /** Whether the scoring queue is keeping up: traces waiting for room (after handing on what fits now) mean it is not. */
  queueKeepsUp(): boolean;
  /**
   * Whether the trace buffer can take `bytes` more text and `traces` more traces. Incomplete traces
   * are evicted to make room (counted as buffer_full), so only what cannot be let go counts: traces
   * complete and waiting for the scoring queue, and the room reserved by requests being joined. An
   * empty buffer takes any request within the body limit.
   */
  bufferHasRoom(bytes: number, traces: number): boolean;
  /**
   * Admits decoded records, with nothing awaited between the checks and the reservation: refused
   * (queue_full, buffer_full) unless the buffer can hold them and, when they could complete traces,
   * the queue has room for one; else the reservation, to release once they are joined.
   */
  admit(records: IngestRecords): { readonly refused: "queue_full" | "buffer_full" } | { readonly release: () => void };
  /** How long the buffer has been held full (undefined: it is not). */
  heldForMs(): number | undefined;
  /** Checks whether the buffer is full now (the sweeper calls it). */
  check(): void;
}

export function createAdmission(options: AdmissionOptions): Admission {
  const { joiner, maxTraces, maxBufferBytes } = options;
  const reserved = { bytes: 0, traces: 0 };
  const reserve = (bytes: number, traces: number): (() => void) => {
    reserved.bytes += bytes;
    reserved.traces += traces;
    return () => {
      reserved.bytes -= bytes;
      reserved.traces -= traces;
    };
  };
  // Held full: at 90% or more of maxTraces or of maxBufferBytes (an eviction leaves a full buffer one
  // short) at every check for twice the trace timeout (one burst of traces settles within the timeout
  // of its last record; a buffer still full after two is being held, and traces are being evicted).
  const fullWatch = createFullWatch({ holdMs: 2 * options.traceTimeoutMs, now: options.now, isFull: () => joiner.size >= 0.9 * maxTraces || joiner.bytes >= 0.9 * maxBufferBytes });
  const bufferHasRoom = (bytes: number, traces: number): boolean => {
    fullWatch.check();
    const held = joiner.waitingBytes + reserved.bytes;
    if (held === 0 && joiner.waiting + reserved.traces === 0) return true;
    return held + bytes <= maxBufferBytes && joiner.waiting + reserved.traces + traces <= maxTraces;
  };
  const queueKeepsUp = (): boolean => {
    joiner.handOff();
    return joiner.waiting === 0;
  };
  return {
    queueKeepsUp,
    bufferHasRoom,
    admit(records) {
      if (!queueKeepsUp()) return { refused: "queue_full" };
      const routes = candidates(joiner.lookup, records).routes;
      if (routes.length > 0 && !options.queue.hasRoomFor(routes.slice(0, 1))) return { refused: "queue_full" };
      const needs = footprint(joiner.lookup, records);
      if (!bufferHasRoom(needs.bytes, needs.traces)) return { refused: "buffer_full" };
      return { release: reserve(needs.bytes, needs.traces) };
    },
    heldForMs: () => fullWatch.heldForMs(),
    check: () => fullWatch.check(),
  };
}
