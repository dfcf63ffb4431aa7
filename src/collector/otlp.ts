import { createOtlpCodecs } from "./otlp-proto.ts";

/** One span, normalised from OTLP protobuf or JSON. */
export interface OtlpSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly attributes: Readonly<Record<string, unknown>>;
  /** Resource attributes of the span's service. */
  readonly resource: Readonly<Record<string, unknown>>;
}

// The protobuf codecs, from the vendored opentelemetry-proto files (proto/); the files are read on the
// first protobuf request, once, and only this holder keeps them.
const OTLP = createOtlpCodecs();

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean; arrayValue?: { values?: AnyValue[] }; kvlistValue?: { values?: KeyValue[] } };
type KeyValue = { key?: string; value?: AnyValue };

function valueOf(v: AnyValue | undefined): unknown {
  if (!v) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(valueOf);
  if (v.kvlistValue) return attributesOf(v.kvlistValue.values);
  return undefined;
}

function attributesOf(list: unknown): Record<string, unknown> {
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
        spans.push({ traceId, spanId, parentSpanId: idOf(s.parentSpanId, 8), name: String(s.name ?? ""), attributes: attributesOf(s.attributes), resource });
      }
    }
  }
  return { spans, rejected, errors };
}

/** Decodes an OTLP/HTTP protobuf trace export. */
export function decodeProtobuf(body: Uint8Array): DecodedSpans {
  // Outside the try: a missing or broken proto directory is a deployment error, not a bad request.
  const { traceRequest } = OTLP.load();
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
export function encodeResponse(rejected: number, message: string, json: boolean): Buffer | string {
  const body = rejected > 0 ? { partialSuccess: { rejectedSpans: rejected, errorMessage: message } } : {};
  if (json) return JSON.stringify(body);
  return Buffer.from(OTLP.load().traceResponse.encode(body));
}
