/**
 * Every outbound HTTP caller is bounded the same way (net/bounded-fetch.ts): a server that sends
 * its headers and then stalls the body, or trickles it a byte at a time (never silent long enough
 * for the idle bound), is cut off, whichever caller asked. The clock is faked: the bounds are
 * reached by advancing it, never by waiting.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { askTarget } from "../../src/cli/eval/target.ts";
import { downloadFile } from "../../src/nli/hub/download.ts";
import { fetchRepoListing } from "../../src/nli/hub/pull.ts";
import { createChatClient } from "../../src/nli/judge/chat.ts";
import { runCli } from "../helpers/cli.ts";

type Body = "stall" | "trickle";

// The real clock, kept before the fake one is installed: a CLI's own file reads are real I/O.
const realSetTimeout = globalThis.setTimeout;

/** A body that sends one byte, then nothing (stall), or one byte every `everyMs` (trickle), for ever or `bytes` in all. */
function body(kind: Body, bytes: number, everyMs: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (kind === "stall" && sent > 0) return new Promise<void>(() => undefined);
      if (sent > 0) await new Promise((resolve) => setTimeout(resolve, everyMs));
      controller.enqueue(new Uint8Array([32]));
      if (++sent >= bytes) controller.close();
    },
  });
}

/** A fake server: every reply is 200 with such a body (a readiness probe, `/-/ready`, gets an empty one); `asked` says whether a request came. */
function slowServer(kind: Body, bytes: number, everyMs: number): typeof fetch & { asked: () => boolean } {
  let asked = false;
  const doFetch = (url: string | URL | Request): Promise<Response> => {
    asked = true;
    return Promise.resolve(String(url).endsWith("/-/ready") ? new Response("") : new Response(body(kind, bytes, everyMs), { status: 200 }));
  };
  return Object.assign(doFetch as typeof fetch, { asked: () => asked });
}

/**
 * Runs `call` against `server`: once the request is made, the fake clock advances a second at a
 * time (each step also lets real I/O, a download's writes, finish), for up to an hour; whether
 * (and how) the call settled.
 */
async function underFakeClock(server: { asked: () => boolean }, call: () => Promise<unknown>): Promise<{ settled: boolean; error?: unknown }> {
  let outcome: { settled: boolean; error?: unknown } | undefined;
  void call().then(
    () => (outcome = { settled: true }),
    (error: unknown) => (outcome = { settled: true, error }),
  );
  // Before its request, a CLI reads its files (real I/O): wait for the request on the real clock.
  for (let turns = 0; turns < 2000 && !server.asked() && outcome === undefined; turns++) await new Promise((resolve) => realSetTimeout(resolve, 5));
  // A real millisecond a step, not one turn of the loop: on a loaded machine a download's file write
  // (the thread pool) outlasted all 3,600 turns (~50 ms in all), and a slow body that kept moving read
  // as never finishing.
  for (let s = 0; s < 60 * 60 && outcome === undefined; s++) {
    await vi.advanceTimersByTimeAsync(1000);
    await new Promise((resolve) => realSetTimeout(resolve, 1));
  }
  return outcome ?? { settled: false };
}

/** `call` against a fresh slow server of this kind (a trickle: a byte every 500 ms for ever, unless told otherwise). */
function against(kind: Body, call: (doFetch: typeof fetch) => Promise<unknown>, trickle: { bytes: number; everyMs: number } = { bytes: Infinity, everyMs: 500 }): Promise<{ settled: boolean; error?: unknown }> {
  const server = slowServer(kind, trickle.bytes, trickle.everyMs);
  return underFakeClock(server, () => call(server));
}

/** A file that takes 200 s, a byte every 20 s (under the idle bound): longer than the client's default bound on a whole request. */
const SLOW_FILE = { bytes: 10, everyMs: 20_000 };

const HUB = { cacheDir: "/nonexistent/groundwatch-test-hub", endpoint: "http://hub.invalid", token: undefined, offline: false };

/** Each caller, asked once against `doFetch`; resolves whatever it answered (a CLI's exit), rejects with its failure. */
const CALLERS: Record<string, (doFetch: typeof fetch) => Promise<unknown>> = {
  "the chat client (judge, resampler)": (doFetch) => createChatClient({ label: "judge", baseUrl: "http://judge.invalid/v1", fetch: doFetch, attempts: 1 }).complete({ model: "m" }),
  "the eval target": (doFetch) => askTarget({ url: "http://target.invalid/ask", requestTemplate: '{"q":"{{question}}"}', answerPath: "answer", timeoutMs: 30_000, attempts: 1, fetch: doFetch }, "why?"),
  "the hub listing": (doFetch) => fetchRepoListing({ repo: "org/model", hub: HUB, fetch: doFetch }),
  "groundwatch flagged": async (doFetch) => {
    vi.stubGlobal("fetch", doFetch);
    const run = await runCli(["flagged", "--url", "http://collector.invalid"]);
    if (run.code !== 0) throw new Error(run.stderr);
  },
  "groundwatch evidence": async (doFetch) => {
    vi.stubGlobal("fetch", doFetch);
    const run = await runCli(["evidence", "--prometheus", "http://prometheus.invalid", "--since", "1d", "--out", join(tempOut(), "report.html")]);
    if (run.code !== 0) throw new Error(run.stderr);
  },
  "groundwatch doctor": async (doFetch) => {
    vi.stubGlobal("fetch", doFetch);
    const run = await runCli(["doctor", "--skip-backend", "--prometheus", "http://prometheus.invalid"]);
    const out = run.stdout + run.stderr;
    if (/stalled|no complete reply/.test(out)) throw new Error(out);
  },
};

function tempOut(): string {
  const dir = mkdtempSync(join(tmpdir(), "groundwatch-bounded-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe("every HTTP caller is bounded by the one client", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  describe.each(Object.entries(CALLERS))("%s", (_name, call) => {
    it("is cut off when the body stalls after the headers", async () => {
      const outcome = await against("stall", call);
      expect(outcome.settled).toBe(true);
      expect(String((outcome.error as Error | undefined)?.message)).toMatch(/stalled|no complete reply/);
    });

    it("is cut off when the body trickles for ever, never silent long enough for the idle bound", async () => {
      const outcome = await against("trickle", call);
      expect(outcome.settled).toBe(true);
      expect(String((outcome.error as Error | undefined)?.message)).toMatch(/no complete reply/);
    });
  });

  describe("a hub download (no bound on the whole request: a large file may take long while it moves)", () => {
    const file = (dir: string) => ({ path: "model.onnx", url: "http://hub.invalid/model.onnx", dest: join(dir, "model.onnx"), size: SLOW_FILE.bytes, sha256: undefined });
    const settings = (doFetch: typeof fetch) => ({ headers: {}, fetch: doFetch, attempts: 1, backoffMs: 1, timeoutMs: 30_000, idleTimeoutMs: 60_000 });

    it("is cut off when the body stalls after the headers", async () => {
      const outcome = await against("stall", (doFetch) => downloadFile(file(tempOut()), settings(doFetch)));
      expect(outcome.settled).toBe(true);
      expect(String((outcome.error as Error | undefined)?.message)).toMatch(/stalled/);
    });

    it("lets a slow body that keeps moving finish", async () => {
      const outcome = await against("trickle", (doFetch) => downloadFile(file(tempOut()), settings(doFetch)), SLOW_FILE);
      expect(outcome).toEqual({ settled: true });
    });
  });
});
