import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { OTLPLogExporter } from "@opentelemetry/exporter-logs-otlp-proto";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { LoggerProvider, SimpleLogRecordProcessor } from "@opentelemetry/sdk-logs";
import { BasicTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it, onTestFinished } from "vitest";
import { resolveCollectorOptions } from "../../src/collector/options.ts";
import { logsJson, tracesJson } from "./otlp-json.ts";
import type { RunningCollector } from "../../src/collector/server.ts";
import { RETURNS_DOC, postJson, startTestCollector } from "../helpers/collector.ts";
import { metric } from "../helpers/serve.ts";
import { waitUntil } from "../helpers/wait.ts";

const T = "0af7651916cd43dd8448eb211c80319c";
const LLM = "0000000000000003";

const metrics = async (c: RunningCollector): Promise<string> => (await fetch(`${c.url}/metrics`)).text();

describe("collector: OTLP logs (GenAI events) from the OTel JS exporter", () => {
  it("joins gen_ai.choice log records sent as protobuf with the spans of their trace, and scores them", async () => {
    const c = await startTestCollector();
    const resource = resourceFromAttributes({ "service.name": "node-rag" });
    const tracerProvider = new BasicTracerProvider({ resource, spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${c.url}/v1/traces` }))] });
    const loggerProvider = new LoggerProvider({ resource, processors: [new SimpleLogRecordProcessor({ exporter: new OTLPLogExporter({ url: `${c.url}/v1/logs` }) })] });
    onTestFinished(() => Promise.all([tracerProvider.shutdown(), loggerProvider.shutdown()]).then(() => undefined));
    const tracer = tracerProvider.getTracer("rag");
    const logger = loggerProvider.getLogger("@opentelemetry/instrumentation-openai");
    // Logs first: the chat span's events are emitted while it is open, before any span is exported.
    const root = tracer.startSpan("POST /ask", { attributes: { "http.route": "/ask" } });
    const ctx = trace.setSpan(ROOT_CONTEXT, root);
    tracer.startSpan("retrieval", { attributes: { "gen_ai.operation.name": "retrieval", "gen_ai.retrieval.documents": JSON.stringify([{ id: "1", content: RETURNS_DOC }]) } }, ctx).end();
    const chat = tracer.startSpan("chat gpt-4o-mini", { attributes: { "gen_ai.operation.name": "chat" } }, ctx);
    const chatCtx = trace.setSpan(ctx, chat);
    logger.emit({ eventName: "gen_ai.user.message", body: { content: "How long do I have to return an item?" }, context: chatCtx, attributes: { "gen_ai.system": "openai" } });
    logger.emit({ eventName: "gen_ai.choice", body: { index: 0, finish_reason: "stop", message: { role: "assistant", content: "Unopened items can be returned within 30 days of delivery." } }, context: chatCtx });
    await loggerProvider.forceFlush();
    chat.end();
    root.end();
    await tracerProvider.forceFlush();
    await waitUntil("one scored interaction", () => c.monitor.stats(), (s) => s.scored === 1);
    const text = await metrics(c);
    expect(text).toMatch(/groundwatch_evaluations_total\{[^}]*groundwatch_route="\/ask"[^}]*groundwatch_verdict="grounded"[^}]*\} 1/);
    expect(text).toMatch(/groundwatch_collector_interactions_total\{[^}]*groundwatch_route="\/ask"[^}]*groundwatch_convention="genai"[^}]*\} 1/);
  });
});

describe("collector: every trace not scored is on /metrics with its reason", () => {
  it("counts duplicated events, late records, logs without spans and prompts that promptContext could read", async () => {
    const c = await startTestCollector({ traceTimeoutMs: 100 });
    const choice = { spanId: LLM, eventName: "gen_ai.choice", body: { index: 0, message: { content: "Thirty days." } } };
    // Logs before spans, a duplicated event, then the spans: scored once.
    expect((await postJson(`${c.url}/v1/logs`, logsJson(T, [choice, choice]))).status).toBe(200);
    await postJson(`${c.url}/v1/traces`, tracesJson(T, [{ spanId: "0000000000000002", parentSpanId: "0000000000000001", attributes: { "retrieval.documents.0.document.content": RETURNS_DOC } }, { spanId: "0000000000000001", attributes: { "http.route": "/ask" } }]));
    // A late record for the settled trace.
    await postJson(`${c.url}/v1/logs`, logsJson(T, [{ ...choice, body: { index: 0, message: { content: "Later." } } }]));
    // A log whose trace never sends spans.
    await postJson(`${c.url}/v1/logs`, logsJson("1af7651916cd43dd8448eb211c80319c", [{ spanId: LLM, eventName: "gen_ai.user.message", body: { content: "Hello?" } }]));
    // An answer whose documents are only in the system message (promptContext is off).
    await postJson(`${c.url}/v1/logs`, logsJson("2af7651916cd43dd8448eb211c80319c", [{ spanId: LLM, eventName: "gen_ai.system.message", body: { content: RETURNS_DOC } }, choice], "chat-svc"));
    await waitUntil("the timeout to settle the log-only traces", () => metrics(c), (text) => /groundwatch_collector_incomplete_total\{[^}]*no_documents_prompt_available/.test(text));
    const text = await metrics(c);
    const reason = (route: string, r: string, n: number) => new RegExp(`groundwatch_collector_incomplete_total\\{[^}]*groundwatch_route="${route.replace(/\//g, "\\/")}"[^}]*groundwatch_reason="${r}"[^}]*\\} ${n}\\b|groundwatch_collector_incomplete_total\\{[^}]*groundwatch_reason="${r}"[^}]*groundwatch_route="${route.replace(/\//g, "\\/")}"[^}]*\\} ${n}\\b`);
    expect(text).toMatch(reason("svc", "duplicate_event", 1));
    expect(text).toMatch(reason("/ask", "late", 1));
    expect(text).toMatch(reason("svc", "no_answer", 1));
    expect(text).toMatch(reason("chat-svc", "no_documents_prompt_available", 1));
    expect(text).toMatch(/groundwatch_collector_interactions_total\{[^}]*groundwatch_convention="mixed"[^}]*\} 1/);
    expect(c.incompleteStats()).toEqual({ duplicate_event: 1, late: 1, no_answer: 1, no_documents_prompt_available: 1 });
  });

  it("scores the system message as the context with promptContext system (captured GenAI payload)", async () => {
    const fixture = JSON.parse(readFileSync(new URL("../fixtures/instrumentations/genai-openai-chat.json", import.meta.url), "utf8")) as { traces: unknown[]; logs: unknown[] };
    const c = await startTestCollector({ promptContext: "system" });
    for (const t of fixture.traces) expect((await postJson(`${c.url}/v1/traces`, t as object)).status).toBe(200);
    for (const l of fixture.logs) expect((await postJson(`${c.url}/v1/logs`, gzipSync(JSON.stringify(l)), { "content-type": "application/json", "content-encoding": "gzip" })).status).toBe(200);
    await waitUntil("four scored interactions", () => c.monitor.stats(), (s) => s.scored === 4);
    expect(await metrics(c)).toMatch(/groundwatch_collector_interactions_total\{[^}]*groundwatch_convention="prompt"[^}]*\} 4/);
  });
});

describe("collector: /v1/logs bad input", () => {
  it.each([
    ["malformed protobuf", Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x01]), { "content-type": "application/x-protobuf" }, 400, /not a valid OTLP protobuf ExportLogsServiceRequest/],
    ["malformed JSON", "{nope", { "content-type": "application/json" }, 400, /not valid JSON/],
    ["the wrong shape", JSON.stringify({ resourceLogs: 5 }), { "content-type": "application/json" }, 400, /"resourceLogs" must be an array/],
    ["an unsupported content type", "x", { "content-type": "text/plain" }, 415, /unsupported content-type/],
    ["a body over the limit", JSON.stringify({ resourceLogs: [], pad: "x".repeat(3_000_000) }), { "content-type": "application/json" }, 413, /larger than the limit of 2mb/],
  ])("%s gets a clear 4xx", async (_name, body, headers, status, message) => {
    const c = await startTestCollector();
    const res = await postJson(`${c.url}/v1/logs`, body, headers);
    expect(res.status).toBe(status);
    expect(((await res.json()) as { error: string }).error).toMatch(message);
    expect((await fetch(`${c.url}/healthz`)).status).toBe(200);
  });

  it("requires the bearer token", async () => {
    const c = await startTestCollector({ token: "s3cret-of-16-chars!" });
    expect((await postJson(`${c.url}/v1/logs`, logsJson(T, []))).status).toBe(401);
    expect((await postJson(`${c.url}/v1/logs`, logsJson(T, []), { "content-type": "application/json", authorization: "Bearer s3cret-of-16-chars!" })).status).toBe(200);
  });

  it("answers partial success for records without a trace id, and counts them", async () => {
    const c = await startTestCollector();
    const res = await postJson(`${c.url}/v1/logs`, logsJson(T, [{ eventName: "gen_ai.choice", traceId: "" }, { spanId: LLM, eventName: "gen_ai.choice", body: { message: { content: "x" } } }]));
    expect(await res.json()).toEqual({ partialSuccess: { rejectedLogRecords: 1, errorMessage: expect.stringContaining('log record "gen_ai.choice" has no valid traceId') } });
    expect(c.incompleteStats()).toMatchObject({ invalid_id: 1 });
    expect(await metrics(c)).toMatch(/groundwatch_collector_incomplete_total\{[^}]*groundwatch_reason="invalid_id"[^}]*\} 1/);
  });
});

describe("collector options: promptContext", () => {
  it("defaults to off, and reads the option, GROUNDWATCH_PROMPT_CONTEXT and the config file", () => {
    expect(resolveCollectorOptions({ env: {} }).promptContext).toEqual({ mode: "off" });
    expect(resolveCollectorOptions({ env: { GROUNDWATCH_PROMPT_CONTEXT: "system" } }).promptContext).toEqual({ mode: "system" });
    const dir = mkdtempSync(join(tmpdir(), "gw-collector-"));
    const file = join(dir, "groundwatch.json");
    writeFileSync(file, JSON.stringify({ collector: { promptContext: "Docs:(?<context>.*)" } }));
    const fromFile = resolveCollectorOptions({ env: {}, configFile: file }).promptContext;
    expect(fromFile.mode === "regex" && fromFile.pattern.source).toBe("Docs:(?<context>.*)");
    expect(resolveCollectorOptions({ env: {}, configFile: file, promptContext: "off" }).promptContext).toEqual({ mode: "off" });
  });

  it.each([
    [{ promptContext: "Docs:(.*)" }, /invalid promptContext: .*named group/],
    [{ promptContext: "(?<context>" }, /invalid promptContext: .*valid regular expression/],
    [{ env: { GROUNDWATCH_PROMPT_CONTEXT: "[" } }, /invalid GROUNDWATCH_PROMPT_CONTEXT \(promptContext\)/],
  ])("refuses %j with a ConfigError naming promptContext", (options, message) => {
    expect(() => resolveCollectorOptions({ env: {}, ...options })).toThrow(message);
  });
});

describe("collector: log records taken in, by convention", () => {
  const byConvention = async (c: RunningCollector): Promise<Record<string, number>> => {
    const text = await metrics(c);
    return Object.fromEntries(["genai", "mapping", "other"].map((k) => [k, metric(text, "groundwatch_collector_log_records_total", `groundwatch_convention="${k}"`)]));
  };

  it("shows every convention at 0 before any log record arrives, so a GenAI service whose events never come reads as genai 0", async () => {
    const c = await startTestCollector();
    // Spans of a GenAI chat without its content events: the trace is no_answer, and no log record was counted.
    await postJson(`${c.url}/v1/traces`, tracesJson(T, [{ spanId: LLM, parentSpanId: "0000000000000001", attributes: { "gen_ai.operation.name": "chat" } }, { spanId: "0000000000000001", attributes: { "http.route": "/ask" } }]));
    const text = await metrics(c);
    for (const k of ["genai", "mapping", "other"]) expect(text).toMatch(new RegExp(`groundwatch_collector_log_records_total\\{[^}]*groundwatch_convention="${k}"[^}]*\\} 0\\b`));
  });

  it("counts GenAI events (event name in the field or the event.name attribute), mapped records and other records, each once, groundwatch's own evaluation events aside", async () => {
    const c = await startTestCollector({ attributeMapping: { answer: ["app.answer"] } });
    const genai = [
      { spanId: LLM, eventName: "gen_ai.system.message", body: { content: RETURNS_DOC } },
      { spanId: LLM, eventName: "gen_ai.user.message", body: { content: "How long do I have to return an item?" } },
      { spanId: LLM, eventName: "gen_ai.choice", body: { index: 0, message: { content: "Thirty days." } } },
    ];
    expect((await postJson(`${c.url}/v1/logs`, logsJson(T, genai))).status).toBe(200);
    const details = { spanId: LLM, eventName: "gen_ai.client.inference.operation.details", attributes: { "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: "Thirty days." }] }]) } };
    expect((await postJson(`${c.url}/v1/logs`, logsJson("1af7651916cd43dd8448eb211c80319c", [details], "svc", true))).status).toBe(200);
    const mapped = { spanId: LLM, attributes: { "app.answer": "Thirty days." } };
    const appLog = { spanId: LLM, eventName: "app.request.done", body: "handled /ask" };
    const own = { spanId: LLM, eventName: "gen_ai.evaluation.result", attributes: { "groundwatch.route": "/ask", "gen_ai.evaluation.name": "groundedness" } };
    expect((await postJson(`${c.url}/v1/logs`, logsJson("2af7651916cd43dd8448eb211c80319c", [mapped, appLog, { ...appLog, body: "handled /ask again" }, own]))).status).toBe(200);
    expect(await byConvention(c)).toEqual({ genai: 4, mapping: 1, other: 2 });
    expect(c.incompleteStats()).toMatchObject({ already_evaluated: 1 });
  });
});
