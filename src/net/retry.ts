/**
 * One retry policy for the outbound HTTP clients (the judge's and the resampler's chat client, the
 * hub pull, the eval target): which statuses are worth another attempt, how long a server's
 * Retry-After may make us wait (capped: a `Retry-After: 3600` must not park a run for an hour), and
 * one loop that waits between attempts, stops at once on an AbortSignal, never starts a wait that
 * would end past a deadline, and never retries an error that says retrying cannot fix it.
 */
import { GroundwatchError } from "../errors/groundwatch-error.ts";
import type { GroundwatchErrorCode } from "../errors/groundwatch-error.ts";

/** The longest wait a server's Retry-After can ask for by default: 30 s. */
export const DEFAULT_MAX_RETRY_AFTER_MS = 30_000;

/**
 * The base of every error that another attempt will not fix (a 4xx other than 429, a reply over its
 * byte cap, a reply that is not what was asked for, a hub refusal): withRetry throws it at once.
 */
export class NonRetryable extends GroundwatchError {
  override readonly name: string = "NonRetryable";
  override readonly code: GroundwatchErrorCode = "non_retryable";
}

/** A failure that names how long to wait before the next attempt (a server's Retry-After, already capped). */
export class RetryLater extends GroundwatchError {
  override readonly name = "RetryLater";
  override readonly code = "retry_later";
  constructor(
    message: string,
    /** The wait before the next attempt, in ms, instead of the backoff; undefined: the backoff. */
    readonly retryAfterMs: number | undefined,
  ) {
    super(message);
  }
}

/** Whether an HTTP status is worth another attempt: 429 (too many requests) and every 5xx. */
export function retryable(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * A Retry-After header in ms (delay-seconds or an HTTP date), at most `maxMs`; undefined when
 * absent, unreadable, or not in the future. `now` is the clock an HTTP date is read against.
 */
export function retryAfterMs(header: string | null | undefined, maxMs: number = DEFAULT_MAX_RETRY_AFTER_MS, now: number = Date.now()): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  let ms: number;
  if (/^\d+(?:\.\d+)?$/.test(trimmed)) ms = Number(trimmed) * 1000;
  else {
    const at = Date.parse(trimmed);
    if (!Number.isFinite(at)) return undefined;
    ms = at - now;
  }
  return ms > 0 ? Math.min(ms, maxMs) : undefined;
}

/** The reason a signal gave, or a plain "aborted" error. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new Error("aborted");
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortReason(signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The first wait of the default backoff: 500 ms. */
export const DEFAULT_BACKOFF_BASE_MS = 500;

/**
 * The one backoff curve: `baseMs` after the first failed attempt, doubling after each one after it
 * (attempt n waits baseMs × 2ⁿ⁻¹). Every client retries on it; they differ in the base only.
 */
export function exponentialBackoff(baseMs: number = DEFAULT_BACKOFF_BASE_MS): (attempt: number) => number {
  return (attempt) => baseMs * 2 ** (attempt - 1);
}

export interface RetryOptions {
  /** Attempts in all, the first one included (at least 1). */
  readonly attempts: number;
  /** The wait in ms after failed attempt `attempt` (1 for the first), when the error names none (RetryLater); default exponentialBackoff() (500 ms, doubling). */
  readonly backoff?: ((attempt: number) => number) | undefined;
  /** A time (ms since the epoch, on `now`'s clock) past which no wait ends: a retry that would start later is not made, and the last error is thrown. */
  readonly deadline?: number | undefined;
  /** Stops everything at once: the wait rejects with its reason, and so does a failed attempt (the attempt itself should watch the signal too). */
  readonly signal?: AbortSignal | undefined;
  /** How to wait (default: a timer that the signal cuts short); injected in tests so they do not wait out backoffs. */
  readonly sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  /** The clock the deadline is read on (default Date.now); injected in tests. */
  readonly now?: (() => number) | undefined;
}

/**
 * Calls `attempt(n)` (n = 1, 2, …) until it resolves. A failure is retried after the wait its
 * RetryLater names or `backoff(n)`, unless it is NonRetryable, the attempts are spent, the signal
 * has fired (its reason is thrown), or the wait would end past the deadline; then the failure is
 * thrown as it is.
 */
export async function withRetry<T>(attempt: (n: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const wait = options.sleep ?? sleep;
  const now = options.now ?? Date.now;
  const backoff = options.backoff ?? exponentialBackoff();
  const signal = options.signal;
  for (let n = 1; ; n++) {
    if (signal?.aborted) throw abortReason(signal);
    try {
      return await attempt(n);
    } catch (error) {
      if (signal?.aborted) throw abortReason(signal);
      if (error instanceof NonRetryable || n >= options.attempts) throw error;
      const ms = error instanceof RetryLater && error.retryAfterMs !== undefined ? error.retryAfterMs : backoff(n);
      if (options.deadline !== undefined && now() + ms > options.deadline) throw error;
      await wait(ms, signal);
    }
  }
}
