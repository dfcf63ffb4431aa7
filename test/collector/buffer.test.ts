/**
 * The collector's trace buffer and HTTP server under hold and trickle (issue 24, items 3, 14, 15):
 * buffer fill and refusals on /metrics, readiness while the buffer is held full, explicit timeouts and
 * a connection cap, and Host names on a loopback bind without a token.
 */
import { writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { resolveCollectorOptions } from "../../src/collector/options.ts";
import { isLoopbackHostHeader } from "../../src/net/bind-policy.ts";
import type { RunningCollector } from "../../src/collector/server.ts";
import { startCollector } from "../../src/collector/server.ts";
import { tempDir } from "../helpers/cli.ts";
import { rawConnection } from "../helpers/net.ts";
import { metric } from "../helpers/serve.ts";
import { logsJson, tracesJson } from "./otlp-json.ts";

const ENV = { HF_HOME: "/nonexistent/groundwatch-test-hf-home" };
const TOKEN = "0123456789abcdef-test-token";
const DOC = "Returns: you may return unopened items within 30 days of delivery for a full refund.";
const traceId = (n: number): string => n.toString(16).padStart(32, "0");

async function collector(extra: Parameters<typeof startCollector>[0] = {}): Promise<RunningCollector> {
  const c = await startCollector({ env: ENV, port: 0, ...extra, monitor: { sampling: { default: 1 }, scoring: { backend: "offline" }, ...extra.monitor } });
  onTestFinished(() => c.close(2000));
  return c;
}

const post = (url: string, body: object, headers: Record<string, string> = {}): Promise<Response> => fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
/** A log-only trace: one user message, never an answer or a root span. */
const partial = (n: number, text = "How long do I have?"): object => logsJson(traceId(n), [{ spanId: "0000000000000003", eventName: "gen_ai.user.message", body: { content: text } }]);
const complete = (n: number): object =>
  tracesJson(traceId(n), [
    { spanId: "0000000000000002", parentSpanId: "0000000000000001", attributes: { "retrieval.documents.0.document.content": DOC } },
    { spanId: "0000000000000003", parentSpanId: "0000000000000001", attributes: { "openinference.span.kind": "LLM", "output.value": "Unopened items can be returned within 30 days." } },
    { spanId: "0000000000000001", attributes: { "http.route": "/ask" } },
  ]);

/** GET with a chosen Host header (fetch does not let one set it); resolves with status and body. */
function getWithHost(url: string, path: string, host: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { headers: { ...headers, host } }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("collector: the trace buffer on /metrics and /readyz", () => {
  it("shows the buffer's fill, its limits and refusals by endpoint and reason on /metrics", async () => {
    const c = await collector({ maxTraces: 50 });
    for (const n of [1, 2, 3]) expect((await post(`${c.url}/v1/logs`, partial(n))).status).toBe(200);
    expect((await post(`${c.url}/v1/traces`, complete(9), { "content-type": "text/plain" })).status).toBe(415);
    expect((await post(`${c.url}/v1/observations`, { context: DOC })).status).toBe(400);
    const text = await (await fetch(`${c.url}/metrics`)).text();
    expect(metric(text, "groundwatch_collector_buffer_traces")).toBe(3);
    expect(metric(text, "groundwatch_collector_buffer_max_traces")).toBe(50);
    expect(metric(text, "groundwatch_collector_buffer_waiting")).toBe(0);
    expect(metric(text, "groundwatch_collector_buffer_bytes")).toBe(c.buffered().bytes);
    expect(metric(text, "groundwatch_collector_buffer_max_bytes")).toBe(c.options.maxBufferBytes);
    expect(metric(text, "groundwatch_collector_refused_total", 'groundwatch_endpoint="/v1/traces",groundwatch_reason="unsupported_media_type"')).toBe(1);
    expect(metric(text, "groundwatch_collector_refused_total", 'groundwatch_endpoint="/v1/observations",groundwatch_reason="bad_request"')).toBe(1);
  });

  it("counts 429s by reason: queue_full while a complete trace waits for the queue", async () => {
    const c = await collector();
    await c.monitor.ready();
    const original = c.monitor.hasRoomFor.bind(c.monitor);
    vi.spyOn(c.monitor, "hasRoomFor").mockImplementation((routes, bytes) => (bytes === undefined ? original(routes, bytes) : false));
    expect((await post(`${c.url}/v1/traces`, complete(1))).status).toBe(200);
    expect((await post(`${c.url}/v1/logs`, partial(2))).status).toBe(429);
    expect((await post(`${c.url}/v1/observations`, { context: DOC, answer: "Thirty days." })).status).toBe(429);
    expect(c.refusedStats()).toEqual({ "/v1/logs queue_full": 1, "/v1/observations queue_full": 1 });
    const text = await (await fetch(`${c.url}/metrics`)).text();
    expect(metric(text, "groundwatch_collector_refused_total", 'groundwatch_reason="queue_full"')).toBe(2);
    expect(metric(text, "groundwatch_collector_buffer_waiting")).toBe(1);
  });

  it("takes every new trace while stale partial traces fill the buffer, evicting them (buffer_full), and answers /readyz 503 while the buffer is held full", async () => {
    // Before: 429 for every new trace, and /readyz 200 throughout.
    const c = await collector({ maxTraces: 5, traceTimeoutMs: 500, maxTraceAgeMs: 60_000 });
    await c.monitor.ready();
    let n = 0;
    // New partial traces keep the buffer at maxTraces, each evicting the oldest, until /readyz says so.
    await vi.waitFor(
      async () => {
        expect((await post(`${c.url}/v1/logs`, partial(++n))).status).toBe(200);
        const ready = await fetch(`${c.url}/readyz`);
        expect(ready.status).toBe(503);
        expect(((await ready.json()) as { reason: string }).reason).toMatch(/^the trace buffer has been full for \d+ s \(5 of 5 traces, .*buffer_full/);
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(c.incompleteStats().buffer_full).toBe(n - 5);
    // A legitimate trace still gets in and is scored.
    expect((await post(`${c.url}/v1/traces`, complete(100_000))).status).toBe(200);
    await vi.waitFor(() => expect(c.monitor.stats().seen).toBe(1), { timeout: 10_000 });
    expect(c.refusedStats()).toEqual({});
    // Left alone, the partial traces time out and readiness comes back.
    await vi.waitFor(async () => expect((await fetch(`${c.url}/readyz`)).status).toBe(200), { timeout: 20_000, interval: 100 });
  });
});

describe("collector: HTTP timeouts and connection cap", () => {
  it("cuts off a body trickling in past requestTimeoutMs with 408, and counts it", async () => {
    // Node's default let such a body stay open for 300 s.
    const c = await collector({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const conn = rawConnection(c.url);
    conn.socket.write("POST /v1/observations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n");
    const trickle = setInterval(() => conn.socket.write(" "), 50);
    onTestFinished(() => clearInterval(trickle));
    await conn.closed;
    clearInterval(trickle);
    expect(conn.answer()).toMatch(/^HTTP\/1\.1 408 /);
    await vi.waitFor(() => expect(c.refusedStats()).toEqual({ "connection timeout": 1 }));
  });

  it("closes a connection over maxConnections at once, counts it, and serves the others", async () => {
    const c = await collector({ maxConnections: 2 });
    const open = [rawConnection(c.url), rawConnection(c.url)];
    // Each connection has been accepted once it has answered a request (kept alive).
    for (const conn of open) {
      conn.socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      await vi.waitFor(() => expect(conn.answer()).toMatch(/^HTTP\/1\.1 200 [\s\S]*"ok"/));
    }
    const third = rawConnection(c.url);
    third.socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    await third.closed;
    expect(third.answer()).toBe("");
    await vi.waitFor(() => expect(c.refusedStats()).toEqual({ "connection too_many_connections": 1 }));
    open[0]?.socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    await vi.waitFor(() => expect(open[0]?.answer().match(/HTTP\/1\.1 200/g)).toHaveLength(2));
  });

  it("reads the timeouts and the cap from options and the config file, with defaults, and refuses inconsistent ones by name", () => {
    expect(resolveCollectorOptions({ env: {} })).toMatchObject({ headersTimeoutMs: 10_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 5000, maxConnections: 1024, traceTimeoutMs: 5000, maxTraceAgeMs: 30_000 });
    const file = join(tempDir(), "groundwatch.json");
    writeFileSync(file, JSON.stringify({ collector: { headersTimeoutMs: 2000, requestTimeoutMs: 4000, keepAliveTimeoutMs: 1000, maxConnections: 64, traceTimeoutMs: 1000, maxTraceAgeMs: 9000 } }));
    expect(resolveCollectorOptions({ env: {}, configFile: file })).toMatchObject({ headersTimeoutMs: 2000, requestTimeoutMs: 4000, keepAliveTimeoutMs: 1000, maxConnections: 64, maxTraceAgeMs: 9000 });
    expect(resolveCollectorOptions({ env: {}, traceTimeoutMs: 2000 }).maxTraceAgeMs).toBe(12_000);
    expect(() => resolveCollectorOptions({ env: {}, traceTimeoutMs: 5000, maxTraceAgeMs: 1000 })).toThrow(/maxTraceAgeMs.*at least traceTimeoutMs \(5000\)/);
    expect(() => resolveCollectorOptions({ env: {}, headersTimeoutMs: 5000, requestTimeoutMs: 1000 })).toThrow(/headersTimeoutMs.*at most requestTimeoutMs \(1000\)/);
    expect(() => resolveCollectorOptions({ env: {}, maxConnections: 0 })).toThrow(/maxConnections/);
  });
});

describe("collector: Host names on a loopback bind (DNS rebinding)", () => {
  it("answers 421 to a Host that is not a loopback name when bound to loopback without a token, and counts it", async () => {
    const c = await collector();
    const port = new URL(c.url).port;
    const refused = await getWithHost(c.url, "/metrics", `rebind.example:${port}`);
    expect(refused.status).toBe(421);
    expect(refused.body).toMatch(/GROUNDWATCH_TOKEN/);
    expect((await getWithHost(c.url, "/v1/observations", "evil.example")).status).toBe(421);
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, "LOCALHOST", "127.1.2.3"]) expect((await getWithHost(c.url, "/healthz", host)).status).toBe(200);
    expect(c.refusedStats()).toEqual({ "/metrics misdirected": 1, "/v1/observations misdirected": 1 });
  });

  it("checks Host on a loopback bind with a token too (a rebinding page would face the token alone), and not on other addresses", async () => {
    // Before: a token turned the check off, so a DNS-rebinding page got 401, not 421, and could guess on.
    const loopback = await collector({ token: TOKEN });
    const port = new URL(loopback.url).port;
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect((await getWithHost(loopback.url, "/metrics", `rebind.example:${port}`, auth)).status).toBe(421);
    expect((await getWithHost(loopback.url, "/v1/flagged", "rebind.example")).status).toBe(421);
    expect((await getWithHost(loopback.url, "/metrics", `localhost:${port}`, auth)).status).toBe(200);
    expect(loopback.refusedStats()).toEqual({ "/metrics misdirected": 1, "/v1/flagged misdirected": 1 });
    const any = await collector({ host: "0.0.0.0", token: TOKEN });
    const url = any.url.replace("0.0.0.0", "127.0.0.1");
    expect((await getWithHost(url, "/metrics", "collector.internal:4319", auth)).status).toBe(200);
    expect((await getWithHost(url, "/metrics", "collector.internal:4319")).status).toBe(401);
  });

  it("names loopback Hosts: localhost, 127.x.x.x and [::1], with any port, and nothing else", () => {
    for (const ok of ["localhost", "localhost:4319", "127.0.0.1", "127.0.0.1:80", "[::1]", "[::1]:4319", "127.255.0.1"]) expect(isLoopbackHostHeader(ok), ok).toBe(true);
    for (const bad of [undefined, "", "evil.example", "localhost.evil.example", "127.0.0.1.evil.example", "[::2]", "10.0.0.1", "127.0.0.256", "localhost:", "localhost:99999x"]) expect(isLoopbackHostHeader(bad), String(bad)).toBe(false);
  });
});
