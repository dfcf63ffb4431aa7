import type { OtlpCodecs } from "./otlp-proto.ts";

/** One span event (name and attributes), normalised from OTLP protobuf or JSON. */
export interface OtlpSpanEvent {
  readonly name: string;
  readonly attributes: Readonly<Record<string, unknown>>;
}

/** One span, normalised from OTLP protobuf or JSON. */
export interface OtlpSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly attributes: Readonly<Record<string, unknown>>;
  /** Resource attributes of the span's service. */
  readonly resource: Readonly<Record<string, unknown>>;
  /** The span's events (e.g. Traceloop `db.query.result`); absent when the span has none. */
  readonly events?: readonly OtlpSpanEvent[];
}

/** One log record (an OTLP event such as `gen_ai.choice`), normalised from OTLP protobuf or JSON. */
export interface OtlpLog {
  readonly traceId: string;
  /** The span the record was emitted in; "" when the record names none. */
  readonly spanId: string;
  /** The LogRecord `eventName` field (OTLP field 12), else the `event.name` attribute; "" when neither. */
  readonly eventName: string;
  /** The body as a plain value: strings, numbers, arrays, and objects for kvlists. */
  readonly body: unknown;
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly resource: Readonly<Record<string, unknown>>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean; arrayValue?: { values?: AnyValue[] }; kvlistValue?: { values?: KeyValue[] }; bytesValue?: string };
type KeyValue = { key?: string; value?: AnyValue };

function valueOf(v: AnyValue | undefined): unknown {
  if (!v) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(valueOf);
  if (v.kvlistValue) return attributesOf(v.kvlistValue.values);
  if (v.bytesValue !== undefined) return v.bytesValue;
  return undefined;
}

/** OTLP attributes (protobuf toObject or OTLP/JSON) as a plain record: ints as numbers, arrays as arrays, kvlists as objects. */
export function attributesOf(list: unknown): Record<string, unknown> {
  if (!Array.isArray(list)) return {};
  const out: Record<string, unknown> = {};
  for (const kv of list as KeyValue[]) if (kv && typeof kv.key === "string") out[kv.key] = valueOf(kv.value);
  return out;
}

/** OTLP ids: hex in JSON, base64 after protobuf decoding. */
function idOf(raw: unknown, bytes: number): string {
  if (typeof raw !== "string" || raw === "") return "";
  if (new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`).test(raw)) return raw.toLowerCase();
  const hex = Buffer.from(raw, "base64").toString("hex");
  return hex.length === bytes * 2 ? hex : "";
}

export class OtlpDecodeError extends Error {
  override readonly name = "OtlpDecodeError";
}

/** Result of reading one export request: the spans kept and those rejected, with why. */
export interface DecodedSpans {
  readonly spans: OtlpSpan[];
  readonly rejected: number;
  readonly errors: string[];
}

/** Span events: name and attributes (times are not needed for joining). */
function eventsOf(list: unknown): OtlpSpanEvent[] {
  if (!Array.isArray(list)) return [];
  const out: OtlpSpanEvent[] = [];
  for (const e of list as Array<Record<string, unknown> | null>) if (e && typeof e === "object") out.push({ name: String(e.name ?? ""), attributes: attributesOf(e.attributes) });
  return out;
}

/** Normalises the request object (protobuf toObject or OTLP/JSON) into spans; malformed spans are counted as rejected. */
function normalise(request: unknown): DecodedSpans {
  if (!request || typeof request !== "object") throw new OtlpDecodeError("the body is not an OTLP ExportTraceServiceRequest");
  const resourceSpans = (request as { resourceSpans?: unknown }).resourceSpans;
  if (resourceSpans !== undefined && !Array.isArray(resourceSpans)) throw new OtlpDecodeError('"resourceSpans" must be an array');
  const spans: OtlpSpan[] = [];
  const errors: string[] = [];
  let rejected = 0;
  for (const rs of (resourceSpans as Array<Record<string, unknown>> | undefined) ?? []) {
    const resource = attributesOf((rs?.resource as { attributes?: unknown } | undefined)?.attributes);
    for (const ss of ((rs?.scopeSpans as Array<Record<string, unknown>> | undefined) ?? [])) {
      for (const s of ((ss?.spans as Array<Record<string, unknown>> | undefined) ?? [])) {
        const traceId = idOf(s?.traceId, 16);
        const spanId = idOf(s?.spanId, 8);
        if (!traceId || !spanId) {
          rejected++;
          if (errors.length < 5) errors.push(`span ${JSON.stringify(String(s?.name ?? "?")).slice(0, 60)} has an invalid traceId or spanId`);
          continue;
        }
        const events = eventsOf(s.events);
        spans.push({ traceId, spanId, parentSpanId: idOf(s.parentSpanId, 8), name: String(s.name ?? ""), attributes: attributesOf(s.attributes), resource, ...(events.length > 0 ? { events } : {}) });
      }
    }
  }
  return { spans, rejected, errors };
}

/** Decodes an OTLP/HTTP protobuf trace export with `codecs` (createOtlpCodecs; the caller keeps one). */
export function decodeProtobuf(body: Uint8Array, codecs: OtlpCodecs): DecodedSpans {
  // Outside the try: a missing or broken proto directory is a deployment error, not a bad request.
  const { traceRequest } = codecs.load();
  let message: unknown;
  try {
    message = traceRequest.decode(body);
  } catch (error) {
    throw new OtlpDecodeError(`the body is not a valid OTLP protobuf ExportTraceServiceRequest (${(error as Error).message})`);
  }
  return normalise(message);
}

/** Decodes an OTLP/HTTP JSON trace export. */
export function decodeJson(body: string): DecodedSpans {
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch (error) {
    throw new OtlpDecodeError(`the body is not valid JSON (${(error as Error).message})`);
  }
  return normalise(message);
}

/** The OTLP response: empty on full success, partial_success with the count and a message otherwise. */
export function encodeResponse(rejected: number, message: string, json: boolean, codecs: OtlpCodecs): Buffer | string {
  const body = rejected > 0 ? { partialSuccess: { rejectedSpans: rejected, errorMessage: message } } : {};
  if (json) return JSON.stringify(body);
  return Buffer.from(codecs.load().traceResponse.encode(body));
}

/** Result of reading one logs export request: the records kept and those rejected, with why. */
export interface DecodedLogs {
  readonly logs: OtlpLog[];
  readonly rejected: number;
  readonly errors: string[];
}

/** Normalises an ExportLogsServiceRequest (protobuf toObject or OTLP/JSON); records without a valid trace id are counted as rejected. */
function normaliseLogs(request: unknown): DecodedLogs {
  if (!request || typeof request !== "object") throw new OtlpDecodeError("the body is not an OTLP ExportLogsServiceRequest");
  const resourceLogs = (request as { resourceLogs?: unknown }).resourceLogs;
  if (resourceLogs !== undefined && !Array.isArray(resourceLogs)) throw new OtlpDecodeError('"resourceLogs" must be an array');
  const logs: OtlpLog[] = [];
  const errors: string[] = [];
  let rejected = 0;
  for (const rl of (resourceLogs as Array<Record<string, unknown>> | undefined) ?? []) {
    const resource = attributesOf((rl?.resource as { attributes?: unknown } | undefined)?.attributes);
    const scopeLogs = rl?.scopeLogs;
    if (scopeLogs !== undefined && !Array.isArray(scopeLogs)) throw new OtlpDecodeError('"resourceLogs[].scopeLogs" must be an array');
    for (const sl of ((scopeLogs as Array<Record<string, unknown>> | undefined) ?? [])) {
      const records = sl?.logRecords;
      if (records !== undefined && !Array.isArray(records)) throw new OtlpDecodeError('"scopeLogs[].logRecords" must be an array');
      for (const r of ((records as Array<Record<string, unknown>> | undefined) ?? [])) {
        const attributes = attributesOf(r?.attributes);
        const eventName = typeof r?.eventName === "string" && r.eventName !== "" ? r.eventName : typeof attributes["event.name"] === "string" ? attributes["event.name"] : "";
        const traceId = idOf(r?.traceId, 16);
        if (!traceId) {
          rejected++;
          if (errors.length < 5) errors.push(`log record ${JSON.stringify(eventName || "(no event name)").slice(0, 60)} has no valid traceId`);
          continue;
        }
        logs.push({ traceId, spanId: idOf(r.spanId, 8), eventName, body: valueOf(r.body as AnyValue | undefined), attributes, resource });
      }
    }
  }
  return { logs, rejected, errors };
}

/** Decodes an OTLP/HTTP protobuf logs export with `codecs`. */
export function decodeLogsProtobuf(body: Uint8Array, codecs: OtlpCodecs): DecodedLogs {
  // Outside the try: a missing or broken proto directory is a deployment error, not a bad request.
  const { logsRequest } = codecs.load();
  let message: unknown;
  try {
    message = logsRequest.decode(body);
  } catch (error) {
    throw new OtlpDecodeError(`the body is not a valid OTLP protobuf ExportLogsServiceRequest (${(error as Error).message})`);
  }
  return normaliseLogs(message);
}

/** Decodes an OTLP/HTTP JSON logs export. */
export function decodeLogsJson(body: string): DecodedLogs {
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch (error) {
    throw new OtlpDecodeError(`the body is not valid JSON (${(error as Error).message})`);
  }
  return normaliseLogs(message);
}

/** The OTLP logs response: empty on full success, partial_success with the rejected count and a message otherwise. */
export function encodeLogsResponse(rejected: number, message: string, json: boolean, codecs: OtlpCodecs): Buffer | string {
  const body = rejected > 0 ? { partialSuccess: { rejectedLogRecords: rejected, errorMessage: message } } : {};
  if (json) return JSON.stringify(body);
  return Buffer.from(codecs.load().logsResponse.encode(body));
}
