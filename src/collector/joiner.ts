import { labelOrUndefined } from "../telemetry/labels.ts";
import type { ContextItem } from "../core/context.ts";
import { documentText } from "../core/context.ts";
import { observationBytes } from "../core/observation-bytes.ts";
import { ATTR_HTTP_ROUTE } from "./conventions/keys.ts";
import { absorbLog, absorbSpan } from "./extract.ts";
import { resolveParts, traceRoute } from "./trace-parts.ts";
import type { OtlpLog, OtlpSpan } from "./otlp.ts";
import { ITEM_BYTES, RECORD_BYTES, logKey } from "./record-size.ts";
import type { IncompleteReason, JoinerOptions, ObservationInfo, TraceJoiner, TracedObservation } from "./joiner-types.ts";
import type { TraceEntry as Entry } from "./trace-buffer.ts";
import { TraceBuffer } from "./trace-buffer.ts";

const DEFAULT_CHUNK = 500;

/**
 * Joins the retriever and LLM spans and the log records of a trace, also across export requests:
 * they wait in a buffer bounded in traces and in text until the trace has documents, an answer and
 * its root span, or until it has been idle for the timeout.
 */
export function createTraceJoiner(options: JoinerOptions): TraceJoiner {
  // Settled traces are remembered (twice maxTraces), so their late records are counted and open no new entry.
  const buffer = new TraceBuffer(options.maxTraces * 2);
  const promptContext = options.promptContext ?? { mode: "off" };
  const maxTraceBytes = options.maxTraceBytes ?? Infinity;
  const maxBufferBytes = options.maxBufferBytes ?? Infinity;
  const maxDocuments = options.maxDocuments ?? Infinity;
  const maxAnswerChars = options.maxAnswerChars ?? Infinity;
  const maxAgeMs = options.maxAgeMs ?? Infinity;
  const canHandOff = options.canHandOff ?? (() => true);

  /** What settling the trace now would do: hand on an observation, or count a reason. */
  const outcome = (traceId: string, entry: Entry, evicted: boolean): { observation: TracedObservation; info: ObservationInfo } | { reason: IncompleteReason } => {
    if (entry.tooLarge) return { reason: "trace_too_large" };
    const p = entry.parts;
    const resolved = resolveParts(p, promptContext);
    if (!resolved.ok) return { reason: evicted ? "buffer_full" : resolved.reason };
    // The same limits as /v1/observations: an observation over them is not scored, and counted.
    if (resolved.answer.length > maxAnswerChars) return { reason: "answer_too_large" };
    if (resolved.documents.length > maxDocuments) return { reason: "too_many_documents" };
    const observation: TracedObservation = { traceId, parentSpanId: p.parentSpanId, route: traceRoute(p), context: resolved.documents, ...(resolved.question !== undefined ? { question: resolved.question } : {}), answer: resolved.answer };
    // What the queue will charge it: documents' names included (see observationBytes).
    return { observation, info: { convention: resolved.convention, bytes: observationBytes(observation) } };
  };

  const settle = (traceId: string, entry: Entry, evicted: boolean): void => {
    const result = outcome(traceId, entry, evicted);
    const route = traceRoute(entry.parts);
    buffer.remove(traceId, entry, route);
    if ("reason" in result) options.onIncomplete(result.reason, route);
    else options.onObservation(result.observation, result.info);
  };

  /** Settles a trace that is done (complete, or timed out): at once, unless it has an observation and no room to score it yet. */
  const finish = (traceId: string, entry: Entry): void => {
    if (entry.waiting) return;
    const result = outcome(traceId, entry, false);
    if ("observation" in result && (buffer.waiting > 0 || !canHandOff(result.observation.route, result.info.bytes))) {
      buffer.markWaiting(traceId, entry);
      return;
    }
    settle(traceId, entry, false);
  };

  const handOff = (): void => {
    for (const id of buffer.waitingTraces()) {
      const entry = buffer.held(id);
      if (!entry) continue;
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
    for (const [id, entry] of buffer.openTraces()) {
      if (buffer.totalBytes <= maxBufferBytes) return;
      if (id !== keep) settle(id, entry, true);
    }
  };

  /** The trace's entry, opened when new; undefined (counted as late) when the trace is already settled. */
  const entryOf = (traceId: string): Entry | undefined => {
    const route = buffer.settledRoute(traceId);
    if (route !== undefined) {
      options.onIncomplete("late", route);
      return undefined;
    }
    const held = buffer.held(traceId);
    if (held) return held;
    if (buffer.size >= options.maxTraces) {
      // The oldest trace not waiting makes room; only a buffer of waiting traces (which admission
      // refuses requests for, with 429) lets the oldest waiting one go, handed on without waiting.
      const [oldestId, oldest] = buffer.oldest() as [string, Entry];
      settle(oldestId, oldest, true);
    }
    return buffer.openTrace(traceId, options.now());
  };

  /** Absorbs one record into its trace's entry, keeping the text counts and the byte limits. */
  const absorb = (traceId: string, key: string, record: OtlpSpan | OtlpLog, touched: Set<string>, isSpan: boolean): void => {
    const entry = entryOf(traceId);
    if (!entry) return;
    if (entry.seen.has(key)) {
      options.onIncomplete(isSpan ? "duplicate_span" : "duplicate_event", traceRoute(entry.parts));
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
    for (; entry.documentsCounted < p.documents.length; entry.documentsCounted++) added += ITEM_BYTES + documentText(p.documents[entry.documentsCounted] as ContextItem).length;
    const messages = p.prompt ?? [];
    for (; entry.promptCounted < messages.length; entry.promptCounted++) added += ITEM_BYTES + (messages[entry.promptCounted] as { content: string }).content.length;
    if ((p.messagesDropped ?? 0) > droppedBefore) options.onIncomplete("too_many_messages", traceRoute(p));
    buffer.addBytes(entry, added);
    if (entry.bytes > maxTraceBytes) {
      // Let the content go now; the trace is counted once, when its root span arrives or it times out.
      buffer.addBytes(entry, -entry.bytes);
      entry.parts = { documents: [], rootSeen: p.rootSeen, ...(p.route !== undefined ? { route: p.route } : {}), ...(p.service !== undefined ? { service: p.service } : {}) };
      entry.seen = new Set();
      entry.tooLarge = true;
      return;
    }
    if (buffer.totalBytes > maxBufferBytes) evictForBytes(traceId);
  };

  const settleReady = (touched: ReadonlySet<string>): void => {
    for (const id of touched) {
      const entry = buffer.held(id);
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
      return buffer.size;
    },
    get bytes() {
      return buffer.totalBytes;
    },
    get waiting() {
      return buffer.waiting;
    },
    get waitingBytes() {
      return buffer.waitingBytes;
    },
    lookup: buffer,
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
    handOff,
    sweep(): void {
      handOff();
      const now = options.now();
      const idle = now - options.timeoutMs;
      const born = now - maxAgeMs;
      for (const [id, entry] of buffer.openTraces()) if (entry.lastSeen <= idle || entry.firstSeen <= born) finish(id, entry);
    },
    drain(): void {
      for (const [id, entry] of buffer.allTraces()) settle(id, entry, false);
    },
  };
}
