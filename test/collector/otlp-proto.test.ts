import { fileURLToPath } from "node:url";
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { ProtobufLogsSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from "@opentelemetry/sdk-logs";
import type { IdGenerator } from "@opentelemetry/sdk-trace-base";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it, onTestFinished } from "vitest";
import { createOtlpCodecs } from "../../src/collector/otlp-proto.ts";
import { OtlpDecodeError, decodeProtobuf, decodeSpansPausing, encodeResponse } from "../../src/collector/otlp.ts";

const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const PARENT_ID = "b7ad6b7169203331";
const CHILD_ID = "00f067aa0ba902b7";

/** Fixed ids, so the decoded ids can be compared with literal hex. */
function fixedIds(): IdGenerator {
  const spanIds = [PARENT_ID, CHILD_ID];
  return {
    generateTraceId: () => TRACE_ID,
    generateSpanId: () => spanIds.shift() ?? "ffffffffffffffff",
  };
}

/** Two real SDK spans (a parent and its child) serialised by the OTLP exporter's own protobuf serializer. */
function exportedRequest(): { body: Uint8Array; startNanos: string } {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    idGenerator: fixedIds(),
    resource: resourceFromAttributes({ "service.name": "rag-api", "service.version": "1.4.2", "host.cpus": 8 }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  onTestFinished(() => provider.shutdown());
  const tracer = provider.getTracer("otlp-proto-test");
  const parent = tracer.startSpan("POST /answer", { kind: SpanKind.SERVER, attributes: { "http.request.method": "POST" } });
  const child = tracer.startSpan(
    "chat gpt-4o",
    {
      kind: SpanKind.CLIENT,
      attributes: {
        "gen_ai.operation.name": "chat",
        "gen_ai.usage.input_tokens": 1234,
        "big.int": 2 ** 40,
        "gen_ai.request.temperature": 0.25,
        "gen_ai.response.cached": true,
        "gen_ai.response.finish_reasons": ["stop", "length"],
        "retrieval.scores": [1, 2, 3],
      },
    },
    trace.setSpan(ROOT_CONTEXT, parent),
  );
  child.setStatus({ code: SpanStatusCode.ERROR, message: "upstream timeout" });
  child.end();
  parent.end();
  const spans = exporter.getFinishedSpans();
  const body = ProtobufTraceSerializer.serializeRequest(spans);
  if (!body) throw new Error("the serializer produced no request");
  const [seconds, nanos] = spans.find((s) => s.name === "chat gpt-4o")?.startTime ?? [0, 0];
  return { body, startNanos: String(BigInt(seconds) * 1_000_000_000n + BigInt(nanos)) };
}

describe("OTLP protobuf codecs (vendored opentelemetry-proto + protobufjs)", () => {
  it("decodes spans from the real OTLP serializer: ids, parent, names, attributes and resource", () => {
    const decoded = decodeProtobuf(exportedRequest().body, createOtlpCodecs());
    expect(decoded.rejected).toBe(0);
    expect(decoded.errors).toEqual([]);
    expect(decoded.spans).toHaveLength(2);
    const child = decoded.spans.find((s) => s.name === "chat gpt-4o");
    const parent = decoded.spans.find((s) => s.name === "POST /answer");
    expect(child).toEqual({
      traceId: TRACE_ID,
      spanId: CHILD_ID,
      parentSpanId: PARENT_ID,
      name: "chat gpt-4o",
      attributes: {
        "gen_ai.operation.name": "chat",
        "gen_ai.usage.input_tokens": 1234,
        "big.int": 1_099_511_627_776,
        "gen_ai.request.temperature": 0.25,
        "gen_ai.response.cached": true,
        "gen_ai.response.finish_reasons": ["stop", "length"],
        "retrieval.scores": [1, 2, 3],
      },
      resource: { "service.name": "rag-api", "service.version": "1.4.2", "host.cpus": 8 },
    });
    expect(parent).toEqual({
      traceId: TRACE_ID,
      spanId: PARENT_ID,
      parentSpanId: "",
      name: "POST /answer",
      attributes: { "http.request.method": "POST" },
      resource: { "service.name": "rag-api", "service.version": "1.4.2", "host.cpus": 8 },
    });
  });

  it("keeps the raw toObject form: ids base64, 64-bit integers as exact decimal strings, enums as numbers", () => {
    const { body, startNanos } = exportedRequest();
    const request = createOtlpCodecs().load().traceRequest.decode(body);
    const spans = request.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans));
    const child = spans.find((s) => s.name === "chat gpt-4o");
    expect(child?.traceId).toBe(Buffer.from(TRACE_ID, "hex").toString("base64"));
    expect(child?.parentSpanId).toBe(Buffer.from(PARENT_ID, "hex").toString("base64"));
    expect(child?.startTimeUnixNano).toBe(startNanos);
    expect(child?.kind).toBe(3); // SPAN_KIND_CLIENT
    expect(child?.status).toEqual({ code: 2, message: "upstream timeout" }); // STATUS_CODE_ERROR
    expect(child?.attributes.find((kv) => kv.key === "big.int")?.value).toEqual({ intValue: "1099511627776" });
    expect(request.resourceSpans[0]?.scopeSpans[0]?.scope?.name).toBe("otlp-proto-test");
  });

  it("answers a malformed body with the same OtlpDecodeError as before", () => {
    const malformed = Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x01]);
    expect(() => decodeProtobuf(malformed, createOtlpCodecs())).toThrow(OtlpDecodeError);
    expect(() => decodeProtobuf(malformed, createOtlpCodecs())).toThrow(/^the body is not a valid OTLP protobuf ExportTraceServiceRequest \(index out of range/);
  });

  it("encodes partial success in the response so the OTLP exporter reads it back", () => {
    expect(encodeResponse(0, "", false, createOtlpCodecs())).toHaveLength(0);
    const response = encodeResponse(2, "span \"x\" has an invalid traceId or spanId", false, createOtlpCodecs());
    expect(response).toBeInstanceOf(Buffer);
    expect(ProtobufTraceSerializer.deserializeResponse(response as Buffer)).toEqual({ partialSuccess: { rejectedSpans: 2, errorMessage: "span \"x\" has an invalid traceId or spanId" } });
  });

  it("decodes log records, event_name included", async () => {
    const exporter = new InMemoryLogRecordExporter();
    const provider = new LoggerProvider({ resource: resourceFromAttributes({ "service.name": "groundwatch" }), processors: [new SimpleLogRecordProcessor({ exporter })] });
    onTestFinished(() => provider.shutdown());
    provider.getLogger("otlp-proto-test").emit({ eventName: "gen_ai.evaluation.result", attributes: { "gen_ai.evaluation.name": "groundedness", "gen_ai.evaluation.score.value": 0.75 } });
    await provider.forceFlush();
    const body = ProtobufLogsSerializer.serializeRequest(exporter.getFinishedLogRecords());
    if (!body) throw new Error("the serializer produced no request");
    const request = createOtlpCodecs().load().logsRequest.decode(body);
    const record = request.resourceLogs[0]?.scopeLogs[0]?.logRecords[0];
    expect(record?.eventName).toBe("gen_ai.evaluation.result");
    expect(record?.attributes).toEqual([
      { key: "gen_ai.evaluation.name", value: { stringValue: "groundedness" } },
      { key: "gen_ai.evaluation.score.value", value: { doubleValue: 0.75 } },
    ]);
  });

  it("reads the .proto files only on the first load, and reports a missing directory there", () => {
    // This test's own directory holds no opentelemetry/proto tree.
    const codecs = createOtlpCodecs(fileURLToPath(new URL("./", import.meta.url)));
    expect(() => codecs.load()).toThrow(/ENOENT|no such file/);
    const real = createOtlpCodecs();
    expect(real.load()).toBe(real.load());
  });
});

describe("OTLP protobuf requests read one record at a time", () => {
  const b64 = (hex: string): string => Buffer.from(hex, "hex").toString("base64");
  const span = (i: number): object => ({ traceId: b64(TRACE_ID), spanId: b64(i.toString(16).padStart(16, "0")), name: `s${i}`, attributes: [{ key: "i", value: { intValue: String(i) } }] });

  it("gives each span the Resource of its group, wherever the Resource is on the wire", () => {
    const codecs = createOtlpCodecs();
    const c = codecs.load();
    const field = (n: number, bytes: Uint8Array): Buffer => {
      const varint = (x: number): number[] => (x < 0x80 ? [x] : [(x & 0x7f) | 0x80, ...varint(x >>> 7)]);
      return Buffer.concat([Buffer.from([...varint((n << 3) | 2), ...varint(bytes.length)]), bytes]);
    };
    const resource = (service: string): Uint8Array => c.resource.encode({ attributes: [{ key: "service.name", value: { stringValue: service } }] });
    const scope = (...ids: number[]): Buffer => field(2, Buffer.concat(ids.map((i) => field(2, c.span.encode(span(i) as never)))));
    // Two ResourceSpans; the second has its scope_spans before its resource (legal protobuf).
    const body = Buffer.concat([field(1, Buffer.concat([field(1, resource("a")), scope(1, 2)])), field(1, Buffer.concat([scope(3), field(1, resource("b"))]))]);
    const decoded = decodeProtobuf(body, codecs);
    expect(decoded.spans.map((s) => [s.name, s.resource["service.name"], s.attributes.i])).toEqual([["s1", "a", 1], ["s2", "a", 2], ["s3", "b", 3]]);
    // The same request decoded whole by protobufjs agrees.
    const whole = c.traceRequest.decode(body).resourceSpans.map((rs) => rs.scopeSpans.flatMap((ss) => ss.spans.map((sp) => sp.name)));
    expect(whole).toEqual([["s1", "s2"], ["s3"]]);
  });

  it("pauses every few hundred spans, and decodes the same as all at once", async () => {
    const codecs = createOtlpCodecs();
    const body = Buffer.from(codecs.load().traceRequest.encode({ resourceSpans: [{ scopeSpans: [{ spans: Array.from({ length: 1200 }, (_, i) => span(i + 1)) }] }] } as never));
    let pauses = 0;
    const paused = await decodeSpansPausing(body, false, codecs, async () => void pauses++);
    expect(pauses).toBe(2);
    expect(paused).toEqual(decodeProtobuf(body, codecs));
    expect(paused.spans).toHaveLength(1200);
  });
});
