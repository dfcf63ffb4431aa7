import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { HeadersTimeoutError, fetchBounded } from "../../src/net/bounded-fetch.ts";
import { BodyIdleTimeoutError, BodyTooLargeError, readCappedText } from "../../src/net/read-capped.ts";

/** A body that sends `chunk` for ever (as long as it is read), and records whether it was cancelled. */
function endless(chunk = new Uint8Array(1024).fill(97)): { res: Response; pulled: () => number; cancelled: () => boolean } {
  let pulled = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled++;
      controller.enqueue(chunk);
    },
    cancel() {
      cancelled = true;
    },
  });
  return { res: new Response(stream), pulled: () => pulled, cancelled: () => cancelled };
}

describe("readCapped: a remote body never read past its cap", () => {
  it("reads a body under the cap whole", async () => {
    expect(await readCappedText(new Response("hello"), { maxBytes: 5 })).toBe("hello");
  });

  it("stops an endless body at the cap: cancels it, aborts the request, and says the cap", async () => {
    const body = endless();
    let aborted = 0;
    const read = readCappedText(body.res, { maxBytes: 10_000, abort: () => aborted++ });
    await expect(read).rejects.toBeInstanceOf(BodyTooLargeError);
    await expect(read).rejects.toMatchObject({ cap: 10_000, message: "the reply is larger than 10000 bytes; the request was aborted" });
    expect(body.cancelled()).toBe(true);
    expect(aborted).toBe(1);
    // Nothing much past the cap was pulled: a chunk or two of read-ahead, not the stream.
    expect(body.pulled()).toBeLessThan(20);
  });

  it("refuses a declared Content-Length over the cap before reading any of it", async () => {
    const body = endless();
    const res = new Response(body.res.body, { headers: { "content-length": "50000000" } });
    let aborted = 0;
    await expect(readCappedText(res, { maxBytes: 1000, abort: () => aborted++, tooLargeMessage: "too big for us" })).rejects.toMatchObject({ name: "BodyTooLargeError", message: "too big for us" });
    expect(aborted).toBe(1);
    expect(body.cancelled()).toBe(true);
  });

  it("returns the prefix that fits when truncating (an error excerpt), whatever the Content-Length says", async () => {
    const body = endless(new TextEncoder().encode("0123456789"));
    const res = new Response(body.res.body, { headers: { "content-length": "50000000" } });
    expect(await readCappedText(res, { maxBytes: 25, truncate: true })).toBe("0123456789012345678901234");
    expect(body.cancelled()).toBe(true);
  });

  it("gives up on a body that stalls, after the idle timeout, and aborts the request", async () => {
    let cancelled = false;
    const stalled = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(10));
      },
      cancel() {
        cancelled = true;
      },
    });
    let aborted = 0;
    await expect(readCappedText(new Response(stalled), { maxBytes: 1000, idleTimeoutMs: 50, abort: () => aborted++ })).rejects.toBeInstanceOf(BodyIdleTimeoutError);
    expect(cancelled).toBe(true);
    expect(aborted).toBe(1);
  });
});

describe("fetchBounded: a server that never answers", () => {
  it("gives up waiting for the headers after the timeout, and the connection is closed", async () => {
    let closed = false;
    const server = createServer((req) => {
      req.socket.on("close", () => {
        closed = true;
      });
      // Never answers.
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    await expect(fetchBounded(url, {}, { headersMs: 100 })).rejects.toBeInstanceOf(HeadersTimeoutError);
    await vi.waitFor(() => expect(closed).toBe(true));
  });

  it("lets a slow but steady body stream past the headers timeout", async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200);
      res.flushHeaders();
      let sent = 0;
      const timer = setInterval(() => {
        res.write("x");
        if (++sent === 5) {
          clearInterval(timer);
          res.end();
        }
      }, 40);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const res = await fetchBounded(url, {}, { headersMs: 100, idleMs: 2000, maxBytes: 100 });
    expect(await res.text()).toBe("xxxxx");
  });
});
