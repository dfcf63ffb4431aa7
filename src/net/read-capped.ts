/**
 * One bounded reader for remote bodies (a chat endpoint's reply, the user's RAG target, the hub's
 * listing and files): the body is read as a stream and never past a byte cap, so a huge or endless
 * reply costs at most the cap in memory, never the process. A declared Content-Length over the cap
 * is refused before any of the body is read; a body that stops sending for `idleTimeoutMs` is
 * given up on.
 */

import { NonRetryable } from "./retry.ts";
import { GroundwatchError } from "../errors/groundwatch-error.ts";

/** A remote body was larger than the cap: the request was aborted and nothing past the cap was read (not retried: a new attempt gets the same body). */
export class BodyTooLargeError extends NonRetryable {
  override readonly name = "BodyTooLargeError";
  override readonly code = "body_too_large";
  constructor(
    /** The cap, in bytes. */
    readonly cap: number,
    message = `the reply is larger than ${cap} bytes; the request was aborted`,
  ) {
    super(message);
  }
}

/** A remote body stopped arriving: nothing came for `idleTimeoutMs`. */
export class BodyIdleTimeoutError extends GroundwatchError {
  override readonly name = "BodyIdleTimeoutError";
  override readonly code = "body_idle_timeout";
  constructor(readonly idleTimeoutMs: number) {
    super(`the reply stalled: no data for ${idleTimeoutMs} ms; the request was aborted`);
  }
}

export interface ReadCappedOptions {
  /** Largest body read, in bytes. */
  readonly maxBytes: number;
  /** Aborts the request (its AbortController) when the body is refused or stalls; the body is cancelled either way. */
  readonly abort?: (() => void) | undefined;
  /** Return the part that fits instead of throwing (for an error excerpt): Content-Length is then not checked. */
  readonly truncate?: boolean | undefined;
  /** Gives up when no data arrives for this long, in ms (default: no idle limit). */
  readonly idleTimeoutMs?: number | undefined;
  /** The message of the BodyTooLargeError thrown (default: "the reply is larger than N bytes…"). */
  readonly tooLargeMessage?: string | undefined;
  /** Ends the read at once with the signal's reason (the body is cancelled), even when the stream does not watch it. */
  readonly signal?: AbortSignal | undefined;
}

/** How much of a body was read. */
export interface CappedRead {
  readonly bytes: number;
  /** Whether the body went on past the cap (only with `truncate`). */
  readonly truncated: boolean;
}

/** The Content-Length a response declares, or undefined when absent or unreadable. */
export function declaredLength(res: Response): number | undefined {
  const raw = res.headers.get("content-length");
  if (raw === null || !/^\s*\d+\s*$/.test(raw)) return undefined;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** One read of the stream, or a BodyIdleTimeoutError after `ms` without data, or the signal's reason when it fires. */
function readWithin(reader: ReadableStreamDefaultReader<Uint8Array>, ms: number | undefined, signal: AbortSignal | undefined): ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]> {
  if (ms === undefined && signal === undefined) return reader.read();
  signal?.throwIfAborted();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const cut = new Promise<never>((_, reject) => {
    if (ms !== undefined) timer = setTimeout(() => reject(new BodyIdleTimeoutError(ms)), ms);
    if (signal) {
      onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
    }
  });
  return Promise.race([reader.read(), cut]).finally(() => {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  });
}

/**
 * Passes `res`'s body to `sink` chunk by chunk, never more than `maxBytes` in all. Over the cap
 * (declared or read) the body is cancelled, `abort` is called, and a BodyTooLargeError is thrown, or,
 * with `truncate`, the part that fits is passed on and the read ends. A stall past `idleTimeoutMs`
 * cancels and aborts likewise and throws BodyIdleTimeoutError. What `sink` throws ends the read too.
 */
export async function pipeCapped(res: Response, options: ReadCappedOptions, sink: (chunk: Uint8Array) => void | Promise<void>): Promise<CappedRead> {
  const cap = options.maxBytes;
  const stop = (reader?: ReadableStreamDefaultReader<Uint8Array>): void => {
    if (reader) void reader.cancel().catch(() => undefined);
    else void res.body?.cancel().catch(() => undefined);
    options.abort?.();
  };
  const declared = declaredLength(res);
  if (!options.truncate && declared !== undefined && declared > cap) {
    stop();
    throw new BodyTooLargeError(cap, options.tooLargeMessage);
  }
  if (!res.body) return { bytes: 0, truncated: false };
  const reader = res.body.getReader();
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await readWithin(reader, options.idleTimeoutMs, options.signal);
      if (done) return { bytes: size, truncated: false };
      if (size + value.byteLength > cap) {
        const fits = value.subarray(0, cap - size);
        stop(reader);
        if (!options.truncate) throw new BodyTooLargeError(cap, options.tooLargeMessage);
        if (fits.byteLength > 0) await sink(fits);
        return { bytes: cap, truncated: true };
      }
      size += value.byteLength;
      await sink(value);
    }
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) stop(reader);
    throw error;
  }
}

/** The body as bytes, read through pipeCapped. */
export async function readCappedBytes(res: Response, options: ReadCappedOptions): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  await pipeCapped(res, options, (chunk) => {
    chunks.push(chunk);
  });
  return Buffer.concat(chunks);
}

/** The body as UTF-8 text, read through pipeCapped (a character cut at the cap becomes U+FFFD). */
export async function readCappedText(res: Response, options: ReadCappedOptions): Promise<string> {
  return (await readCappedBytes(res, options)).toString("utf8");
}
