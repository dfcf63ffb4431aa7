/**
 * The one bounded HTTP client of every outbound call (the judge's and the resampler's chat client,
 * the eval target, the hub listing and downloads, the CLI's reads of the collector and Prometheus).
 * A request is bounded four ways, each with a documented default a caller may change:
 *
 * - `headersMs`: the wait for the response headers, the connection included (HeadersTimeoutError);
 * - `idleMs`: the longest the body may send nothing (BodyIdleTimeoutError);
 * - `totalMs`: the whole request, headers and body (TotalTimeoutError); `Infinity` for a long,
 *   healthy download that the idle bound alone watches;
 * - `maxBytes`: the body read, never past the cap (BodyTooLargeError; net/read-capped.ts).
 *
 * A client (createHttpClient) also carries one retry policy (net/retry.ts: attempts, the backoff
 * base). The caller's signal aborts at once, with its own reason. Nothing else in src/ calls fetch.
 */

import { GroundwatchError } from "../errors/groundwatch-error.ts";
import type { CappedRead, ReadCappedOptions } from "./read-capped.ts";
import { pipeCapped } from "./read-capped.ts";
import { DEFAULT_BACKOFF_BASE_MS, abortReason, exponentialBackoff, withRetry } from "./retry.ts";

/** Default wait for the response headers: 30 s. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 30_000;
/** Default longest silence of a body: 30 s. */
export const DEFAULT_IDLE_TIMEOUT_MS = 30_000;
/** Default bound of a whole request, headers and body: 2 min. */
export const DEFAULT_TOTAL_TIMEOUT_MS = 120_000;
/** Default largest body read: 4 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Default attempts of a client's retry, the first one included. */
export const DEFAULT_ATTEMPTS = 3;

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

/** The whole request (headers and body) took longer than `timeoutMs`: it was aborted. */
export class TotalTimeoutError extends GroundwatchError {
  override readonly name = "TotalTimeoutError";
  override readonly code = "total_timeout";
  constructor(
    readonly url: string,
    readonly timeoutMs: number,
  ) {
    super(`no complete reply within ${timeoutMs} ms; the request was aborted`);
  }
}

/** How one request is bounded (see the file's comment); each absent field takes its default. */
export interface HttpBounds {
  /** Wait for the response headers, ms (default DEFAULT_HEADERS_TIMEOUT_MS). */
  readonly headersMs?: number | undefined;
  /** Longest the body may send nothing, ms (default DEFAULT_IDLE_TIMEOUT_MS). */
  readonly idleMs?: number | undefined;
  /** The whole request, ms; Infinity: no bound (default DEFAULT_TOTAL_TIMEOUT_MS). */
  readonly totalMs?: number | undefined;
  /** Largest body read, bytes (default DEFAULT_MAX_BODY_BYTES); a read may lower it. */
  readonly maxBytes?: number | undefined;
}

export interface BoundedFetchOptions extends HttpBounds {
  /** The fetch used (default: the global one, read at the call); injected in tests. */
  readonly fetch?: typeof fetch | undefined;
  /** Aborts the request and its body at once, with the signal's reason. */
  readonly signal?: AbortSignal | undefined;
}

/** How one body is read (read-capped.ts's options): under the request's maxBytes, or a lower cap. */
export type BodyReadOptions = Partial<Pick<ReadCappedOptions, "maxBytes" | "truncate" | "tooLargeMessage">>;

/** A response whose body can only be read within the request's bounds. */
export interface BoundedResponse {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: Headers;
  /** The body as UTF-8 text. */
  text(options?: BodyReadOptions): Promise<string>;
  /** The body passed to `sink` chunk by chunk. */
  pipe(sink: (chunk: Uint8Array) => void | Promise<void>, options?: BodyReadOptions): Promise<CappedRead>;
  /** Drops the body unread (the connection is released) and ends the request's bounds. */
  discard(): void;
}

/** `promise`, or the signal's reason as soon as it fires (a fetch that ignores its signal is still cut off). */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    void promise.catch(() => undefined);
    return Promise.reject(abortReason(signal));
  }
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(abortReason(signal));
    signal.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([promise, aborted]).finally(() => {
    if (onAbort) signal.removeEventListener("abort", onAbort);
  });
}

const finite = (ms: number): number | undefined => (Number.isFinite(ms) ? ms : undefined);

/**
 * Sends one request within its bounds (see the file's comment) and resolves once the headers are
 * in; the body is read through the response, within the same bounds. Rejects with
 * HeadersTimeoutError or TotalTimeoutError on those deadlines, the caller's signal's reason when it
 * fires, or what the fetch threw.
 */
export async function fetchBounded(url: string, init: RequestInit = {}, options: BoundedFetchOptions = {}): Promise<BoundedResponse> {
  const doFetch = options.fetch ?? globalThis.fetch;
  const headersMs = options.headersMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const idleMs = options.idleMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const totalMs = options.totalMs ?? DEFAULT_TOTAL_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BODY_BYTES;
  const controller = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
  const headersTimeout = new HeadersTimeoutError(url, headersMs);
  const totalTimeout = new TotalTimeoutError(url, totalMs);
  const total = finite(totalMs);
  // The total bound outlives the headers: it ends when the body is read or dropped (unref: an unread body does not hold the process).
  const totalTimer = total === undefined ? undefined : setTimeout(() => controller.abort(totalTimeout), total);
  totalTimer?.unref();
  const done = (): void => clearTimeout(totalTimer);
  /** What a failure was: one of the bounds, the caller's abort, or the error itself. */
  const why = (error: unknown): unknown => {
    if (options.signal?.aborted) return abortReason(options.signal);
    const reason: unknown = controller.signal.reason;
    return controller.signal.aborted && (reason === headersTimeout || reason === totalTimeout) ? reason : error;
  };
  const headersTimer = setTimeout(() => controller.abort(headersTimeout), headersMs);
  let res: Response;
  try {
    const sent = doFetch(url, { ...init, signal });
    // A reply that comes after the cut is dropped.
    void sent.then((late) => (signal.aborted ? late.body?.cancel() : undefined)).catch(() => undefined);
    res = await raceAbort(sent, signal);
  } catch (error) {
    done();
    throw why(error);
  } finally {
    clearTimeout(headersTimer);
  }
  const pipe = async (sink: (chunk: Uint8Array) => void | Promise<void>, read: BodyReadOptions = {}): Promise<CappedRead> => {
    try {
      return await pipeCapped(res, { maxBytes: read.maxBytes ?? maxBytes, truncate: read.truncate, tooLargeMessage: read.tooLargeMessage, idleTimeoutMs: finite(idleMs), signal, abort: () => controller.abort(new Error("reply refused")) }, sink);
    } catch (error) {
      throw why(error);
    } finally {
      done();
    }
  };
  return {
    status: res.status,
    ok: res.ok,
    headers: res.headers,
    async text(read) {
      const chunks: Uint8Array[] = [];
      await pipe((chunk) => {
        chunks.push(chunk);
      }, read);
      return Buffer.concat(chunks).toString("utf8");
    },
    pipe,
    discard() {
      done();
      void res.body?.cancel().catch(() => undefined);
    },
  };
}

/** A client's retry policy: attempts and the backoff base (net/retry.ts's one curve). */
export interface HttpRetryOptions {
  /** Attempts in all, the first one included (default DEFAULT_ATTEMPTS). */
  readonly attempts?: number | undefined;
  /** The first wait, doubling after each failed attempt (default DEFAULT_BACKOFF_BASE_MS). */
  readonly backoffMs?: number | undefined;
  /** How to wait (default: a timer the signal cuts short); injected in tests. */
  readonly sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
}

export interface HttpClientOptions extends HttpBounds {
  readonly fetch?: typeof fetch | undefined;
  readonly retry?: HttpRetryOptions | undefined;
}

/** Requests with one set of bounds and one retry policy. */
export interface HttpClient {
  /** One bounded request (not retried); `bounds` overrides the client's for this request. */
  request(url: string, init?: RequestInit, signal?: AbortSignal, bounds?: HttpBounds): Promise<BoundedResponse>;
  /**
   * Calls `attempt(n)` under the client's retry policy (withRetry: a RetryLater's wait or the
   * backoff; NonRetryable and the signal stop at once).
   */
  retry<T>(attempt: (n: number) => Promise<T>, signal?: AbortSignal): Promise<T>;
}

/** The bounds that are set (an absent or undefined one keeps the client's). */
function definedOf(bounds: HttpBounds | undefined): HttpBounds {
  return Object.fromEntries(Object.entries(bounds ?? {}).filter(([, v]) => v !== undefined)) as HttpBounds;
}

/** A client with these bounds and this retry policy (each absent field its default). */
export function createHttpClient(options: HttpClientOptions = {}): HttpClient {
  const attempts = options.retry?.attempts ?? DEFAULT_ATTEMPTS;
  const backoff = exponentialBackoff(options.retry?.backoffMs ?? DEFAULT_BACKOFF_BASE_MS);
  const sleep = options.retry?.sleep;
  return {
    request: (url, init, signal, bounds) => fetchBounded(url, init, { ...options, ...definedOf(bounds), signal }),
    retry: (attempt, signal) => withRetry(attempt, { attempts, backoff, signal, sleep }),
  };
}
