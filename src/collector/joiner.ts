import type { AttributeMapping, TraceParts } from "./extract.ts";
import { absorbSpan } from "./extract.ts";
import type { OtlpSpan } from "./otlp.ts";

/** A retrieval + generation joined from one trace, ready to score. */
export interface Interaction {
  readonly traceId: string;
  readonly parentSpanId: string | undefined;
  readonly route: string;
  readonly documents: readonly string[];
  readonly question: string | undefined;
  readonly answer: string;
}

export interface JoinerOptions {
  /** How long a trace waits for its remaining spans after the last one arrived. */
  readonly timeoutMs: number;
  /** Traces held at once; beyond it the oldest is settled early. */
  readonly maxTraces: number;
  readonly mapping?: AttributeMapping;
  readonly onInteraction: (i: Interaction) => void;
  /** A trace that ended without both documents and an answer; counted, never silent. */
  readonly onIncomplete: (reason: "no_answer" | "no_documents" | "buffer_full", route: string) => void;
  readonly now: () => number;
}

export interface TraceJoiner {
  add(spans: readonly OtlpSpan[]): void;
  /** Settles traces idle for longer than the timeout. */
  sweep(): void;
  /** Settles every trace now (shutdown). */
  drain(): void;
  readonly size: number;
}

interface Entry {
  parts: TraceParts;
  lastSeen: number;
}

/**
 * Joins the retriever and LLM spans of a trace, also across export requests: spans
 * wait in a bounded buffer until the trace has documents, an answer and its root span,
 * or until it has been idle for the timeout.
 */
export function createTraceJoiner(options: JoinerOptions): TraceJoiner {
  const traces = new Map<string, Entry>();
  // Traces already settled, so their late spans do not open a new entry.
  const settled = new Set<string>();
  const routeOf = (p: TraceParts): string => p.route ?? p.service ?? "unknown";
  const settle = (traceId: string, entry: Entry, evicted: boolean): void => {
    traces.delete(traceId);
    settled.add(traceId);
    if (settled.size > options.maxTraces * 2) settled.delete(settled.values().next().value as string);
    const p = entry.parts;
    if (p.answer !== undefined && p.documents.length > 0) {
      options.onInteraction({ traceId, parentSpanId: p.parentSpanId, route: routeOf(p), documents: p.documents, question: p.question, answer: p.answer });
    } else options.onIncomplete(evicted ? "buffer_full" : p.answer === undefined ? "no_answer" : "no_documents", routeOf(p));
  };
  return {
    get size() {
      return traces.size;
    },
    add(spans: readonly OtlpSpan[]): void {
      const touched = new Set<string>();
      for (const span of spans) {
        if (settled.has(span.traceId)) continue;
        let entry = traces.get(span.traceId);
        if (!entry) {
          if (traces.size >= options.maxTraces) {
            const [oldestId, oldest] = traces.entries().next().value as [string, Entry];
            settle(oldestId, oldest, true);
          }
          entry = { parts: { documents: [], rootSeen: false }, lastSeen: options.now() };
          traces.set(span.traceId, entry);
        }
        absorbSpan(entry.parts, span, options.mapping);
        entry.lastSeen = options.now();
        touched.add(span.traceId);
      }
      for (const id of touched) {
        const entry = traces.get(id);
        if (entry && entry.parts.rootSeen && entry.parts.answer !== undefined && entry.parts.documents.length > 0) settle(id, entry, false);
      }
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
