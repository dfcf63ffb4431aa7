import { describe, expect, it } from "vitest";
import { BodyTooLargeError } from "../../src/net/read-capped.ts";
import { DEFAULT_MAX_RETRY_AFTER_MS, NonRetryable, RetryLater, exponentialBackoff, retryAfterMs, retryable, withRetry } from "../../src/net/retry.ts";
import { HubError } from "../../src/nli/hub/errors.ts";
import { ChatHttpError } from "../../src/nli/judge/chat.ts";
import { recordedSleep } from "../helpers/wait.ts";


/** An attempt that fails with `errors` in turn, then answers "ok". */
function failing(...errors: unknown[]): { calls: () => number; attempt: () => Promise<string> } {
  let calls = 0;
  return {
    calls: () => calls,
    attempt: () => {
      const error = errors[calls++];
      return error === undefined ? Promise.resolve("ok") : Promise.reject(error instanceof Error ? error : new Error(String(error)));
    },
  };
}

describe("retryable statuses", () => {
  it("retries 429 and every 5xx, and nothing else", () => {
    for (const status of [429, 500, 502, 503, 504, 599]) expect(retryable(status), String(status)).toBe(true);
    for (const status of [200, 206, 301, 400, 401, 403, 404, 408, 416, 422]) expect(retryable(status), String(status)).toBe(false);
  });
});

describe("Retry-After", () => {
  const now = Date.parse("2026-12-01T12:00:00Z");

  it("reads delay-seconds and HTTP dates", () => {
    expect(retryAfterMs("2", 60_000, now)).toBe(2000);
    expect(retryAfterMs("0.25", 60_000, now)).toBe(250);
    expect(retryAfterMs(" 3 ", 60_000, now)).toBe(3000);
    expect(retryAfterMs("Tue, 01 Dec 2026 12:00:05 GMT", 60_000, now)).toBe(5000);
  });

  it("caps a long wait: a Retry-After of an hour waits at most the cap", () => {
    expect(retryAfterMs("3600", 30_000, now)).toBe(30_000);
    expect(retryAfterMs("Wed, 02 Dec 2026 12:00:00 GMT", 30_000, now)).toBe(30_000);
    expect(retryAfterMs("3600")).toBe(DEFAULT_MAX_RETRY_AFTER_MS);
  });

  it("ignores an absent, unreadable, zero, negative or past value", () => {
    for (const header of [null, undefined, "", "soon", "-5", "0", "1e3x", "Tue, 01 Dec 2026 11:59:00 GMT"]) expect(retryAfterMs(header, 30_000, now), String(header)).toBeUndefined();
  });
});

describe("withRetry", () => {
  it("retries failures with the backoff of each attempt, then returns the answer", async () => {
    const { waits, sleep } = recordedSleep();
    const { calls, attempt } = failing("network down", "HTTP 503");
    await expect(withRetry(attempt, { attempts: 3, backoff: (n) => 100 * 2 ** (n - 1), sleep })).resolves.toBe("ok");
    expect(calls()).toBe(3);
    expect(waits).toEqual([100, 200]);
  });

  it("backs off on the one curve by default: 500 ms, doubling after each failed attempt", async () => {
    const { waits, sleep } = recordedSleep();
    const { attempt } = failing("one", "two", "three");
    await expect(withRetry(attempt, { attempts: 4, sleep })).resolves.toBe("ok");
    expect(waits).toEqual([500, 1000, 2000]);
  });

  it("exponentialBackoff waits its base after the first attempt and doubles after each one after it", () => {
    const backoff = exponentialBackoff(250);
    expect([1, 2, 3, 4].map(backoff)).toEqual([250, 500, 1000, 2000]);
    expect(exponentialBackoff()(1)).toBe(500);
  });

  it("waits what a RetryLater names instead of the backoff", async () => {
    const { waits, sleep } = recordedSleep();
    const { attempt } = failing(new RetryLater("HTTP 429", 1234), new RetryLater("HTTP 503", undefined));
    await withRetry(attempt, { attempts: 3, backoff: () => 7, sleep });
    expect(waits).toEqual([1234, 7]);
  });

  it("throws the last failure once its attempts are spent", async () => {
    const { waits, sleep } = recordedSleep();
    const { calls, attempt } = failing("one", "two", "three");
    await expect(withRetry(attempt, { attempts: 2, backoff: () => 1, sleep })).rejects.toThrow("two");
    expect(calls()).toBe(2);
    expect(waits).toEqual([1]);
  });

  it("throws a NonRetryable at once, and so the errors built on it (4xx, over-cap bodies, hub refusals)", async () => {
    for (const error of [new NonRetryable("bad request"), new ChatHttpError("HTTP 401", 401), new BodyTooLargeError(10), new HubError("refused")]) {
      const { waits, sleep } = recordedSleep();
      const { calls, attempt } = failing(error);
      await expect(withRetry(attempt, { attempts: 5, backoff: () => 1, sleep })).rejects.toBe(error);
      expect(calls(), error.name).toBe(1);
      expect(waits).toEqual([]);
    }
  });

  it("does not start a wait that would end past the deadline", async () => {
    const { waits, sleep } = recordedSleep();
    const { calls, attempt } = failing(new RetryLater("HTTP 429", 5000), "later");
    await expect(withRetry(attempt, { attempts: 5, backoff: () => 1, sleep, now: () => 1000, deadline: 5999 })).rejects.toThrow("HTTP 429");
    expect(calls()).toBe(1);
    expect(waits).toEqual([]);
  });

  it("stops at once when the signal fires during a wait, with its reason, and makes no further attempt", async () => {
    const controller = new AbortController();
    const reason = new Error("run cancelled");
    const { calls, attempt } = failing("HTTP 503", "HTTP 503");
    // The real sleep: an hour, cut short by the signal.
    const run = withRetry(attempt, { attempts: 3, backoff: () => 3_600_000, signal: controller.signal });
    await expect.poll(calls).toBe(1);
    controller.abort(reason);
    await expect(run).rejects.toBe(reason);
    expect(calls()).toBe(1);
  });

  it("makes no attempt when the signal has already fired", async () => {
    const controller = new AbortController();
    controller.abort(new Error("gone"));
    const { calls, attempt } = failing();
    await expect(withRetry(attempt, { attempts: 3, backoff: () => 1, signal: controller.signal })).rejects.toThrow("gone");
    expect(calls()).toBe(0);
  });
});
