import { request } from "node:http";
import { connect } from "node:net";
import { brotliCompressSync, constants as zlibConstants, gzipSync } from "node:zlib";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { createOtlpCodecs } from "../../src/collector/otlp-proto.ts";
import { resolveCollectorOptions } from "../../src/collector/options.ts";
import type { JsonSpan } from "./otlp-json.ts";
import { tracesJson } from "./otlp-json.ts";
import type { RunningCollector } from "../../src/collector/server.ts";
import { RETURNS_DOC, postJson, startTestCollector } from "../helpers/collector.ts";
import { waitUntil } from "../helpers/wait.ts";

const ROOT = "0000000000000001";
const RETRIEVER = "0000000000000002";
const LLM = "0000000000000003";
const TOKEN = "0123456789abcdef-test-token";

const traceId = (n: number): string => n.toString(16).padStart(32, "0");
const retriever = (docs: readonly string[]): JsonSpan => ({ spanId: RETRIEVER, parentSpanId: ROOT, attributes: Object.fromEntries(docs.map((d, i) => [`retrieval.documents.${i}.document.content`, d])) });
const llm = (answer: string): JsonSpan => ({ spanId: LLM, parentSpanId: ROOT, attributes: { "openinference.span.kind": "LLM", "output.value": answer } });
const root = (route = "/ask"): JsonSpan => ({ spanId: ROOT, attributes: { "http.route": route } });
const complete = (id: number, answer = "Unopened items can be returned within 30 days."): object => tracesJson(traceId(id), [retriever([RETURNS_DOC]), llm(answer), root()]);

const metrics = async (c: RunningCollector): Promise<string> => (await fetch(`${c.url}/metrics`)).text();

/** Sends raw bytes on a new connection and resolves with everything the server answers until it closes the connection. */
function rawRequest(url: string, head: string, body = ""): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let answer = "";
    socket.on("data", (d: Buffer) => (answer += d.toString("latin1")));
    socket.on("close", () => resolve(answer));
    socket.on("error", reject);
    onTestFinished(() => void socket.destroy());
    socket.write(head + body);
  });
}

describe("collector: /v1/traces has the limits of /v1/observations", () => {
  it("counts an answer over maxAnswerChars and more documents than maxDocuments, and scores neither", async () => {
    const c = await startTestCollector({ maxAnswerChars: 100, maxDocuments: 2 });
    expect((await postJson(`${c.url}/v1/traces`, complete(1, "x".repeat(101)))).status).toBe(200);
    expect((await postJson(`${c.url}/v1/traces`, tracesJson(traceId(2), [retriever(["a", "b", "c"]), llm("Thirty days."), root()]))).status).toBe(200);
    expect(c.incompleteStats()).toEqual({ answer_too_large: 1, too_many_documents: 1 });
    expect(c.monitor.stats().seen).toBe(0);
    const text = await metrics(c);
    expect(text).toMatch(/groundwatch_collector_incomplete_total\{[^}]*groundwatch_reason="answer_too_large"[^}]*\} 1/);
    expect(text).toMatch(/groundwatch_collector_incomplete_total\{[^}]*groundwatch_reason="too_many_documents"[^}]*\} 1/);
  });

  it("does not let one trace's documents pile up across requests: past maxTraceBytes it is let go and counted as trace_too_large", async () => {
    const c = await startTestCollector({ maxTraceBytes: 64 * 1024, bodyLimit: "1mb" });
    const big = "d".repeat(30_000);
    for (let i = 0; i < 10; i++) {
      const res = await postJson(`${c.url}/v1/traces`, tracesJson(traceId(7), [{ spanId: `00000000000001${String(i).padStart(2, "0")}`, parentSpanId: ROOT, attributes: { "retrieval.documents.0.document.content": `${i}${big}` } }]));
      expect(res.status).toBe(200);
      expect(c.buffered().bytes).toBeLessThanOrEqual(64 * 1024);
    }
    await postJson(`${c.url}/v1/traces`, tracesJson(traceId(7), [llm("Thirty days."), root()]));
    expect(c.incompleteStats()).toEqual({ trace_too_large: 1 });
    expect(c.buffered()).toEqual({ traces: 0, waiting: 0, bytes: 0 });
    expect(c.monitor.stats().seen).toBe(0);
  });

  it("evicts the oldest incomplete trace for a request that needs its room, instead of answering 429", async () => {
    // Before: partial traces holding the buffer made every new trace a 429.
    const c = await startTestCollector({ maxBufferBytes: 64 * 1024, maxTraceBytes: 64 * 1024 });
    // An incomplete trace (no answer, no root) holds about 40 kB.
    expect((await postJson(`${c.url}/v1/traces`, tracesJson(traceId(1), [retriever(["d".repeat(40_000)])]))).status).toBe(200);
    expect((await postJson(`${c.url}/v1/traces`, tracesJson(traceId(2), [retriever(["e".repeat(40_000)])]))).status).toBe(200);
    expect(c.incompleteStats()).toEqual({ buffer_full: 1 });
    expect(c.buffered()).toMatchObject({ traces: 1, waiting: 0 });
    expect((await postJson(`${c.url}/v1/traces`, complete(3))).status).toBe(200);
    await waitUntil("the complete trace to be handed on", () => c.monitor.stats(), (s) => s.seen === 1);
    expect(c.refusedStats()).toEqual({});
  });
});

describe("collector: admission by the scoring queue", () => {
  it("passes the observations' text to hasRoomFor, and answers 429 when the queue's byte budget cannot take it", async () => {
    const c = await startTestCollector({ monitor: { queueBytes: 4096 } });
    await c.monitor.ready();
    const spy = vi.spyOn(c.monitor, "hasRoomFor");
    const small = { route: "/faq", context: [RETURNS_DOC], answer: "Thirty days." };
    expect((await postJson(`${c.url}/v1/observations`, small)).status).toBe(202);
    expect(spy).toHaveBeenLastCalledWith(["/faq"], RETURNS_DOC.length + "Thirty days.".length);
    const big = { route: "/faq", context: ["x".repeat(5000)], answer: "Thirty days." };
    const res = await postJson(`${c.url}/v1/observations`, big);
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("1");
    await c.monitor.flush();
    expect(c.monitor.stats()).toMatchObject({ seen: 1, scored: 1, dropped: {} });
  });

  it("answers 429 on /v1/traces before keeping anything when the interactions it completes would not fit, and scores the retry", async () => {
    const c = await startTestCollector({ traceTimeoutMs: 60_000 });
    await c.monitor.ready();
    // The documents arrive first; the request with the answer and the root span completes the trace.
    expect((await postJson(`${c.url}/v1/traces`, tracesJson(traceId(1), [retriever([RETURNS_DOC])]))).status).toBe(200);
    const spy = vi.spyOn(c.monitor, "hasRoomFor").mockReturnValue(false);
    const finishing = tracesJson(traceId(1), [llm("Unopened items can be returned within 30 days."), root()]);
    const refused = await postJson(`${c.url}/v1/traces`, finishing);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    // Asked for room for the trace it would complete, under that trace's route.
    expect(spy).toHaveBeenLastCalledWith(["/ask"]);
    expect(c.buffered()).toMatchObject({ traces: 1, waiting: 0 });
    spy.mockRestore();
    expect((await postJson(`${c.url}/v1/traces`, finishing)).status).toBe(200);
    await waitUntil("the retried trace to be scored", () => c.monitor.stats(), (s) => s.scored === 1);
    expect(c.incompleteStats()).toEqual({});
    expect(c.monitor.stats().dropped).toEqual({});
  });

  it("keeps a completed trace waiting while the queue cannot take it, answers 429 meanwhile, and scores it once there is room", async () => {
    const c = await startTestCollector({ traceTimeoutMs: 60_000 });
    await c.monitor.ready();
    let room = false;
    const original = c.monitor.hasRoomFor.bind(c.monitor);
    // The queue has room for the request (asked without bytes), not for the interaction it completes (asked with its text).
    vi.spyOn(c.monitor, "hasRoomFor").mockImplementation((routes, bytes) => (bytes === undefined || room ? original(routes, bytes) : false));
    expect((await postJson(`${c.url}/v1/traces`, complete(1))).status).toBe(200);
    expect(c.buffered()).toMatchObject({ traces: 1, waiting: 1 });
    const refused = await postJson(`${c.url}/v1/observations`, { context: RETURNS_DOC, answer: "Thirty days." });
    expect(refused.status).toBe(429);
    expect((await postJson(`${c.url}/v1/traces`, complete(2))).status).toBe(429);
    room = true;
    await waitUntil("the waiting trace to be scored", () => c.monitor.stats(), (s) => s.scored === 1);
    expect(c.buffered()).toMatchObject({ traces: 0, waiting: 0 });
    expect(c.monitor.stats()).toMatchObject({ seen: 1, dropped: {} });
  });

  it("never answers 200 for a trace it then drops: every accepted trace is seen by the monitor", async () => {
    const c = await startTestCollector({ monitor: { sampling: { default: 1 }, scoring: { backend: "offline" }, queueSize: 3 } });
    await c.monitor.ready();
    const statuses = await Promise.all(Array.from({ length: 60 }, async (_, i) => (await postJson(`${c.url}/v1/traces`, complete(i + 1))).status));
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
    // Complete traces wait in the buffer for room in the queue, then are scored.
    await waitUntil("the accepted traces to be handed on", () => c.buffered(), (b) => b.traces === 0);
    await c.monitor.flush();
    const s = c.monitor.stats();
    expect(s.seen).toBe(statuses.filter((x) => x === 200).length);
    expect(s.dropped).toEqual({});
    expect(s.scored + Object.values(s.failed).reduce((a, b) => a + b, 0)).toBe(s.seen);
  });
});

describe("collector: readiness", () => {
  it("answers /readyz from monitor.health(): 503 with the reason while not ready", async () => {
    const c = await startTestCollector();
    expect(await (await fetch(`${c.url}/readyz`)).json()).toEqual({ ready: true });
    vi.spyOn(c.monitor, "health").mockReturnValue({ ready: false, reason: "no scoring worker is running; replacing it", workers: { alive: 0, size: 1, restarts: 1 }, queue: { depth: 0, bytes: 0 }, warnings: [] });
    const res = await fetch(`${c.url}/readyz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ ready: false, reason: "no scoring worker is running; replacing it" });
  });
});

describe("collector: authentication", () => {
  it("accepts the Bearer scheme in any case, and refuses a wrong token of any length", async () => {
    const c = await startTestCollector({ token: TOKEN });
    const obs = JSON.stringify({ context: "x", answer: "y" });
    for (const scheme of ["Bearer", "bearer", "BEARER"]) {
      expect((await postJson(`${c.url}/v1/observations`, obs, { "content-type": "application/json", authorization: `${scheme} ${TOKEN}` })).status).toBe(202);
    }
    for (const wrong of ["", "Bearer", `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(1)}`, "Bearer x", `Basic ${TOKEN}`, TOKEN]) {
      const res = await postJson(`${c.url}/v1/observations`, obs, { "content-type": "application/json", ...(wrong ? { authorization: wrong } : {}) });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe("Bearer");
    }
  });

  it.each([
    [{ host: "0.0.0.0" }, /needs a bearer token/],
    [{ host: "0.0.0.0", token: "   " }, /needs a bearer token/],
    [{ host: "0.0.0.0", token: "short-token" }, /invalid token: "\(11 characters\)" \(a bearer token must be at least 16 characters/],
    [{ host: "0.0.0.0", env: { GROUNDWATCH_TOKEN: "abc" } }, /invalid GROUNDWATCH_TOKEN: "\(3 characters\)"/],
  ])("refuses a non-loopback bind with %j", (options, message) => {
    expect(() => resolveCollectorOptions({ env: {}, ...options })).toThrow(message);
  });

  it.each([
    // Before: any length was taken on loopback (GROUNDWATCH_TOKEN=short started serve).
    [{ token: "short" }, /invalid token: "\(5 characters\)" \(a bearer token must be at least 16 characters/],
    [{ env: { GROUNDWATCH_TOKEN: "short" } }, /invalid GROUNDWATCH_TOKEN: "\(5 characters\)"/],
    [{ host: "localhost", token: "x".repeat(15) }, /invalid token: "\(15 characters\)"/],
    [{ host: "::1", token: "x".repeat(15) }, /invalid token: "\(15 characters\)"/],
  ])("refuses a token under 16 characters on loopback too: %j", (options, message) => {
    expect(() => resolveCollectorOptions({ env: {}, ...options })).toThrow(expect.objectContaining({ name: "ConfigError", message: expect.stringMatching(message) }));
  });

  it("takes a token of 16 characters or more on loopback, and none at all", () => {
    expect(resolveCollectorOptions({ env: { GROUNDWATCH_TOKEN: "x".repeat(16) } }).token).toBe("x".repeat(16));
    expect(resolveCollectorOptions({ env: {} }).token).toBeUndefined();
  });

  it("never echoes a short token in the error", () => {
    expect(() => resolveCollectorOptions({ env: {}, host: "0.0.0.0", token: "hunter2" })).toThrow(expect.objectContaining({ message: expect.not.stringContaining("hunter2") }));
    expect(resolveCollectorOptions({ env: {}, host: "0.0.0.0", token: ` ${TOKEN}\n` }).token).toBe(TOKEN);
  });
});

describe("collector: media types and encodings", () => {
  it("reads media types in any case and with parameters", async () => {
    const c = await startTestCollector();
    expect((await postJson(`${c.url}/v1/observations`, { context: RETURNS_DOC, answer: "Thirty days." }, { "content-type": "APPLICATION/JSON; charset=UTF-8" })).status).toBe(202);
    expect((await postJson(`${c.url}/v1/traces`, complete(1), { "content-type": "Application/Json;charset=utf-8" })).status).toBe(200);
    const proto = Buffer.from(createOtlpCodecs().load().traceRequest.encode({ resourceSpans: [] }));
    const res = await postJson(`${c.url}/v1/traces`, proto, { "content-type": "Application/X-Protobuf" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/x-protobuf/);
  });

  it("answers 415 to observations that are not JSON", async () => {
    const c = await startTestCollector();
    const res = await postJson(`${c.url}/v1/observations`, JSON.stringify({ context: RETURNS_DOC, answer: "x" }), { "content-type": "text/plain" });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { error: string }).error).toMatch(/unsupported content-type "text\/plain"/);
  });

  it.each([
    ["a gzip bomb", () => gzipSync(Buffer.alloc(50 * 1024 * 1024)), "gzip", 413, /larger than the limit of 2mb/],
    ["a brotli bomb", () => brotliCompressSync(Buffer.alloc(50 * 1024 * 1024), { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 4 } }), "br", 413, /larger than the limit of 2mb/],
    ["a truncated gzip stream", () => gzipSync(JSON.stringify(complete(1))).subarray(0, 20), "gzip", 400, /not valid gzip data/],
    ["an unknown encoding", () => Buffer.from("{}"), "compress", 415, /unsupported content-encoding "compress"/],
  ])("%s gets a clear 4xx", async (_name, body, encoding, status, message) => {
    const c = await startTestCollector();
    for (const path of ["/v1/traces", "/v1/observations"]) {
      const res = await postJson(`${c.url}${path}`, body(), { "content-type": "application/json", "content-encoding": encoding });
      expect(res.status).toBe(status);
      expect(((await res.json()) as { error: string }).error).toMatch(message);
    }
    expect((await fetch(`${c.url}/healthz`)).status).toBe(200);
  });

  it("reads a refused body within the limit to its end, so a client still sending gets the 429 and its Retry-After, not a connection reset", async () => {
    // A trace waiting for the queue means 429 for these 1.8 MB requests, known before the body is
    // read; the client is still sending when the answer is ready.
    const c = await startTestCollector({ maxBufferBytes: 64 * 1024, maxTraceBytes: 64 * 1024 });
    await c.monitor.ready();
    // A complete trace waits for room in the scoring queue, which has none for its text: ingest is refused.
    const original = c.monitor.hasRoomFor.bind(c.monitor);
    vi.spyOn(c.monitor, "hasRoomFor").mockImplementation((routes, bytes) => (bytes === undefined ? original(routes, bytes) : false));
    expect((await postJson(`${c.url}/v1/traces`, complete(8))).status).toBe(200);
    expect(c.buffered()).toMatchObject({ waiting: 1 });
    const body = JSON.stringify(tracesJson(traceId(9), [retriever(["lorem ipsum dolor sit amet ".repeat(68_000)])]));
    expect(body.length).toBeGreaterThan(1_500_000);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        new Promise<{ status: number; headers: Record<string, unknown> }>((resolve, reject) => {
          const req = request(`${c.url}/v1/traces`, { method: "POST", headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) } }, (res) => {
            res.resume();
            res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
          });
          req.on("error", reject); // a reset while sending ("write EPIPE") fails the test here
          req.end(body);
        }),
      ),
    );
    for (const a of answers) {
      expect(a.status).toBe(429);
      expect(a.headers["retry-after"]).toBe("1");
      // The body was read to its end, so the connection stays usable.
      expect(a.headers.connection).not.toBe("close");
    }
    expect((await fetch(`${c.url}/healthz`)).status).toBe(200);
  });

  it.each(["/v1/traces", "/v1/logs", "/v1/observations"])("answers a Content-Length far over the limit on %s with 413 at once, without reading the body", async (path) => {
    const c = await startTestCollector();
    // Only the first bytes are sent: a server that waited for the 10 GB would never answer.
    const answer = await rawRequest(c.url, `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 10000000000\r\n\r\n`, '{"resourceSpans":');
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/connection: close/i);
    expect(answer).toContain("the body is larger than the limit of 2mb");
  });
});

describe("collector: hostile structure", () => {
  /** A length-delimited protobuf field. */
  const field = (n: number, bytes: Uint8Array): Buffer => {
    const varint = (x: number): number[] => (x < 0x80 ? [x] : [(x & 0x7f) | 0x80, ...varint(x >>> 7)]);
    return Buffer.concat([Buffer.from([...varint((n << 3) | 2), ...varint(bytes.length)]), bytes]);
  };
  /** An ExportTraceServiceRequest whose one attribute nests arrays `depth` deep, written on the wire by hand (encoders refuse to). */
  const deepProtobuf = (depth: number): Buffer => {
    let value = field(1, Buffer.from("leaf")); // AnyValue.string_value
    for (let i = 0; i < depth; i++) value = field(5, field(1, value)); // AnyValue.array_value { values }
    const span = Buffer.concat([field(1, Buffer.from(traceId(1), "hex")), field(2, Buffer.from(ROOT, "hex")), field(9, Buffer.concat([field(1, Buffer.from("x")), field(2, value)]))]);
    return field(1, field(2, field(2, span))); // resource_spans { scope_spans { spans } }
  };
  /** JSON text nested `depth` deep, built as text (JSON.stringify itself would overflow the stack). */
  const deepText = (depth: number): string => `${'{"arrayValue":{"values":['.repeat(depth)}{"stringValue":"leaf"}${"]}}".repeat(depth)}`;

  it("answers 400, not 500, to attribute values nested thousands deep (OTLP/JSON and protobuf), and to deep JSON observations", async () => {
    const c = await startTestCollector();
    const json = `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"${traceId(1)}","spanId":"${ROOT}","attributes":[{"key":"x","value":${deepText(20_000)}}]}]}]}]}`;
    const res = await postJson(`${c.url}/v1/traces`, json);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/nests arrays or kvlists more than 64 levels deep/);
    const logs = `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"traceId":"${traceId(1)}","body":${deepText(20_000)}}]}]}]}`;
    expect((await postJson(`${c.url}/v1/logs`, logs)).status).toBe(400);
    const protoRes = await postJson(`${c.url}/v1/traces`, deepProtobuf(20_000), { "content-type": "application/x-protobuf" });
    expect(protoRes.status).toBe(400);
    expect((await postJson(`${c.url}/v1/observations`, "[".repeat(100_000) + "]".repeat(100_000))).status).toBe(400);
    // Arrays nested where resource and scope entries belong: not OTLP, refused rather than read as empty.
    const nestedArrays = await postJson(`${c.url}/v1/traces`, `{"resourceSpans":${"[".repeat(5000)}${"]".repeat(5000)}}`, { "content-type": "application/json" });
    expect(nestedArrays.status).toBe(400);
    expect(((await nestedArrays.json()) as { error: string }).error).toMatch(/each entry of "resourceSpans" must be an object/);
    const nestedLogs = await postJson(`${c.url}/v1/logs`, `{"resourceLogs":[{"scopeLogs":${"[".repeat(5000)}${"]".repeat(5000)}}]}`, { "content-type": "application/json" });
    expect(nestedLogs.status).toBe(400);
    expect((await fetch(`${c.url}/healthz`)).status).toBe(200);
  });

  it("reads documents nested thousands deep in a retriever's output.value without failing", async () => {
    const c = await startTestCollector();
    const nested = `${'{"document":'.repeat(50_000)}{"content":"deep"}${"}".repeat(50_000)}`;
    const res = await postJson(`${c.url}/v1/traces`, tracesJson(traceId(1), [{ spanId: RETRIEVER, parentSpanId: ROOT, attributes: { "openinference.span.kind": "RETRIEVER", "output.value": `[${nested}]` } }, llm("x"), root()]));
    expect(res.status).toBe(200);
  });

  it("strips ANSI, control and bidi characters from the routes it derives and is given", async () => {
    const c = await startTestCollector();
    await postJson(`${c.url}/v1/traces`, tracesJson(traceId(1), [retriever([RETURNS_DOC]), llm("Thirty days."), { spanId: ROOT, attributes: { "http.route": "\u001b[2J\u001b[31m/ask\u202e\u0000" } }]));
    await postJson(`${c.url}/v1/observations`, { route: "/faq\u2066\u001b]8;;http://x\u0007", context: RETURNS_DOC, answer: "Thirty days." });
    await waitUntil("both to be scored", () => c.monitor.stats(), (s) => s.scored === 2);
    const text = await metrics(c);
    expect(text).toMatch(/groundwatch_collector_interactions_total\{[^}]*groundwatch_route="\/ask"/);
    expect(text).toMatch(/groundwatch_evaluations_total\{[^}]*groundwatch_route="\/faq"/);
    // eslint-disable-next-line no-control-regex
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202a-\u202e\u2066-\u2069]/);
  });
});

describe("collector: a large request does not hold the event loop", () => {
  it("answers /healthz while a 30,000-span request is still being decoded and joined", async () => {
    const c = await startTestCollector({ bodyLimit: "16mb", maxTraces: 100_000 });
    const codecs = createOtlpCodecs().load();
    const b64 = (hex: string): string => Buffer.from(hex, "hex").toString("base64");
    // 30,000 root spans of as many traces, none complete: they stay in the buffer.
    const spans = Array.from({ length: 30_000 }, (_, i) => ({ traceId: b64(traceId(i + 1)), spanId: b64(ROOT), name: "POST /ask", attributes: [{ key: "http.route", value: { stringValue: "/ask" } }] }));
    const body = Buffer.from(codecs.traceRequest.encode({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans }] }] } as never));
    let bigAnswered = false;
    const big = postJson(`${c.url}/v1/traces`, body, { "content-type": "application/x-protobuf" }).then(async (res) => {
      bigAnswered = true;
      return res.status;
    });
    // Once the first spans are in the buffer the request is being processed: ask for /healthz then.
    await waitUntil("the big request to start joining", () => c.buffered(), (b) => b.traces > 0);
    const health = await fetch(`${c.url}/healthz`);
    expect(health.status).toBe(200);
    expect(bigAnswered).toBe(false);
    expect(c.buffered().traces).toBeLessThan(30_000);
    expect(await big).toBe(200);
    expect(c.buffered().traces).toBe(30_000);
  });
});
