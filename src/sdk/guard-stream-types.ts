/**
 * The shapes of guard mode for streamed answers (docs/guard.md, "Streaming"): the options of a
 * guarded stream, the push engine a caller feeds text deltas to (`StreamGuard`), and the events it
 * emits. Every range in an event is in ORIGINAL-ANSWER OFFSETS (UTF-16 code units of the text pushed
 * so far, concatenated), so a caller holding the source's own frames can forward them byte for byte:
 * the `release` and `correct` events cover the answer from offset 0 in order, each starting where the
 * previous one ended, and what the user is sent is the concatenation of every event's `text`.
 */
import type { ClaimSummary } from "../evaluation/types.ts";
import type { TextRange } from "./guard-correction.ts";
import type { GuardOptions, ResolvedGuardOptions } from "./guard-options.ts";
import type { GuardBypassReason, GuardDecision } from "./guard-types.ts";

/**
 * How a stream is guarded:
 * - `buffer`: nothing is released until the whole answer has arrived and passed its one check; then it all goes out (or its correction, or the replacement);
 * - `sentence`: each sentence is released once it, read with the released text before it, passes; a failing one is blocked or corrected per `action`;
 * - `annotate`: every delta is released at once; sentences are checked as they complete, and one that fails is `retract`ed (the app decides what to do with text already shown).
 */
export const STREAM_GUARD_MODES = ["buffer", "sentence", "annotate"] as const;
export type StreamGuardMode = (typeof STREAM_GUARD_MODES)[number];

/** Options of one guarded stream: GuardOptions (budgetMs applies to each check) and the stream's own. */
export interface StreamGuardOptions extends GuardOptions {
  /** How the stream is guarded (see StreamGuardMode). Default "sentence". */
  readonly mode?: StreamGuardMode;
  /** Most characters held without a sentence boundary before a check is forced (so a stream without one cannot stall the user), 20–20 000. Default 600. */
  readonly maxPendingChars?: number;
  /** Monitor.guardStream only: aborting it cancels the source and gives pending checks up, as the consumer stopping does. */
  readonly signal?: AbortSignal;
}

/** The fields StreamGuardOptions adds to GuardOptions. */
export const STREAM_GUARD_OPTION_KEYS = ["mode", "maxPendingChars", "signal"] as const satisfies ReadonlyArray<Exclude<keyof StreamGuardOptions, keyof GuardOptions>>;

/** Stream guard options with every value set. */
export interface ResolvedStreamGuardOptions extends ResolvedGuardOptions {
  readonly mode: StreamGuardMode;
  readonly maxPendingChars: number;
}

/** Why text failed its check: `ungrounded` (a claim in it is not supported), or the reason no check was made (a bypass under onFail "block"). */
export type StreamFailReason = "ungrounded" | GuardBypassReason;

/** Original answer text [start, end) may go to the user unchanged; `text` is that text. */
export interface StreamGuardRelease {
  readonly type: "release";
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** Original answer text [start, end) goes to the user as `text`: its unsupported claims removed or marked (GuardOptions.correction, marker). */
export interface StreamGuardCorrect {
  readonly type: "correct";
  readonly start: number;
  readonly end: number;
  readonly text: string;
  /** What was removed or marked, as ranges of the original answer inside [start, end). */
  readonly ranges: readonly TextRange[];
  /** The unsupported claims, offsets into the original answer. */
  readonly claims: readonly ClaimSummary[];
}

/**
 * Nothing of the original answer from offset `at` on is released: send `replacement` (also `text`);
 * the stream is over for the user. The source is cancelled (its iterator returned), not drained.
 */
export interface StreamGuardBlock {
  readonly type: "block";
  readonly at: number;
  readonly replacement: string;
  readonly text: string;
  /** Why: an unsupported claim, or a bypass under onFail "block" (budget exceeded, over limits, …). */
  readonly reason: StreamFailReason;
  /** The unsupported claims (reason ungrounded), offsets into the original answer. */
  readonly claims?: readonly ClaimSummary[];
}

/**
 * Annotate mode: original text [start, end), already sent, failed its check. `text` is "" (nothing
 * new to send); the app decides what to do with what the user sees (hide it, flag it).
 */
export interface StreamGuardRetract {
  readonly type: "retract";
  readonly start: number;
  readonly end: number;
  readonly text: "";
  readonly reason: StreamFailReason;
  /** The unsupported claims (reason ungrounded), offsets into the original answer. */
  readonly claims?: readonly ClaimSummary[];
  /** What happened, in words (a bypass's detail). */
  readonly detail?: string;
}

/** How a guarded stream ended: its source ended; the guard blocked it; its consumer stopped reading (cancelled); its source failed; the monitor shut down. */
export type StreamEnding = "complete" | "blocked" | "cancelled" | "source_error" | "closed";

/** Facts about one guarded stream, beside its decision. */
export interface StreamGuardFacts {
  readonly mode: StreamGuardMode;
  /** Checks made (each one scoring run within budgetMs). */
  readonly checks: number;
  /** Characters of the answer received from the source. */
  readonly receivedChars: number;
  /** Characters of the original answer that went out, unchanged or corrected. */
  readonly releasedChars: number;
  /** Time from the stream's start to its first release, correct or block event, ms; undefined when there was none. */
  readonly firstReleaseMs: number | undefined;
  readonly ending: StreamEnding;
}

/**
 * Emitted once, last: the ONE decision for the whole streamed answer (counted in stats().guard and
 * recorded as one gen_ai.guardrail.result event, as guard()'s are): pass when every check passed;
 * block / correct with claims and ranges into the full answer; bypass with the first bypass reason
 * (`source_error` when the source failed, `cancelled` when the consumer stopped first, `closed` on
 * shutdown). `text` is "" (everything to send went out in the events before).
 */
export interface StreamGuardEnd {
  readonly type: "end";
  readonly text: "";
  readonly decision: GuardDecision;
  readonly stream: StreamGuardFacts;
}

/** Every event of a guarded stream, in the order it is emitted. */
export type StreamGuardEvent = StreamGuardRelease | StreamGuardCorrect | StreamGuardBlock | StreamGuardRetract | StreamGuardEnd;

/** Why a caller ends a stream early (StreamGuard.abort). */
export type StreamAbortReason = "cancelled" | "source_error";

/** Receives each event as it is emitted (synchronously, in order). An exception it throws is caught and logged. */
export type StreamGuardListener = (event: StreamGuardEvent) => void;

/**
 * The push engine of one guarded stream (Monitor.openStreamGuard): no I/O, fed the answer's text
 * deltas as they arrive; emits StreamGuardEvents to its listener. Never throws into the caller.
 */
export interface StreamGuard {
  /**
   * Feeds the next text delta of the answer. Returns false once nothing more will be released
   * (blocked, aborted, ended, over the limits with onFail "block"): the caller should stop reading
   * and cancel its source. Deltas after that are ignored.
   */
  push(delta: string): boolean;
  /** The source ended normally: what is pending is checked, then the end event is emitted. */
  end(): void;
  /**
   * Ends the stream early: "cancelled" (the consumer went away: pending checks are given up,
   * nothing more is released) or "source_error" (the source failed; `detail` says how). The end
   * event follows, its decision a bypass with that reason unless a block was already decided.
   */
  abort(reason: StreamAbortReason, detail?: string): void;
  /** Resolves (never rejects) with the end event once it is emitted. */
  readonly done: Promise<StreamGuardEnd>;
  /** True once nothing more of the answer will be released. */
  readonly stopped: boolean;
}

/**
 * What Monitor.guardStream reads an answer from: an AsyncIterable of text deltas, a web
 * ReadableStream of text or UTF-8 bytes, an OpenAI SDK chat-completions stream (chunks with
 * `choices[0].delta.content`), or an OpenAI Responses stream (events `response.output_text.delta`
 * with `delta`; `response.completed` ends it; `error` / `response.failed` is a source error).
 */
export type StreamGuardSource = AsyncIterable<unknown> | ReadableStream<string | Uint8Array>;

