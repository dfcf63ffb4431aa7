import { labelOrUndefined } from "../telemetry/labels.ts";
import type { RetrievedDocument } from "./conventions/json.ts";
import { documentText } from "../core/context.ts";
import { observationBytes } from "../core/observation-bytes.ts";
import { ATTR_HTTP_ROUTE, ATTR_SERVICE_NAME } from "./conventions/keys.ts";
import { absorbLog, absorbSpan } from "./extract.ts";
import type { AttributeMapping, Convention, PromptContext, TraceParts } from "./trace-parts.ts";
import { resolveParts } from "./trace-parts.ts";
import type { Observation } from "../scoring/scorer.ts";
import type { OtlpLog, OtlpSpan } from "./otlp.ts";
import { ITEM_BYTES, RECORD_BYTES, logKey, recordText } from "./record-size.ts";

/** An observation (retrieval + generation) joined from one trace, ready to score: the scorer's Observation, with its trace and route. */
export interface TracedObservation extends Observation {
  readonly traceId: string;
  /** The span the evaluation is parented to: the one that produced the answer, else the root. */
  readonly parentSpanId: string | undefined;
  readonly route: string;
  /** The retrieved documents: each one's text, or `{ text, id?, title?, url? }` when the instrumentation named it. */
  readonly context: readonly RetrievedDocument[];
}

/** How an observation was found: the convention its documents and answer came from. */
export interface ObservationInfo {
  readonly convention: Convention;
  /** What the observation holds, as the scoring queue charges it (observationBytes: documents with their names, question and answer). */
  readonly bytes: number;
}

/**
 * Why a trace (or one record of it) was not scored. Per trace: `no_answer`, `no_documents`,
 * `no_documents_prompt_available` (promptContext is off, but the trace had input messages it could
 * read), `no_documents_prompt_unmatched` (promptContext is on and found nothing),
 * `no_documents_prompt_too_long` (it found nothing, and passed over messages longer than
 * MAX_PROMPT_MATCH_CHARS) — also for a trace
 * settled at maxAgeMs —, `buffer_full` (evicted early, incomplete, oldest first: a new trace found the
 * buffer holding maxTraces traces, or maxBufferBytes of text), `trace_too_large` (its text went
 * over maxTraceBytes), `answer_too_large` (over maxAnswerChars), `too_many_documents` (over
 * maxDocuments). Per record: `duplicate_event` (a log record repeated: same span, event name, body and
 * attributes), `duplicate_span` (a span id seen before in the trace), `late` (a span or log record for a
 * trace already settled), `too_many_messages` (the record's input messages went past the
 * MAX_PROMPT_MESSAGES a trace keeps for promptContext: those past it were not kept),
 * `already_evaluated` (groundwatch's own evaluation span or event, from an SDK monitor exporting to
 * the collector: a result, never an interaction; counted by the server, it opens no trace).
 */
export type IncompleteReason =
  | "no_answer"
  | "no_documents"
  | "no_documents_prompt_available"
  | "no_documents_prompt_unmatched"
  | "no_documents_prompt_too_long"
  | "buffer_full"
  | "trace_too_large"
  | "answer_too_large"
  | "too_many_documents"
  | "duplicate_event"
  | "duplicate_span"
  | "late"
  | "too_many_messages"
  | "already_evaluated";

export interface JoinerOptions {
  /** How long a trace waits for its remaining spans and log records after the last one arrived. */
  readonly timeoutMs: number;
  /**
   * Longest a trace is held from its first record, however recently a record arrived: then it is
   * settled (scored if complete, else counted with its reason), so refreshing a trace cannot hold it
   * in the buffer. Default: no limit.
   */
  readonly maxAgeMs?: number;
  /** Traces held at once; a new trace beyond it evicts the oldest incomplete one (`buffer_full`). */
  readonly maxTraces: number;
  /** Text one trace may hold (characters ≈ bytes); beyond it the trace is not scored (`trace_too_large`). Default: no limit. */
  readonly maxTraceBytes?: number;
  /** Text all traces together may hold; beyond it the oldest incomplete ones are evicted (`buffer_full`). Default: no limit. */
  readonly maxBufferBytes?: number;
  /** Most documents of an interaction; over it the trace is not scored (`too_many_documents`). Default: no limit. */
  readonly maxDocuments?: number;
  /** Longest answer in characters; over it the trace is not scored (`answer_too_large`). Default: no limit. */
  readonly maxAnswerChars?: number;
  readonly mapping?: AttributeMapping;
  /** Documents inside the prompt; off by default. */
  readonly promptContext?: PromptContext;
  readonly onObservation: (o: TracedObservation, info: ObservationInfo) => void;
  /** A trace that ended without both documents and an answer, or a record not used; counted, never silent. */
  readonly onIncomplete: (reason: IncompleteReason, route: string) => void;
  /**
   * Asked before a completed (or timed-out) trace's observation is handed on: false (no room to score
   * it now) keeps the trace buffered, waiting, until handOff() or sweep() finds room; waiting traces
   * are handed on in the order they completed. Default: always true.
   */
  readonly canHandOff?: (route: string, bytes: number) => boolean;
  readonly now: () => number;
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

export interface TraceJoiner {
  add(spans: readonly OtlpSpan[]): void;
  /** Adds log records (GenAI events); they join the trace of their trace id, whether its spans came before, come later, or never. */
  addLogs(logs: readonly OtlpLog[]): void;
  /**
   * Adds spans and log records `chunk` at a time, awaiting `pause()` between chunks so that a large
   * request does not hold the event loop; traces complete only at the end, as with add().
   */
  ingest(records: { readonly spans?: readonly OtlpSpan[]; readonly logs?: readonly OtlpLog[] }, pause: () => Promise<void>, chunk?: number): Promise<void>;
  /**
   * The traces that adding these records could complete at once (their root span is in the records or
   * has arrived), by the route each would be counted under; an upper bound: nothing is changed.
   */
  candidates(records: { readonly spans?: readonly OtlpSpan[]; readonly logs?: readonly OtlpLog[] }): Candidates;
  /** An upper bound of what adding these records would add to the buffer; nothing is changed. */
  footprint(records: { readonly spans?: readonly OtlpSpan[]; readonly logs?: readonly OtlpLog[] }): Footprint;
  /** Hands on waiting traces while canHandOff allows, oldest first. */
  handOff(): void;
  /** Hands on waiting traces, then settles traces idle for longer than the timeout, or held longer than maxAgeMs (see canHandOff). */
  sweep(): void;
  /** Settles every trace now, waiting ones included (shutdown). */
  drain(): void;
  /** Traces held (waiting ones included). */
  readonly size: number;
  /** Traces complete and waiting for room to be scored. */
  readonly waiting: number;
  /** Text the held traces hold (characters ≈ bytes). */
  readonly bytes: number;
  /** Text the waiting traces hold: the part of `bytes` that eviction cannot free. */
  readonly waitingBytes: number;
}

interface Entry {
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

const DEFAULT_CHUNK = 500;

/**
 * Joins the retriever and LLM spans and the log records of a trace, also across export requests:
 * they wait in a buffer bounded in traces and in text until the trace has documents, an answer and
 * its root span, or until it has been idle for the timeout.
 */
export function createTraceJoiner(options: JoinerOptions): TraceJoiner {
  const traces = new Map<string, Entry>();
  // Traces already settled (with their route), so their late records are counted and open no new entry.
  const settled = new Map<string, string>();
  const promptContext = options.promptContext ?? { mode: "off" };
  const maxTraceBytes = options.maxTraceBytes ?? Infinity;
  const maxBufferBytes = options.maxBufferBytes ?? Infinity;
  const maxDocuments = options.maxDocuments ?? Infinity;
  const maxAnswerChars = options.maxAnswerChars ?? Infinity;
  const maxAgeMs = options.maxAgeMs ?? Infinity;
  let totalBytes = 0;
  let waitingBytes = 0;
  /** Traces complete and waiting for room to be scored, in the order they completed. */
  const waiting = new Set<string>();
  /** The traces not waiting, in the order their first record arrived: the ones eviction may let go, oldest first. */
  const open = new Map<string, Entry>();
  /** Adds text to a trace's count and the buffer's (and the waiting traces', when it waits). */
  const addBytes = (entry: Entry, n: number): void => {
    entry.bytes += n;
    totalBytes += n;
    if (entry.waiting) waitingBytes += n;
  };
  const canHandOff = options.canHandOff ?? (() => true);
  const routeOf = (p: TraceParts): string => p.route ?? p.service ?? "unknown";

  /** What settling the trace now would do: hand on an observation, or count a reason. */
  const outcome = (traceId: string, entry: Entry, evicted: boolean): { observation: TracedObservation; info: ObservationInfo } | { reason: IncompleteReason } => {
    if (entry.tooLarge) return { reason: "trace_too_large" };
    const p = entry.parts;
    const resolved = resolveParts(p, promptContext);
    if (!resolved.ok) return { reason: evicted ? "buffer_full" : resolved.reason };
    // The same limits as /v1/observations: an observation over them is not scored, and counted.
    if (resolved.answer.length > maxAnswerChars) return { reason: "answer_too_large" };
    if (resolved.documents.length > maxDocuments) return { reason: "too_many_documents" };
    const observation: TracedObservation = { traceId, parentSpanId: p.parentSpanId, route: routeOf(p), context: resolved.documents, ...(resolved.question !== undefined ? { question: resolved.question } : {}), answer: resolved.answer };
    // What the queue will charge it: documents' names included (see observationBytes).
    return { observation, info: { convention: resolved.convention, bytes: observationBytes(observation) } };
  };

  const settle = (traceId: string, entry: Entry, evicted: boolean): void => {
    const result = outcome(traceId, entry, evicted);
    traces.delete(traceId);
    open.delete(traceId);
    if (waiting.delete(traceId)) waitingBytes -= entry.bytes;
    totalBytes -= entry.bytes;
    const route = routeOf(entry.parts);
    settled.set(traceId, route);
    if (settled.size > options.maxTraces * 2) settled.delete(settled.keys().next().value as string);
    if ("reason" in result) options.onIncomplete(result.reason, route);
    else options.onObservation(result.observation, result.info);
  };

  /** Settles a trace that is done (complete, or timed out): at once, unless it has an observation and no room to score it yet. */
  const finish = (traceId: string, entry: Entry): void => {
    if (entry.waiting) return;
    const result = outcome(traceId, entry, false);
    if ("observation" in result && (waiting.size > 0 || !canHandOff(result.observation.route, result.info.bytes))) {
      entry.waiting = true;
      waiting.add(traceId);
      open.delete(traceId);
      waitingBytes += entry.bytes;
      return;
    }
    settle(traceId, entry, false);
  };

  const handOff = (): void => {
    for (const id of waiting) {
      const entry = traces.get(id);
      if (!entry) {
        waiting.delete(id);
        continue;
      }
      const result = outcome(id, entry, false);
      if ("observation" in result && !canHandOff(result.observation.route, result.info.bytes)) return;
      settle(id, entry, false);
    }
  };

  /**
   * Evicts the oldest traces not waiting (other than `keep`) while the buffer holds more text than its
   * budget. Waiting traces are complete and owed a score: they leave only through handOff.
   */
  const evictForBytes = (keep: string): void => {
    for (const [id, entry] of open) {
      if (totalBytes <= maxBufferBytes) return;
      if (id !== keep) settle(id, entry, true);
    }
  };

  /** The trace's entry, opened when new; undefined (counted as late) when the trace is already settled. */
  const entryOf = (traceId: string): Entry | undefined => {
    const route = settled.get(traceId);
    if (route !== undefined) {
      options.onIncomplete("late", route);
      return undefined;
    }
    let entry = traces.get(traceId);
    if (!entry) {
      if (traces.size >= options.maxTraces) {
        // The oldest trace not waiting makes room; only a buffer of waiting traces (which admission
        // refuses requests for, with 429) lets the oldest waiting one go, handed on without waiting.
        const [oldestId, oldest] = (open.size > 0 ? open : traces).entries().next().value as [string, Entry];
        settle(oldestId, oldest, true);
      }
      const now = options.now();
      entry = { parts: { documents: [], rootSeen: false }, firstSeen: now, lastSeen: now, seen: new Set(), bytes: 0, documentsCounted: 0, promptCounted: 0, tooLarge: false, waiting: false };
      traces.set(traceId, entry);
      open.set(traceId, entry);
    }
    return entry;
  };

  /** Absorbs one record into its trace's entry, keeping the text counts and the byte limits. */
  const absorb = (traceId: string, key: string, record: OtlpSpan | OtlpLog, touched: Set<string>, isSpan: boolean): void => {
    const entry = entryOf(traceId);
    if (!entry) return;
    if (entry.seen.has(key)) {
      options.onIncomplete(isSpan ? "duplicate_span" : "duplicate_event", routeOf(entry.parts));
      return;
    }
    entry.lastSeen = options.now();
    touched.add(traceId);
    if (entry.tooLarge) {
      // Only what labels the count is kept: the route of the root span.
      if (isSpan && !(record as OtlpSpan).parentSpanId) {
        entry.parts.rootSeen = true;
        const route = labelOrUndefined((record as OtlpSpan).attributes[ATTR_HTTP_ROUTE]);
        if (route !== undefined) entry.parts.route = route;
      }
      return;
    }
    entry.seen.add(key);
    const p = entry.parts;
    const fixedBefore = (p.answer?.length ?? 0) + (p.question?.length ?? 0) + (p.lastUserMessage?.length ?? 0);
    const droppedBefore = p.messagesDropped ?? 0;
    if (isSpan) absorbSpan(p, record as OtlpSpan, options.mapping);
    else absorbLog(p, record as OtlpLog, options.mapping);
    let added = RECORD_BYTES + (p.answer?.length ?? 0) + (p.question?.length ?? 0) + (p.lastUserMessage?.length ?? 0) - fixedBefore;
    for (; entry.documentsCounted < p.documents.length; entry.documentsCounted++) added += ITEM_BYTES + documentText(p.documents[entry.documentsCounted] as RetrievedDocument).length;
    const messages = p.prompt ?? [];
    for (; entry.promptCounted < messages.length; entry.promptCounted++) added += ITEM_BYTES + (messages[entry.promptCounted] as { content: string }).content.length;
    if ((p.messagesDropped ?? 0) > droppedBefore) options.onIncomplete("too_many_messages", routeOf(p));
    addBytes(entry, added);
    if (entry.bytes > maxTraceBytes) {
      // Let the content go now; the trace is counted once, when its root span arrives or it times out.
      addBytes(entry, -entry.bytes);
      entry.parts = { documents: [], rootSeen: p.rootSeen, ...(p.route !== undefined ? { route: p.route } : {}), ...(p.service !== undefined ? { service: p.service } : {}) };
      entry.seen = new Set();
      entry.tooLarge = true;
      return;
    }
    if (totalBytes > maxBufferBytes) evictForBytes(traceId);
  };

  const settleReady = (touched: ReadonlySet<string>): void => {
    for (const id of touched) {
      const entry = traces.get(id);
      if (entry && entry.parts.rootSeen && (entry.tooLarge || resolveParts(entry.parts, promptContext).ok)) finish(id, entry);
    }
  };
  const absorbSpans = (spans: readonly OtlpSpan[], touched: Set<string>): void => {
    for (const span of spans) absorb(span.traceId, span.spanId, span, touched, true);
  };
  const absorbLogs = (logs: readonly OtlpLog[], touched: Set<string>): void => {
    for (const log of logs) absorb(log.traceId, `log:${logKey(log)}`, log, touched, false);
  };

  return {
    get size() {
      return traces.size;
    },
    get bytes() {
      return totalBytes;
    },
    get waiting() {
      return waiting.size;
    },
    get waitingBytes() {
      return waitingBytes;
    },
    add(spans: readonly OtlpSpan[]): void {
      const touched = new Set<string>();
      absorbSpans(spans, touched);
      settleReady(touched);
    },
    addLogs(logs: readonly OtlpLog[]): void {
      const touched = new Set<string>();
      absorbLogs(logs, touched);
      settleReady(touched);
    },
    async ingest(records, pause, chunk = DEFAULT_CHUNK): Promise<void> {
      const touched = new Set<string>();
      const spans = records.spans ?? [];
      const logs = records.logs ?? [];
      for (let i = 0; i < spans.length; i += chunk) {
        if (i > 0) await pause();
        absorbSpans(spans.slice(i, i + chunk), touched);
      }
      for (let i = 0; i < logs.length; i += chunk) {
        if (i > 0 || spans.length > 0) await pause();
        absorbLogs(logs.slice(i, i + chunk), touched);
      }
      settleReady(touched);
    },
    candidates(records): Candidates {
      // Per trace: its root span in the records, if any, and a record to read the service name from.
      const byTrace = new Map<string, { root: OtlpSpan | undefined; first: OtlpSpan | OtlpLog }>();
      for (const r of [...(records.spans ?? []), ...(records.logs ?? [])]) {
        let t = byTrace.get(r.traceId);
        if (!t) byTrace.set(r.traceId, (t = { root: undefined, first: r }));
        if ("parentSpanId" in r && !r.parentSpanId) t.root = r;
      }
      const routes: string[] = [];
      for (const [id, { root, first }] of byTrace) {
        const entry = traces.get(id);
        if (settled.has(id) || entry?.tooLarge || entry?.waiting || (!root && !entry?.parts.rootSeen)) continue;
        routes.push(labelOrUndefined(root?.attributes[ATTR_HTTP_ROUTE]) ?? entry?.parts.route ?? entry?.parts.service ?? labelOrUndefined(first.resource[ATTR_SERVICE_NAME]) ?? "unknown");
      }
      return { routes };
    },
    footprint(records): Footprint {
      const fresh = new Set<string>();
      let bytes = 0;
      for (const r of [...(records.spans ?? []), ...(records.logs ?? [])]) {
        bytes += recordText(r);
        if (!traces.has(r.traceId) && !settled.has(r.traceId)) fresh.add(r.traceId);
      }
      return { traces: fresh.size, bytes };
    },
    handOff,
    sweep(): void {
      handOff();
      const now = options.now();
      const idle = now - options.timeoutMs;
      const born = now - maxAgeMs;
      for (const [id, entry] of open) if (entry.lastSeen <= idle || entry.firstSeen <= born) finish(id, entry);
    },
    drain(): void {
      for (const [id, entry] of traces) settle(id, entry, false);
    },
  };
}
