/**
 * fetchBounded / createHttpClient: one request bounded four ways (headers, silence, the whole
 * request, bytes), each with a documented default; the caller's signal aborts at once. The clock is
 * faked where a bound is reached.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_TOTAL_TIMEOUT_MS, HeadersTimeoutError, TotalTimeoutError, createHttpClient, fetchBounded } from "../../src/net/bounded-fetch.ts";
import { BodyIdleTimeoutError, BodyTooLargeError } from "../../src/net/read-capped.ts";
import { RetryLater } from "../../src/net/retry.ts";

/** A fetch that never answers and ignores its signal. */
const deaf = (() => new Promise<Response>(() => undefined)) as typeof fetch;

/** A fetch answering 200 with `body`. */
const answering = (body: string | ReadableStream<Uint8Array> | (() => ReadableStream<Uint8Array>)) => (() => Promise.resolve(new Response(typeof body === "function" ? body() : body))) as typeof fetch;

/** Settles `p` on the fake clock, advancing it `ms` at most; its rejection (undefined when it resolved or is still pending). */
async function rejectionWithin(p: Promise<unknown>, ms: number): Promise<unknown> {
  let error: unknown;
  p.catch((e: unknown) => (error = e));
  await vi.advanceTimersByTimeAsync(ms);
  return error;
}

describe("fetchBounded", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("documents its defaults: 30 s for the headers and for a silence, 2 min for a whole request", () => {
    expect([DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_TOTAL_TIMEOUT_MS]).toEqual([30_000, 30_000, 120_000]);
  });

  it("gives up on the headers at headersMs, even when the fetch ignores its signal", async () => {
    vi.useFakeTimers();
    const error = await rejectionWithin(fetchBounded("http://x.invalid/", {}, { fetch: deaf, headersMs: 1000 }), 1000);
    expect(error).toBeInstanceOf(HeadersTimeoutError);
  });

  it("gives up on a body silent for idleMs", async () => {
    vi.useFakeTimers();
    const stalled = () => new ReadableStream<Uint8Array>({ pull: () => new Promise<void>(() => undefined) });
    const res = await fetchBounded("http://x.invalid/", {}, { fetch: answering(stalled), idleMs: 1000 });
    expect(await rejectionWithin(res.text(), 1000)).toBeInstanceOf(BodyIdleTimeoutError);
  });

  it("gives up on a whole request at totalMs, a body that keeps moving included", async () => {
    vi.useFakeTimers();
    const trickle = () =>
      new ReadableStream<Uint8Array>({
        async pull(controller) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          controller.enqueue(new Uint8Array([32]));
        },
      });
    const res = await fetchBounded("http://x.invalid/", {}, { fetch: answering(trickle), idleMs: 1000, totalMs: 5000 });
    expect(await rejectionWithin(res.text(), 5000)).toBeInstanceOf(TotalTimeoutError);
  });

  it("reads a body under maxBytes, refuses one over it, and lets a read lower the cap or truncate", async () => {
    expect(await (await fetchBounded("http://x.invalid/", {}, { fetch: answering("hello"), maxBytes: 5 })).text()).toBe("hello");
    await expect((await fetchBounded("http://x.invalid/", {}, { fetch: answering("hello!"), maxBytes: 5 })).text()).rejects.toBeInstanceOf(BodyTooLargeError);
    expect(await (await fetchBounded("http://x.invalid/", {}, { fetch: answering("hello") })).text({ maxBytes: 2, truncate: true })).toBe("he");
  });

  it("rejects with the caller's reason when its signal fires", async () => {
    const stop = new AbortController();
    const sent = fetchBounded("http://x.invalid/", {}, { fetch: deaf, signal: stop.signal });
    const reason = new Error("shutting down");
    stop.abort(reason);
    await expect(sent).rejects.toBe(reason);
  });
});

describe("createHttpClient", () => {
  it("retries under its policy and takes a request's own bounds over its own", async () => {
    let calls = 0;
    const client = createHttpClient({ fetch: answering("ok"), maxBytes: 1, retry: { attempts: 3, sleep: () => Promise.resolve() } });
    const text = await client.retry(async () => {
      if (++calls < 3) throw new RetryLater("busy", 0);
      return (await client.request("http://x.invalid/", {}, undefined, { maxBytes: 2 })).text();
    });
    expect(text).toBe("ok");
    expect(calls).toBe(3);
  });
});
