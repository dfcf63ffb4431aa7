import type { ContextItem } from "../core/context.ts";
import type { AttributeMapping, Convention, PromptContext } from "./trace-parts.ts";
import type { Observation } from "../scoring/scorer.ts";
import type { OtlpLog, OtlpSpan } from "./otlp.ts";
import type { TraceLookup } from "./trace-buffer.ts";

/** The trace joiner's types: what it hands on, why it counts a trace instead, its options and its face. */

/** An observation (retrieval + generation) joined from one trace, ready to score: the scorer's Observation, with its trace and route. */
export interface TracedObservation extends Observation {
  readonly traceId: string;
  /** The span the evaluation is parented to: the one that produced the answer, else the root. */
  readonly parentSpanId: string | undefined;
  readonly route: string;
  /** The retrieved documents: each one's text, or `{ text, id?, title?, url? }` when the instrumentation named it. */
  readonly context: readonly ContextItem[];
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

export interface TraceJoiner {
  add(spans: readonly OtlpSpan[]): void;
  /** Adds log records (GenAI events); they join the trace of their trace id, whether its spans came before, come later, or never. */
  addLogs(logs: readonly OtlpLog[]): void;
  /**
   * Adds spans and log records `chunk` at a time, awaiting `pause()` between chunks so that a large
   * request does not hold the event loop; traces complete only at the end, as with add().
   */
  ingest(records: { readonly spans?: readonly OtlpSpan[]; readonly logs?: readonly OtlpLog[] }, pause: () => Promise<void>, chunk?: number): Promise<void>;
  /** The held and settled traces, read-only: what admission looks ahead with (see collector/admission.ts). */
  readonly lookup: TraceLookup;
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
