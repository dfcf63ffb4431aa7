import { rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers/cli.ts";
import { closedPort } from "../helpers/net.ts";
import { metric, post, rss, startServe, tally } from "../helpers/serve.ts";
import { BACKGROUND_WORK, waitUntil } from "../helpers/wait.ts";
import { tracesJson } from "../collector/otlp-json.ts";

/** The stated bound on the collector's resident memory through the whole run. */
const RSS_BOUND = 900 * 1024 * 1024;
const DRAIN_MS = 10_000; // collector.drainMs default
const DOCS = ["Returns are accepted within 30 days of delivery for a full refund.", "Refunds reach the original payment method within 5 business days."];
const GOOD = { route: "/api/answer", context: DOCS, answer: "Returns are accepted within 30 days of delivery." };

/** A POST whose Content-Length claims far more than the limit; resolves with the status, never sending a body. */
function lyingLength(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/observations`, { method: "POST", headers: { "content-type": "application/json", "content-length": String(500 * 1024 * 1024) } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.flushHeaders();
  });
}

describe("chaos: the collector under hostile input and faults", () => {
  it("never dies, keeps /readyz truthful, bounds memory, accounts for every accepted observation, and exits within drainMs with OTLP down", async () => {
    const dead = await closedPort();
    const marker = join(tempDir(), "block-worker-start");
    // A body limit above the 30,000-span request of step 5 (4.6 MB), so it is read and decoded while
    // /healthz is polled; at the default 2mb it was refused at once, and the server closing the
    // connection while the client still sent made a busy machine's run fail with "write EPIPE".
    const config = join(tempDir(), "groundwatch.json");
    writeFileSync(config, JSON.stringify({ collector: { bodyLimit: "8mb" } }));
    const { started } = startServe(["--port", "0", "--sample-rate", "1", "--config", config], {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${dead}`,
      OTEL_METRIC_EXPORT_INTERVAL: "500",
      GW_CHAOS_BLOCK_START: marker,
      GROUNDWATCH_TIMEOUT_MS: "10000",
    });
    const serve = await started;
    const obs = `${serve.url}/v1/observations`;
    let accepted = 0;
    let maxRss = rss(serve.pid);
    const sample = (): void => void (maxRss = Math.max(maxRss, rss(serve.pid)));
    const accept = async (body: unknown): Promise<number> => {
      const status = await post(obs, JSON.stringify(body));
      if (status === 202) accepted += Array.isArray(body) ? body.length : 1;
      return status;
    };

    // 1. Hostile but valid observations: accepted and scored within limits.
    const words = ["river", "stone", "lamp", "violet", "orbit"];
    expect(await accept({ ...GOOD, question: "How long?", samples: Array.from({ length: 1500 }, (_, i) => `Within ${i + 1} days, the ${words[i % 5]} rule ${i}.`) })).toBe(202);
    expect(await accept({ ...GOOD, context: [`${DOCS[0]} ${"x".repeat(100_000)}`], answer: `${GOOD.answer} ${"y".repeat(40_000)}` })).toBe(202);
    expect(await accept({ ...GOOD, context: [DOCS[0], Buffer.from(Buffer.alloc(150_000, 7).map((b, i) => (b * 31 + i * 7) % 256)).toString("base64")] })).toBe(202);
    for (let i = 0; i < 3; i++) expect(await accept(GOOD)).toBe(202);

    // 2. Malformed and oversized requests: clean 4xx, nothing kept.
    expect(await post(obs, "[".repeat(100_000))).toBe(400);
    expect(await post(`${serve.url}/v1/traces`, `{"resourceSpans":${"[".repeat(5000)}${"]".repeat(5000)}}`)).toBe(400);
    expect(await post(obs, gzipSync(Buffer.alloc(200 * 1024 * 1024, 32)), { "content-type": "application/json", "content-encoding": "gzip" })).toBe(413);
    expect(await lyingLength(serve.url)).toBe(413);
    expect(await post(obs, JSON.stringify({ ...GOOD, answer: "z".repeat(60_000) }))).toBe(400);
    sample();

    // 3. Dead workers that cannot be replaced for a while: /readyz says so. A byte flood meanwhile:
    // 40 concurrent ~1.85 MB observations (74 MB) against the queue's 64 MiB budget. Each is taken
    // (202) or refused (429), and some are refused: with no worker scoring, nothing leaves the queue
    // while the flood arrives (with workers running, whether the queue filled was a race between the
    // test sending and the collector scoring, which a busy machine could lose). Then the workers
    // start again and /readyz recovers.
    writeFileSync(marker, "");
    serve.signal("SIGUSR2");
    const notReady = await waitUntil("readyz 503", () => fetch(`${serve.url}/readyz`).then(async (r) => ({ status: r.status, body: (await r.json()) as { reason?: string } })), (r) => r.status === 503, BACKGROUND_WORK);
    expect(notReady.body.reason).toMatch(/no scoring worker/);
    // Each observation's documents are its own (a request number leads them), so the scorer's
    // caches of recurring documents cannot make the flood cheap once scoring resumes.
    const big = (n: number) => ({ ...GOOD, context: Array.from({ length: 4 }, (_, i) => `Request ${n}. ${DOCS[i % 2]} ${"lorem ipsum dolor sit amet ".repeat(17_000)}`) });
    const flood = await Promise.all(Array.from({ length: 40 }, (_, n) => accept(big(n))));
    sample();
    expect(flood.every((s) => s === 202 || s === 429)).toBe(true);
    expect(flood.filter((s) => s === 429).length).toBeGreaterThan(0);
    rmSync(marker);
    await waitUntil("readyz 200", () => fetch(`${serve.url}/readyz`).then((r) => r.status), (s) => s === 200, BACKGROUND_WORK);

    // 4. One trace whose documents pile up across requests: the per-trace cap holds.
    const traceId = "7b8efff798038103d269b633813fc60c";
    const pile = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        post(`${serve.url}/v1/traces`, JSON.stringify(tracesJson(traceId, [{ spanId: `${(i + 1).toString(16).padStart(16, "0")}`, parentSpanId: "00000000000000aa", attributes: { "openinference.span.kind": "RETRIEVER", "retrieval.documents.0.document.content": "d".repeat(1_800_000) } }]))),
      ),
    );
    sample();
    expect(pile.every((s) => s === 200 || s === 429 || s === 413)).toBe(true);

    // 5. A 30,000-span request while /healthz is polled: both answer.
    const spans = Array.from({ length: 30_000 }, (_, i) => ({ spanId: (i + 1).toString(16).padStart(16, "0"), name: "s", attributes: { k: "v" } }));
    const bigTrace = post(`${serve.url}/v1/traces`, JSON.stringify(tracesJson("8b8efff798038103d269b633813fc60c", spans)));
    const health = await Promise.all(Array.from({ length: 5 }, () => fetch(`${serve.url}/healthz`).then((r) => r.status)));
    expect(health.every((s) => s === 200)).toBe(true);
    expect([200, 429]).toContain(await bigTrace);

    // 6. Everything settles; scoring goes on; every accepted observation is accounted for, exactly.
    const settled = await waitUntil("accounting settles", () => tally(serve.url), (t) => t.sampled === t.scored + t.dropped + t.failed && t.seen >= accepted, BACKGROUND_WORK);
    expect(settled.seen).toBe(accepted);
    expect(settled.seen).toBe(settled.sampled + settled.notSampled);
    expect(await accept(GOOD)).toBe(202);
    const after = await waitUntil("scored after chaos", () => tally(serve.url), (t) => t.scored === settled.scored + 1 && t.sampled === t.scored + t.dropped + t.failed, BACKGROUND_WORK);
    expect(after.seen).toBe(accepted);
    // The piled-up trace was let go past maxTraceBytes and is counted once it settles (traceTimeoutMs).
    await waitUntil("trace_too_large counted", () => tally(serve.url), (t) => metric(t.text, "groundwatch_collector_incomplete_total", 'groundwatch_reason="trace_too_large"') === 1, BACKGROUND_WORK);
    sample();
    if (process.env.GW_CHAOS_VERBOSE) console.log(JSON.stringify({ accepted, flood429: flood.filter((x) => x === 429).length, pile, maxRss, after: { ...after, text: undefined }, incomplete: after.text.split("\n").filter((l) => l.startsWith("groundwatch_collector_incomplete_total")) }));
    expect(maxRss).toBeLessThan(RSS_BOUND);

    // 7. A second collector on the same port says so and exits 1; the first keeps serving.
    const port = new URL(serve.url).port;
    const second = startServe(["--port", port], {});
    second.started.catch(() => undefined); // it is meant not to start
    const secondExit = await second.exited;
    expect(secondExit.code).toBe(1);
    expect(second.output()).toMatch(/already in use/);
    expect((await fetch(`${serve.url}/healthz`)).status).toBe(200);

    // 8. SIGTERM with the OTLP endpoint down: exits 0 within drainMs (plus process start-up slack).
    const signalled = Date.now();
    serve.signal("SIGTERM");
    const exit = await serve.exited;
    expect(exit.code).toBe(0);
    expect(exit.at - signalled).toBeLessThan(DRAIN_MS + 5000);
  }, 300_000);
});
