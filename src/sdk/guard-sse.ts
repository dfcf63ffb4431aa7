/**
 * Guard mode for server-sent events in an express app (docs/guard.md, "Server-sent events"):
 * middleware that takes over `res.write` / `res.end` of a `text/event-stream` response, splits what
 * the handler writes into frames, feeds each frame's text delta to a stream guard
 * (Monitor.openStreamGuard) and writes each frame, its original bytes, once the text it carries is
 * released; corrections and the replacement go out as frames it makes. No runtime dependency on
 * express: the request and response are read through the few members used. Never throws into the app.
 */
import type { RequestLike } from "./express.ts";
import { routeTemplate } from "./express.ts";
import type { FrameTemplate, SseFrame, SseSplitter, SseTextKind } from "./guard-sse-frames.ts";
import { createSseSplitter, defaultTextFrame, frameJson, guardEventFrame, openAiFrameText, templateOf } from "./guard-sse-frames.ts";
import type { SseLedger } from "./guard-sse-ledger.ts";
import { createSseLedger } from "./guard-sse-ledger.ts";
import type { GuardSseOptions, ResolvedGuardSseOptions } from "./guard-sse-options.ts";
import { resolveGuardSseOptions } from "./guard-sse-options.ts";
import type { StreamGuard, StreamGuardEvent } from "./guard-stream-types.ts";
import type { GuardDecision } from "./guard-types.ts";
import type { Monitor } from "./types.ts";

/** The parts of a node / express response the middleware uses. */
export interface SseResponseLike {
  write(chunk: never, ...rest: never[]): boolean;
  end(...args: never[]): unknown;
  writeHead?(...args: never[]): unknown;
  getHeader(name: string): unknown;
  removeHeader?(name: string): void;
  on(event: "close", listener: () => void): unknown;
  readonly headersSent?: boolean;
  readonly writableEnded?: boolean;
  readonly destroyed?: boolean;
}

type Fn = (...args: unknown[]) => unknown;
type State = "new" | "off" | "on" | "aborting" | "passing" | "dropping" | "ended";

/** A decision that sends what the app wrote: a pass, or a bypass whose outcome is pass. */
const passes = (d: GuardDecision): boolean => d.decision === "pass" || (d.decision === "bypass" && d.outcome === "pass");

/** What the closing `event: guard` frame carries: the decision without its text or evidence. */
export function decisionPayload(d: GuardDecision): Record<string, unknown> {
  return {
    type: "decision",
    decision: d.decision,
    ...(d.decision === "bypass" ? { reason: d.reason, outcome: d.outcome } : { score: d.score }),
    ...(d.decision === "correct" ? { ranges: d.ranges } : {}),
  };
}

/** The bytes of a written chunk: a Buffer or typed array as it is, a string in its encoding (default UTF-8). */
function bytesOf(chunk: unknown, encoding: unknown): Buffer | undefined {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (typeof chunk === "string") return Buffer.from(chunk, typeof encoding === "string" && Buffer.isEncoding(encoding) ? encoding : "utf8");
  return undefined;
}

/** The content type a `writeHead(status, [message,] headers)` call sets, if any. */
function writeHeadType(args: readonly unknown[]): string | undefined {
  const headers = typeof args[1] === "string" ? args[2] : args[1];
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) if (String(headers[i]).toLowerCase() === "content-type") return String(headers[i + 1]);
    return undefined;
  }
  if (headers && typeof headers === "object") {
    for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === "content-type") return String(v);
  }
  return undefined;
}

/**
 * Middleware that guards the server-sent-event answers of the routes it is mounted on. A response
 * whose content type is `text/event-stream` at its first write is guarded (others go untouched):
 * `input(req, res)` gives its context; each frame's text delta is checked as the mode says; frames go
 * out byte for byte once their text is released, in the order written; corrections and the
 * replacement go out as synthesized frames; with guardEvents, the decision closes the response as an
 * `event: guard` frame when the stream was not sent as it came. A client that disconnects cancels the
 * guard (its pending checks given up); the handler should stop its upstream on `res.on("close")`.
 * Options are checked here: a bad one is a ConfigError naming it.
 */
export function guardSse<Req extends RequestLike = RequestLike, Res extends SseResponseLike = SseResponseLike>(
  monitor: Pick<Monitor, "openStreamGuard">,
  options: GuardSseOptions<Req, Res>,
): (req: Req, res: Res, next: () => void) => void {
  const resolved = resolveGuardSseOptions(options as GuardSseOptions<never, never>);
  return (req, res, next) => {
    guardResponse(monitor, options, resolved, req, res);
    next();
  };
}

/** Takes over one response's write, end and writeHead. */
function guardResponse<Req extends RequestLike, Res extends SseResponseLike>(
  monitor: Pick<Monitor, "openStreamGuard">,
  options: GuardSseOptions<Req, Res>,
  resolved: ResolvedGuardSseOptions,
  req: Req,
  res: Res,
): void {
  const target = res as unknown as Record<string, unknown>;
  const write0 = (res.write as unknown as Fn).bind(res);
  const end0 = (res.end as unknown as Fn).bind(res);
  const writeHead0 = typeof res.writeHead === "function" ? (res.writeHead as unknown as Fn).bind(res) : undefined;
  let state: State = "new";
  let headType: string | undefined;
  let engine: StreamGuard | undefined;
  let ledger: SseLedger | undefined;
  let splitter: SseSplitter | undefined;
  let template: FrameTemplate | undefined;
  let decision: GuardDecision | undefined;
  let appEnded = false;
  let endCallback: Fn | undefined;
  /** What the app wrote after a bypass of ours, while the guard's decision (pass or block) is awaited. */
  let tail: Buffer[] = [];
  let tailBytes = 0;

  const report = (error: unknown): void => {
    try {
      options.onError?.(error, req);
    } catch {
      // the host's error callback failed: nothing more to tell
    }
  };
  const rawWrite = (chunk: Buffer | string): void => {
    if (res.destroyed || res.writableEnded) return;
    try {
      write0(chunk);
    } catch (error) {
      report(error);
    }
  };
  const makeFrame = (text: string, kind: SseTextKind): string => {
    if (options.frame) {
      try {
        return options.frame(text, kind);
      } catch (error) {
        report(error);
      }
    }
    return defaultTextFrame(text, template);
  };
  const own = { write: Object.getOwnPropertyDescriptor(res, "write"), end: Object.getOwnPropertyDescriptor(res, "end"), writeHead: Object.getOwnPropertyDescriptor(res, "writeHead") };
  /** Puts back the response's own write, end and writeHead (or uncovers its prototype's). */
  const restore = (): void => {
    for (const key of ["write", "end", "writeHead"] as const) {
      const d = own[key];
      if (d) Object.defineProperty(res, key, d);
      else delete target[key];
    }
  };

  /** Bytes written once the check stopped: out as they came, kept for the decision, or dropped. */
  const divert = (bytes: Buffer): void => {
    if (state === "passing") rawWrite(bytes);
    else if (state === "aborting" && tailBytes + bytes.length <= resolved.maxHeldBytes) {
      tail.push(bytes);
      tailBytes += bytes.length;
    }
  };
  /** Our own bypass (a frame too large, too much held, an extractor that threw): the guard decides pass or block per onFail. */
  const stop = (detail: string, bytes?: Buffer): void => {
    state = "aborting";
    if (bytes) divert(bytes);
    engine?.abort("source_error", detail);
  };

  const onFrame = (frame: SseFrame): void => {
    if (state !== "on") return divert(frame.raw);
    const json = frameJson(frame.data);
    const read = openAiFrameText(json);
    let delta = read.delta;
    if (options.delta) {
      try {
        const d: unknown = frame.data === undefined ? undefined : options.delta(frame.data, frame.event);
        if (d !== undefined && typeof d !== "string") throw new TypeError(`delta returned ${typeof d}, not a string`);
        delta = d;
      } catch (error) {
        report(error);
        return stop(`the delta extractor threw: ${error instanceof Error ? error.message : String(error)}`, frame.raw);
      }
    }
    if (delta && json) template = templateOf(json);
    ledger?.add(frame.raw, delta, read.echo);
    if (delta) engine?.push(delta);
  };

  const accept = (bytes: Buffer): void => {
    if (state !== "on" || !splitter) return divert(bytes);
    const split = splitter.push(bytes);
    for (const frame of split.frames) onFrame(frame);
    if (split.overflow) {
      if (state === "on") stop(`an event over maxFrameBytes (${resolved.maxFrameBytes} bytes)`, split.overflow);
      else divert(split.overflow);
    } else if (state === "on" && (ledger?.heldBytes ?? 0) + splitter.pending > resolved.maxHeldBytes) {
      stop(`more than maxHeldBytes (${resolved.maxHeldBytes} bytes) held for the check`);
    }
    // once the check stopped, what the splitter holds follows what was diverted
    if (state !== "on" && splitter.pending > 0) divert(splitter.rest());
  };

  const finalize = (): void => {
    if (state === "ended" || !appEnded || decision === undefined) return;
    state = "ended";
    if (resolved.guardEvents && !passes(decision)) rawWrite(guardEventFrame(decisionPayload(decision)));
    if (res.destroyed || res.writableEnded) return;
    try {
      if (endCallback) end0(endCallback);
      else end0();
    } catch (error) {
      report(error);
    }
  };

  const onEvent = (event: StreamGuardEvent): void => {
    if (!ledger) return;
    if (event.type === "release") ledger.release(event.end);
    else if (event.type === "correct") ledger.correct(event.start, event.end, event.text);
    else if (event.type === "block") ledger.block(event.at, event.text);
    else if (event.type === "retract") {
      if (resolved.guardEvents) rawWrite(guardEventFrame({ type: "retract", start: event.start, end: event.end, reason: event.reason }));
    } else {
      decision = event.decision;
      if (passes(decision)) {
        // everything held goes out as written, and so does everything the app writes after
        ledger.passThrough();
        if (state === "aborting") {
          state = "passing";
          for (const t of tail) rawWrite(t);
        }
      } else {
        // annotate mode replaces nothing: what was sent stays sent, the retractions and the decision say what failed
        if (!ledger.blocked && decision.decision !== "correct" && resolved.stream.mode !== "annotate") ledger.block(Number.POSITIVE_INFINITY, decision.text);
        ledger.finish();
        if (state === "aborting") state = "dropping";
      }
      tail = [];
      tailBytes = 0;
      try {
        options.onDecision?.(decision, req);
      } catch (error) {
        report(error);
      }
      finalize();
    }
  };

  /** At the first write: guard this response, or step aside for good. */
  const start = (): void => {
    state = "off";
    const type = String(res.getHeader("content-type") ?? headType ?? "");
    if (!type.toLowerCase().includes("text/event-stream")) return restore();
    let input: ReturnType<typeof options.input>;
    try {
      input = options.input(req, res);
    } catch (error) {
      report(error);
      input = undefined;
    }
    if (input === undefined) return restore();
    try {
      const route = input.route ?? routeTemplate(req);
      splitter = createSseSplitter(resolved.maxFrameBytes);
      ledger = createSseLedger({ write: rawWrite, frame: makeFrame });
      state = "on";
      engine = monitor.openStreamGuard({ route, context: input.context, ...(input.question !== undefined ? { question: input.question } : {}) }, resolved.stream, onEvent);
    } catch (error) {
      report(error);
      state = "off";
      return restore();
    }
    if (!res.headersSent) res.removeHeader?.("content-length");
    res.on("close", () => {
      if (state !== "ended" && decision === undefined) engine?.abort("cancelled", "the client closed the response");
    });
  };

  target.write = (chunk: unknown, encoding?: unknown, callback?: unknown): boolean => {
    if (state === "new") start();
    if (state === "off") return write0(chunk, encoding, callback) as boolean;
    const cb = typeof encoding === "function" ? encoding : callback;
    try {
      const bytes = bytesOf(chunk, encoding);
      if (bytes && state !== "ended") accept(bytes);
    } catch (error) {
      report(error);
      if (state === "on") stop(`guardSse failed: ${String(error)}`);
    }
    if (typeof cb === "function") queueMicrotask(() => (cb as Fn)());
    return true;
  };
  target.end = (chunk?: unknown, encoding?: unknown, callback?: unknown): unknown => {
    if (state === "new") start();
    if (state === "off") return end0(chunk, encoding, callback);
    if (appEnded) return res;
    const cb = [chunk, encoding, callback].find((a) => typeof a === "function") as Fn | undefined;
    try {
      const bytes = typeof chunk === "function" ? undefined : bytesOf(chunk, encoding);
      if (bytes && state !== "ended") accept(bytes);
      appEnded = true;
      endCallback = cb;
      if (state === "on" && splitter && ledger) {
        const rest = splitter.rest();
        if (rest.length > 0) ledger.add(rest, undefined, false);
        engine?.end();
      }
    } catch (error) {
      report(error);
      appEnded = true;
      if (state === "on") stop(`guardSse failed: ${String(error)}`);
    }
    finalize();
    return res;
  };
  if (writeHead0) {
    target.writeHead = (...args: unknown[]): unknown => {
      headType = writeHeadType(args) ?? headType;
      return writeHead0(...args);
    };
  }
}
