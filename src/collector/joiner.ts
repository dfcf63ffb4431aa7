import { createHash } from "node:crypto";
import type { AttributeMapping, Convention, PromptContext, TraceParts } from "./extract.ts";
import { absorbLog, absorbSpan, resolveParts } from "./extract.ts";
import type { OtlpLog, OtlpSpan } from "./otlp.ts";

/** A retrieval + generation joined from one trace, ready to score. */
export interface Interaction {
  readonly traceId: string;
  readonly parentSpanId: string | undefined;
  readonly route: string;
  readonly documents: readonly string[];
  readonly question: string | undefined;
  readonly answer: string;
}

/** How an interaction was found: the convention its documents and answer came from. */
export interface InteractionInfo {
  readonly convention: Convention;
}

/**
 * Why a trace (or one record of it) was not scored. Per trace: `no_answer`, `no_documents`,
 * `no_documents_prompt_available` (promptContext is off, but the trace had input messages it could
 * read), `no_documents_prompt_unmatched` (promptContext is on and found nothing), `buffer_full`. Per
 * record: `duplicate_event` (a log record repeated: same span, event name, body and attributes),
 * `duplicate_span` (a span id seen before in the trace), `late` (a span or log record for a trace
 * already settled).
 */
export type IncompleteReason =
  | "no_answer"
  | "no_documents"
  | "no_documents_prompt_available"
  | "no_documents_prompt_unmatched"
  | "buffer_full"
  | "duplicate_event"
  | "duplicate_span"
  | "late";

export interface JoinerOptions {
  /** How long a trace waits for its remaining spans and log records after the last one arrived. */
  readonly timeoutMs: number;
  /** Traces held at once; beyond it the oldest is settled early. */
  readonly maxTraces: number;
  readonly mapping?: AttributeMapping;
  /** Documents inside the prompt; off by default. */
  readonly promptContext?: PromptContext;
  readonly onInteraction: (i: Interaction, info: InteractionInfo) => void;
  /** A trace that ended without both documents and an answer, or a record not used; counted, never silent. */
  readonly onIncomplete: (reason: IncompleteReason, route: string) => void;
  readonly now: () => number;
}

export interface TraceJoiner {
  add(spans: readonly OtlpSpan[]): void;
  /** Adds log records (GenAI events); they join the trace of their trace id, whether its spans came before, come later, or never. */
  addLogs(logs: readonly OtlpLog[]): void;
  /** Settles traces idle for longer than the timeout. */
  sweep(): void;
  /** Settles every trace now (shutdown). */
  drain(): void;
  readonly size: number;
}

interface Entry {
  parts: TraceParts;
  lastSeen: number;
  /** Span ids and log record digests already absorbed, to count repeats once. */
  seen: Set<string>;
}

function logKey(log: OtlpLog): string {
  return createHash("sha1").update(JSON.stringify([log.spanId, log.eventName, log.body ?? null, log.attributes])).digest("base64");
}

/**
 * Joins the retriever and LLM spans and the log records of a trace, also across export requests:
 * they wait in a bounded buffer until the trace has documents, an answer and its root span, or until
 * it has been idle for the timeout.
 */
export function createTraceJoiner(options: JoinerOptions): TraceJoiner {
  const traces = new Map<string, Entry>();
  // Traces already settled (with their route), so their late records are counted and open no new entry.
  const settled = new Map<string, string>();
  const promptContext = options.promptContext ?? { mode: "off" };
  const routeOf = (p: TraceParts): string => p.route ?? p.service ?? "unknown";
  const settle = (traceId: string, entry: Entry, evicted: boolean): void => {
    traces.delete(traceId);
    const route = routeOf(entry.parts);
    settled.set(traceId, route);
    if (settled.size > options.maxTraces * 2) settled.delete(settled.keys().next().value as string);
    const p = entry.parts;
    const resolved = resolveParts(p, promptContext);
    if (resolved.ok) {
      options.onInteraction({ traceId, parentSpanId: p.parentSpanId, route, documents: resolved.documents, question: resolved.question, answer: resolved.answer }, { convention: resolved.convention });
    } else options.onIncomplete(evicted ? "buffer_full" : resolved.reason, route);
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
        const [oldestId, oldest] = traces.entries().next().value as [string, Entry];
        settle(oldestId, oldest, true);
      }
      entry = { parts: { documents: [], rootSeen: false }, lastSeen: options.now(), seen: new Set() };
      traces.set(traceId, entry);
    }
    return entry;
  };
  const settleReady = (touched: ReadonlySet<string>): void => {
    for (const id of touched) {
      const entry = traces.get(id);
      if (entry && entry.parts.rootSeen && resolveParts(entry.parts, promptContext).ok) settle(id, entry, false);
    }
  };
  return {
    get size() {
      return traces.size;
    },
    add(spans: readonly OtlpSpan[]): void {
      const touched = new Set<string>();
      for (const span of spans) {
        const entry = entryOf(span.traceId);
        if (!entry) continue;
        if (entry.seen.has(span.spanId)) {
          options.onIncomplete("duplicate_span", routeOf(entry.parts));
          continue;
        }
        entry.seen.add(span.spanId);
        absorbSpan(entry.parts, span, options.mapping);
        entry.lastSeen = options.now();
        touched.add(span.traceId);
      }
      settleReady(touched);
    },
    addLogs(logs: readonly OtlpLog[]): void {
      const touched = new Set<string>();
      for (const log of logs) {
        const entry = entryOf(log.traceId);
        if (!entry) continue;
        const key = `log:${logKey(log)}`;
        if (entry.seen.has(key)) {
          options.onIncomplete("duplicate_event", routeOf(entry.parts));
          continue;
        }
        entry.seen.add(key);
        absorbLog(entry.parts, log, options.mapping);
        entry.lastSeen = options.now();
        touched.add(log.traceId);
      }
      settleReady(touched);
    },
    sweep(): void {
      const cutoff = options.now() - options.timeoutMs;
      for (const [id, entry] of traces) if (entry.lastSeen <= cutoff) settle(id, entry, false);
    },
    drain(): void {
      for (const [id, entry] of traces) settle(id, entry, false);
    },
  };
}
