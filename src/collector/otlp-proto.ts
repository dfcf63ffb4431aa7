import { isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";

/**
 * The vendored opentelemetry-proto files (see proto/README.md). This module sits two levels under the
 * package root both in src/ and in a compiled dist/, so the same relative URL finds them in either.
 */
export const OTLP_PROTO_DIR: string = fileURLToPath(new URL("../../proto/", import.meta.url));

/** The service files loaded; their imports pull in trace, metrics, logs, common and resource. */
const SERVICE_FILES: readonly string[] = [
  "opentelemetry/proto/collector/trace/v1/trace_service.proto",
  "opentelemetry/proto/collector/metrics/v1/metrics_service.proto",
  "opentelemetry/proto/collector/logs/v1/logs_service.proto",
];

/**
 * How decoded messages become plain objects: 64-bit integers as decimal strings, bytes (ids) as
 * base64 strings, enums as numbers, fields absent on the wire left out, repeated fields always arrays.
 */
export const OTLP_TO_OBJECT_OPTIONS: Readonly<protobuf.IConversionOptions> = Object.freeze({ longs: String, bytes: String, enums: Number, defaults: false, arrays: true });

/** An OTLP AnyValue after decoding: at most one of the value fields is set. */
export interface OtlpAnyValue {
  readonly stringValue?: string;
  readonly boolValue?: boolean;
  /** int64, as a decimal string. */
  readonly intValue?: string;
  readonly doubleValue?: number;
  readonly arrayValue?: { readonly values: OtlpAnyValue[] };
  readonly kvlistValue?: { readonly values: OtlpKeyValue[] };
  /** base64. */
  readonly bytesValue?: string;
}

/** An OTLP attribute. */
export interface OtlpKeyValue {
  readonly key?: string;
  readonly value?: OtlpAnyValue;
}

/** An OTLP Resource after decoding. */
export interface OtlpResource {
  readonly attributes: OtlpKeyValue[];
  readonly droppedAttributesCount?: number;
}

/** An OTLP InstrumentationScope after decoding. */
export interface OtlpScope {
  readonly name?: string;
  readonly version?: string;
}

/** An OTLP Span after decoding (ids base64, times as decimal strings of nanoseconds, kind and status code numeric). */
export interface OtlpSpanMessage {
  readonly traceId?: string;
  readonly spanId?: string;
  readonly traceState?: string;
  readonly parentSpanId?: string;
  readonly name?: string;
  readonly kind?: number;
  readonly startTimeUnixNano?: string;
  readonly endTimeUnixNano?: string;
  readonly attributes: OtlpKeyValue[];
  readonly droppedAttributesCount?: number;
  readonly events: Array<{ readonly timeUnixNano?: string; readonly name?: string; readonly attributes: OtlpKeyValue[] }>;
  readonly links: Array<{ readonly traceId?: string; readonly spanId?: string; readonly traceState?: string; readonly attributes: OtlpKeyValue[] }>;
  readonly status?: { readonly message?: string; readonly code?: number };
}

/** opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest after decoding. */
export interface ExportTraceServiceRequest {
  readonly resourceSpans: Array<{
    readonly resource?: OtlpResource;
    readonly scopeSpans: Array<{ readonly scope?: OtlpScope; readonly spans: OtlpSpanMessage[]; readonly schemaUrl?: string }>;
    readonly schemaUrl?: string;
  }>;
}

/** opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse; empty on full success. */
export interface ExportTraceServiceResponse {
  readonly partialSuccess?: { readonly rejectedSpans?: number | string; readonly errorMessage?: string };
}

/** An OTLP LogRecord after decoding. */
export interface OtlpLogRecord {
  readonly timeUnixNano?: string;
  readonly observedTimeUnixNano?: string;
  readonly severityNumber?: number;
  readonly severityText?: string;
  readonly body?: OtlpAnyValue;
  readonly attributes: OtlpKeyValue[];
  readonly droppedAttributesCount?: number;
  readonly flags?: number;
  readonly traceId?: string;
  readonly spanId?: string;
  readonly eventName?: string;
}

/** opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest after decoding. */
export interface ExportLogsServiceRequest {
  readonly resourceLogs: Array<{
    readonly resource?: OtlpResource;
    readonly scopeLogs: Array<{ readonly scope?: OtlpScope; readonly logRecords: OtlpLogRecord[]; readonly schemaUrl?: string }>;
    readonly schemaUrl?: string;
  }>;
}

/** opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse; empty on full success. */
export interface ExportLogsServiceResponse {
  readonly partialSuccess?: { readonly rejectedLogRecords?: number | string; readonly errorMessage?: string };
}

/** A metric data point after decoding: number points carry asDouble/asInt, histogram points count/sum/buckets. */
export interface OtlpDataPoint {
  readonly attributes: OtlpKeyValue[];
  readonly startTimeUnixNano?: string;
  readonly timeUnixNano?: string;
  readonly asDouble?: number;
  /** sfixed64, as a decimal string. */
  readonly asInt?: string;
  /** fixed64, as a decimal string. */
  readonly count?: string;
  readonly sum?: number;
  readonly bucketCounts?: string[];
  readonly explicitBounds?: number[];
  readonly min?: number;
  readonly max?: number;
  readonly flags?: number;
}

/** An OTLP Metric after decoding; one of gauge, sum, histogram, exponentialHistogram or summary is set. */
export interface OtlpMetric {
  readonly name?: string;
  readonly description?: string;
  readonly unit?: string;
  readonly gauge?: { readonly dataPoints: OtlpDataPoint[] };
  readonly sum?: { readonly dataPoints: OtlpDataPoint[]; readonly aggregationTemporality?: number; readonly isMonotonic?: boolean };
  readonly histogram?: { readonly dataPoints: OtlpDataPoint[]; readonly aggregationTemporality?: number };
  readonly exponentialHistogram?: { readonly dataPoints: OtlpDataPoint[]; readonly aggregationTemporality?: number };
  readonly summary?: { readonly dataPoints: OtlpDataPoint[] };
}

/** opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest after decoding. */
export interface ExportMetricsServiceRequest {
  readonly resourceMetrics: Array<{
    readonly resource?: OtlpResource;
    readonly scopeMetrics: Array<{ readonly scope?: OtlpScope; readonly metrics: OtlpMetric[]; readonly schemaUrl?: string }>;
    readonly schemaUrl?: string;
  }>;
}

/** opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse; empty on full success. */
export interface ExportMetricsServiceResponse {
  readonly partialSuccess?: { readonly rejectedDataPoints?: number | string; readonly errorMessage?: string };
}

/** Binary protobuf to and from the plain-object form of one OTLP message. */
export interface OtlpMessageCodec<T> {
  /** Decodes protobuf bytes into a plain object (see {@link OTLP_TO_OBJECT_OPTIONS}); throws on a malformed buffer. */
  decode(bytes: Uint8Array): T;
  /** Encodes a plain object (converted with the schema's fromObject) into protobuf bytes. */
  encode(message: T): Uint8Array;
}

/** The OTLP/HTTP export messages of the three signals, and the elements a request is read in one by one (see {@link exportRecords}). */
export interface OtlpMessageCodecs {
  readonly resource: OtlpMessageCodec<OtlpResource>;
  readonly span: OtlpMessageCodec<OtlpSpanMessage>;
  readonly logRecord: OtlpMessageCodec<OtlpLogRecord>;
  readonly traceRequest: OtlpMessageCodec<ExportTraceServiceRequest>;
  readonly traceResponse: OtlpMessageCodec<ExportTraceServiceResponse>;
  readonly metricsRequest: OtlpMessageCodec<ExportMetricsServiceRequest>;
  readonly metricsResponse: OtlpMessageCodec<ExportMetricsServiceResponse>;
  readonly logsRequest: OtlpMessageCodec<ExportLogsServiceRequest>;
  readonly logsResponse: OtlpMessageCodec<ExportLogsServiceResponse>;
}

/** A lazily loaded set of OTLP codecs. */
export interface OtlpCodecs {
  /**
   * The message codecs. The .proto files are parsed on the first call and the result kept for the
   * life of this object; a missing or unreadable proto directory throws here (a deployment error,
   * not a bad request).
   */
  load(): OtlpMessageCodecs;
}

/**
 * Fields newer than the vendored v0.18.0 schema that groundwatch reads or writes, declared with their
 * upstream opentelemetry-proto names and numbers (field numbers are never reused, so they are the same
 * on every release that has them). Everything else newer (Span.flags, scope attributes, ...) is simply
 * skipped on decode as an unknown field.
 */
function addNewerFields(root: protobuf.Root): void {
  // Partial success in the export responses: opentelemetry-proto v0.19.0.
  const partials: ReadonlyArray<readonly [string, string, string]> = [
    ["opentelemetry.proto.collector.trace.v1", "ExportTrace", "rejectedSpans"],
    ["opentelemetry.proto.collector.metrics.v1", "ExportMetrics", "rejectedDataPoints"],
    ["opentelemetry.proto.collector.logs.v1", "ExportLogs", "rejectedLogRecords"],
  ];
  for (const [pkg, prefix, rejected] of partials) {
    const response = root.lookupType(`${pkg}.${prefix}ServiceResponse`);
    if (response.fields.partialSuccess) continue;
    const partial = new protobuf.Type(`${prefix}PartialSuccess`).add(new protobuf.Field(rejected, 1, "int64")).add(new protobuf.Field("errorMessage", 2, "string"));
    response.parent?.add(partial);
    response.add(new protobuf.Field("partialSuccess", 1, `${prefix}PartialSuccess`));
  }
  // LogRecord.event_name: opentelemetry-proto v1.5.0.
  const logRecord = root.lookupType("opentelemetry.proto.logs.v1.LogRecord");
  if (!logRecord.fields.eventName) logRecord.add(new protobuf.Field("eventName", 12, "string"));
}

function codecOf<T>(type: protobuf.Type): OtlpMessageCodec<T> {
  return {
    decode: (bytes) => type.toObject(type.decode(bytes), OTLP_TO_OBJECT_OPTIONS) as T,
    encode: (message) => type.encode(type.fromObject(message as Record<string, unknown>)).finish(),
  };
}

function loadCodecs(protoDir: string): OtlpMessageCodecs {
  const root = new protobuf.Root();
  // Imports name files relative to the proto root ("opentelemetry/proto/common/v1/common.proto").
  root.resolvePath = (_origin, target) => (isAbsolute(target) ? target : join(protoDir, target));
  root.loadSync([...SERVICE_FILES], { keepCase: false });
  addNewerFields(root);
  root.resolveAll();
  const type = (name: string): protobuf.Type => root.lookupType(`opentelemetry.proto.collector.${name}`);
  return {
    resource: codecOf(root.lookupType("opentelemetry.proto.resource.v1.Resource")),
    span: codecOf(root.lookupType("opentelemetry.proto.trace.v1.Span")),
    logRecord: codecOf(root.lookupType("opentelemetry.proto.logs.v1.LogRecord")),
    traceRequest: codecOf(type("trace.v1.ExportTraceServiceRequest")),
    traceResponse: codecOf(type("trace.v1.ExportTraceServiceResponse")),
    metricsRequest: codecOf(type("metrics.v1.ExportMetricsServiceRequest")),
    metricsResponse: codecOf(type("metrics.v1.ExportMetricsServiceResponse")),
    logsRequest: codecOf(type("logs.v1.ExportLogsServiceRequest")),
    logsResponse: codecOf(type("logs.v1.ExportLogsServiceResponse")),
  };
}

/**
 * OTLP protobuf codecs built from the vendored opentelemetry-proto files with protobufjs. Nothing is
 * read until {@link OtlpCodecs.load} is first called; create one per collector (or test receiver).
 */
export function createOtlpCodecs(protoDir: string = OTLP_PROTO_DIR): OtlpCodecs {
  let loaded: OtlpMessageCodecs | undefined;
  return {
    load() {
      loaded ??= loadCodecs(protoDir);
      return loaded;
    },
  };
}

/** The fields of one protobuf message, in wire order: number and, for length-delimited ones, the bytes (others are skipped). */
function* wireFields(bytes: Uint8Array): Generator<readonly [number, Uint8Array | undefined]> {
  const reader = protobuf.Reader.create(bytes);
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    const wireType = tag & 7;
    if (wireType === 2) {
      yield [tag >>> 3, reader.bytes()];
    } else {
      reader.skipType(wireType);
      yield [tag >>> 3, undefined];
    }
  }
}

/** One record of an export request, undecoded, with the undecoded Resource of its group (undefined when the group has none). */
export interface ExportRecord {
  readonly resource: Uint8Array | undefined;
  readonly record: Uint8Array;
}

/**
 * The records of an OTLP export request (ExportTraceServiceRequest: spans; ExportLogsServiceRequest:
 * log records), read from the wire one at a time, so a caller can decode and pause between them. Both
 * requests have the same shape: field 1 repeats a group (ResourceSpans, ResourceLogs) whose field 1 is
 * the Resource and field 2 repeats a scope group (ScopeSpans, ScopeLogs) whose field 2 repeats the
 * records. Throws protobufjs' RangeError on a malformed buffer.
 */
export function* exportRecords(bytes: Uint8Array): Generator<ExportRecord> {
  for (const [field, group] of wireFields(bytes)) {
    if (field !== 1 || !group) continue;
    // Fields may come in any order: find the group's Resource first (the last one wins, as in a merge).
    let resource: Uint8Array | undefined;
    for (const [f, v] of wireFields(group)) if (f === 1 && v) resource = v;
    for (const [f, scope] of wireFields(group)) {
      if (f !== 2 || !scope) continue;
      for (const [g, record] of wireFields(scope)) if (g === 2 && record) yield { resource, record };
    }
  }
}
