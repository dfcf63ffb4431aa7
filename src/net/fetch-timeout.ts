/**
 * A fetch whose wait for the response headers is bounded, and whose request can still be aborted
 * while its body streams (the body's own reader bounds that: see pipeCapped's idleTimeoutMs).
 * AbortSignal.timeout on the request alone would not do: it would also cut a long, healthy
 * download off at the same deadline.
 */
import { GroundwatchError } from "../errors/groundwatch-error.ts";

/** The server sent no response headers within `timeoutMs` (or the connection could not be made in that time). */
export class HeadersTimeoutError extends GroundwatchError {
  override readonly name = "HeadersTimeoutError";
  override readonly code = "headers_timeout";
  constructor(
    readonly url: string,
    readonly timeoutMs: number,
  ) {
    super(`no answer within ${timeoutMs} ms`);
  }
}

export interface TimedResponse {
  readonly res: Response;
  /** Aborts the request and its body (after an over-cap or stalled body). */
  readonly abort: () => void;
}

/**
 * Calls `doFetch(url, init)` and waits at most `timeoutMs` for the headers; the caller's
 * `init.signal`, if any, still aborts it. Throws HeadersTimeoutError on the deadline.
 */
export async function fetchWithTimeout(doFetch: typeof fetch, url: string, init: RequestInit, timeoutMs: number): Promise<TimedResponse> {
  const controller = new AbortController();
  const timeout = new HeadersTimeoutError(url, timeoutMs);
  const timer = setTimeout(() => controller.abort(timeout), timeoutMs);
  const signal = init.signal ? AbortSignal.any([init.signal, controller.signal]) : controller.signal;
  try {
    const res = await doFetch(url, { ...init, signal });
    return { res, abort: () => controller.abort(new Error("aborted by the reader")) };
  } catch (error) {
    if (controller.signal.reason === timeout) throw timeout;
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
