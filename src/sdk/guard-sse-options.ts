/**
 * guardSse's options (docs/guard.md, "Server-sent events"): what it reads from a request, how it
 * finds the text in a frame and writes the frames it makes, its bounds, over the stream guard's
 * options. Checked once, at setup: a bad value is a ConfigError naming the field.
 */
import { integerIn } from "../config/parse.ts";
import type { RequestLike } from "./express.ts";
import type { SseTextKind } from "./guard-sse-frames.ts";
import { GUARD_OPTION_KEYS } from "./guard-options.ts";
import { resolveStreamGuardOptions } from "./guard-stream-options.ts";
import type { StreamGuardOptions } from "./guard-stream-types.ts";
import type { GuardDecision } from "./guard-types.ts";
import type { ObserveInput } from "./types.ts";

/** What the stream of one response is checked against. */
export interface GuardSseInput {
  /** The route label; default the request's route template, never the URL. */
  readonly route?: string;
  readonly question?: string;
  /** The documents the answer must be grounded in: strings, or `{ text, id?, title?, url? }`. */
  readonly context: ObserveInput["context"];
}

/** Options of guardSse, over the stream guard's options (mode, budgetMs per check, onFail, action, …; `signal` is not read). */
export interface GuardSseOptions<Req extends RequestLike = RequestLike, Res = unknown> extends Omit<StreamGuardOptions, "signal"> {
  /**
   * What the response's stream is checked against, read at its first write (so the handler can put
   * the retrieved documents on `res.locals` first). Undefined sends the stream unguarded, as does a
   * throw (which goes to `onError`).
   */
  readonly input: (req: Req, res: Res) => GuardSseInput | undefined;
  /**
   * The text delta one frame carries (`data` is its data lines joined with "\n", `event` its event
   * field), or undefined for none. Default: an OpenAI chat-completion chunk's `choices[0].delta.content`,
   * a Responses `response.output_text.delta` event's `delta`. A throw stops the check: a bypass
   * (`source_error`) that onFail turns into the replacement or the rest of the stream unchecked.
   */
  readonly delta?: (data: string, event: string | undefined) => string | undefined;
  /**
   * The whole frame (its blank line included) for text the guard sends that no frame of the app's
   * carries as a whole: "correction", "replacement", or "text" (released text whose frame straddles
   * a check boundary, sent alone because the rest of its frame is held or dropped). Default: a
   * chat-completion chunk with the stream's id and model, or a `response.output_text.delta` event
   * when the stream's text came in Responses events.
   */
  readonly frame?: (text: string, kind: SseTextKind) => string;
  /**
   * Whether to send `event: guard` frames: a retraction in annotate mode as it happens, and the
   * decision as the response's last frame when the stream was not sent as it came. Default true.
   */
  readonly guardEvents?: boolean;
  /** Largest frame, bytes, 1 KiB–16 MiB; a larger one stops the check (a bypass, `source_error`). Default 262 144. */
  readonly maxFrameBytes?: number;
  /** Most bytes of frames held while their text waits for its check, 64 KiB–256 MiB; more stops the check (a bypass, `source_error`). Default 4 MiB. */
  readonly maxHeldBytes?: number;
  /** Called with each stream's one decision and its request: a throw is ignored after going to `onError`. */
  readonly onDecision?: (decision: GuardDecision, req: Req) => void;
  /** Called with what `input`, `delta`, `frame` or `onDecision` threw; never with a guard failure (that is a bypass decision). A throw here is ignored. */
  readonly onError?: (error: unknown, req: Req) => void;
}

/** The bounds and switches of guardSse, resolved; `stream` the options each stream guard is opened with. */
export interface ResolvedGuardSseOptions {
  readonly stream: StreamGuardOptions;
  readonly guardEvents: boolean;
  readonly maxFrameBytes: number;
  readonly maxHeldBytes: number;
}

/** The stream guard's option fields guardSse passes on. */
const STREAM_KEYS = [...GUARD_OPTION_KEYS, "mode", "maxPendingChars"] as const;

/** Checks guardSse's options; a bad one throws a ConfigError naming it (`guard.budgetMs`, `guardStream.mode`, `guardSse.maxFrameBytes`). */
export function resolveGuardSseOptions(options: GuardSseOptions<never, never>): ResolvedGuardSseOptions {
  const stream: StreamGuardOptions = Object.fromEntries(STREAM_KEYS.filter((k) => options[k] !== undefined).map((k) => [k, options[k]]));
  resolveStreamGuardOptions(stream);
  return {
    stream,
    guardEvents: options.guardEvents ?? true,
    maxFrameBytes: integerIn(1024, 16 * 1024 * 1024)("guardSse.maxFrameBytes", options.maxFrameBytes) ?? 262_144,
    maxHeldBytes: integerIn(64 * 1024, 256 * 1024 * 1024)("guardSse.maxHeldBytes", options.maxHeldBytes) ?? 4 * 1024 * 1024,
  };
}
