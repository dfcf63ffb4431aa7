import type { OtlpCodecs } from "./otlp-proto.ts";
import { exportRecords } from "./otlp-proto.ts";
import { isOwnEvaluation } from "./own-telemetry.ts";
import { isPlainObject } from "../core/plain-object.ts";
import { GroundwatchError } from "../errors/groundwatch-error.ts";

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
  /** Always a valid id, except "" on groundwatch's own evaluation events (see isOwnEvaluation), which join no trace. */
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

/** How deep arrays and kvlists may nest in one attribute value; deeper is a malformed request (a 400), not a stack overflow. */
export const MAX_VALUE_DEPTH = 64;

function valueOf(v: AnyValue | undefined, depth: number): unknown {
  if (!v || typeof v !== "object") return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue || v.kvlistValue) {
    if (depth >= MAX_VALUE_DEPTH) throw new OtlpDecodeError(`an attribute value nests arrays or kvlists more than ${MAX_VALUE_DEPTH} levels deep`);
    if (v.kvlistValue) return attributesOf(v.kvlistValue.values, depth + 1);
    const values = v.arrayValue?.values;
    return Array.isArray(values) ? values.map((x: AnyValue) => valueOf(x, depth + 1)) : [];
  }
  if (v.bytesValue !== undefined) return v.bytesValue;
  return undefined;
}

/** OTLP attributes (protobuf toObject or OTLP/JSON) as a plain record: ints as numbers, arrays as arrays, kvlists as objects. */
export function attributesOf(list: unknown, depth = 0): Record<string, unknown> {
  if (!Array.isArray(list)) return {};
  const out: Record<string, unknown> = {};
  for (const kv of list as KeyValue[]) if (kv && typeof kv.key === "string") out[kv.key] = valueOf(kv.value, depth);
  return out;
}

/** OTLP ids: hex in JSON, base64 after protobuf decoding. */
function idOf(raw: unknown, bytes: number): string {
  if (typeof raw !== "string" || raw === "") return "";
  if (new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`).test(raw)) return raw.toLowerCase();
  const hex = Buffer.from(raw, "base64").toString("hex");
  return hex.length === bytes * 2 ? hex : "";
}

export class OtlpDecodeError extends GroundwatchError {
  override readonly name = "OtlpDecodeError";
  override readonly code = "otlp_decode";
}

/** Result of reading one export request: the spans kept and those rejected, with why. */
export interface DecodedSpans {
  readonly spans: OtlpSpan[];
  readonly rejected: number;
  /** Of those rejected, spans over MAX_RECORD_ATTRIBUTES (their own or one event's). */
  readonly tooManyAttributes: number;
  readonly errors: string[];
}

/** Span events: name and attributes (times are not needed for joining). */
function eventsOf(list: unknown): OtlpSpanEvent[] {
  if (!Array.isArray(list)) return [];
  const out: OtlpSpanEvent[] = [];
  for (const e of list as Array<Record<string, unknown> | null>) if (e && typeof e === "object") out.push({ name: String(e.name ?? ""), attributes: attributesOf(e.attributes) });
  return out;
}

/**
 * Decoding runs in steps: a generator yields after every {@link STEP} records, so the server can let
 * other requests (a health check) in between, while tests and the synchronous API run it through.
 */
type Steps<T> = Generator<void, T, void>;
const STEP = 500;

/** Runs decoding steps to the end. A RangeError (a stack or size limit deep in a parser) is a malformed request. */
function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const next = step(steps);
    if (next.done) return next.value;
  }
}

/** Runs decoding steps, awaiting `pause()` between them. */
async function runStepsPausing<T>(steps: Steps<T>, pause: () => Promise<void>): Promise<T> {
  for (;;) {
    const next = step(steps);
    if (next.done) return next.value;
    await pause();
  }
}

function step<T>(steps: Steps<T>): IteratorResult<void, T> {
  try {
    return steps.next();
  } catch (error) {
    if (error instanceof RangeError) throw new OtlpDecodeError(`the body could not be read: ${error.message}`);
    throw error;
  }
}

/** Spans (or log records) kept so far, and those rejected, with why. */
interface Accumulated<R> {
  readonly records: R[];
  rejected: number;
  /** Of those rejected, records over MAX_RECORD_ATTRIBUTES. */
  tooManyAttributes: number;
  readonly errors: string[];
}

/**
 * Most attributes one span, span event or log record may carry (OpenTelemetry SDKs keep 128 by
 * default; OpenInference's indexed documents and messages need hundreds). A record over it is
 * rejected (answered in the OTLP partial success, counted `too_many_attributes`) before its attributes
 * are read: an object of hundreds of thousands of keys costs V8 more than linear time to build and list.
 */
export const MAX_RECORD_ATTRIBUTES = 4096;

/** The size of an attribute list over MAX_RECORD_ATTRIBUTES, or undefined when it is within it. */
function overAttributeCap(v: unknown): number | undefined {
  return Array.isArray(v) && v.length > MAX_RECORD_ATTRIBUTES ? v.length : undefined;
}

/** A resource's attributes; one over MAX_RECORD_ATTRIBUTES makes the request malformed (it labels every record under it). */
function resourceOf(resource: unknown): Record<string, unknown> {
  const attributes = (resource as { attributes?: unknown } | null | undefined)?.attributes;
  const n = overAttributeCap(attributes);
  if (n !== undefined) throw new OtlpDecodeError(`a resource has ${n} attributes, more than ${MAX_RECORD_ATTRIBUTES}`);
  return attributesOf(attributes);
}

/** Counts a record rejected for its attribute count; true when it was. */
function rejectOverCap<R>(acc: Accumulated<R>, what: string, lists: readonly unknown[]): boolean {
  for (const l of lists) {
    const n = overAttributeCap(l);
    if (n === undefined) continue;
    acc.rejected++;
    acc.tooManyAttributes++;
    if (acc.errors.length < 5) acc.errors.push(`${what} has ${n} attributes, more than ${MAX_RECORD_ATTRIBUTES}`);
    return true;
  }
  return false;
}

const list = (v: unknown, what: string): Array<Record<string, unknown> | null | undefined> => {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new OtlpDecodeError(`"${what}" must be an array`);
  return v as Array<Record<string, unknown> | null | undefined>;
};

/** A list of containers (resource or scope entries): each must be an object, else the body is not OTLP. */
const containers = (v: unknown, what: string): Array<Record<string, unknown>> => {
  const items = list(v, what);
  for (const item of items) if (!isPlainObject(item)) throw new OtlpDecodeError(`each entry of "${what}" must be an object`);
  return items as Array<Record<string, unknown>>;
};

/** One span (protobuf toObject or OTLP/JSON form), kept or counted as rejected. */
function addSpan(acc: Accumulated<OtlpSpan>, s: Record<string, unknown> | null | undefined, resource: Readonly<Record<string, unknown>>): void {
  const traceId = idOf(s?.traceId, 16);
  const spanId = idOf(s?.spanId, 8);
  if (!s || !traceId || !spanId) {
    acc.rejected++;
    if (acc.errors.length < 5) acc.errors.push(`span ${JSON.stringify(String(s?.name ?? "?")).slice(0, 60)} has an invalid traceId or spanId`);
    return;
  }
  const eventLists = Array.isArray(s.events) ? (s.events as Array<{ attributes?: unknown } | null>).map((e) => e?.attributes) : [];
  if (rejectOverCap(acc, `span ${JSON.stringify(String(s.name ?? "?")).slice(0, 60)}`, [s.attributes, ...eventLists])) return;
  const events = eventsOf(s.events);
  acc.records.push({ traceId, spanId, parentSpanId: idOf(s.parentSpanId, 8), name: String(s.name ?? ""), attributes: attributesOf(s.attributes), resource, ...(events.length > 0 ? { events } : {}) });
}

/** One log record (protobuf toObject or OTLP/JSON form), kept or counted as rejected. */
function addLog(acc: Accumulated<OtlpLog>, r: Record<string, unknown> | null | undefined, resource: Readonly<Record<string, unknown>>): void {
  if (rejectOverCap(acc, "a log record", [r?.attributes])) return;
  const attributes = attributesOf(r?.attributes);
  const eventName = typeof r?.eventName === "string" && r.eventName !== "" ? r.eventName : typeof attributes["event.name"] === "string" ? attributes["event.name"] : "";
  const traceId = idOf(r?.traceId, 16);
  // groundwatch's own evaluation events are kept without ids (emitted outside any span): the server counts them already_evaluated.
  if (r && !traceId && isOwnEvaluation({ eventName, attributes })) {
    acc.records.push({ traceId, spanId: idOf(r.spanId, 8), eventName, body: undefined, attributes, resource });
    return;
  }
  if (!r || !traceId) {
    acc.rejected++;
    if (acc.errors.length < 5) acc.errors.push(`log record ${JSON.stringify(eventName || "(no event name)").slice(0, 60)} has no valid traceId`);
    return;
  }
  acc.records.push({ traceId, spanId: idOf(r.spanId, 8), eventName, body: valueOf(r.body as AnyValue | undefined, 0), attributes, resource });
}

/** Normalises a request object (OTLP/JSON) into spans, STEP at a time; malformed spans are counted as rejected. */
function* normaliseSpans(request: unknown): Steps<DecodedSpans> {
  if (!isPlainObject(request)) throw new OtlpDecodeError("the body is not an OTLP ExportTraceServiceRequest");
  const acc: Accumulated<OtlpSpan> = { records: [], rejected: 0, tooManyAttributes: 0, errors: [] };
  let n = 0;
  for (const rs of containers((request as { resourceSpans?: unknown }).resourceSpans, "resourceSpans")) {
    const resource = resourceOf(rs.resource);
    for (const ss of containers(rs.scopeSpans, "resourceSpans[].scopeSpans")) {
      for (const s of list(ss.spans, "scopeSpans[].spans")) {
        addSpan(acc, s, resource);
        if (++n % STEP === 0) yield;
      }
    }
  }
  return { spans: acc.records, rejected: acc.rejected, tooManyAttributes: acc.tooManyAttributes, errors: acc.errors };
}

/** Normalises an ExportLogsServiceRequest object (OTLP/JSON), STEP at a time; records without a valid trace id are counted as rejected. */
function* normaliseLogs(request: unknown): Steps<DecodedLogs> {
  if (!isPlainObject(request)) throw new OtlpDecodeError("the body is not an OTLP ExportLogsServiceRequest");
  const acc: Accumulated<OtlpLog> = { records: [], rejected: 0, tooManyAttributes: 0, errors: [] };
  let n = 0;
  for (const rl of containers((request as { resourceLogs?: unknown }).resourceLogs, "resourceLogs")) {
    const resource = resourceOf(rl.resource);
    for (const sl of containers(rl.scopeLogs, "resourceLogs[].scopeLogs")) {
      for (const r of list(sl.logRecords, "scopeLogs[].logRecords")) {
        addLog(acc, r, resource);
        if (++n % STEP === 0) yield;
      }
    }
  }
  return { logs: acc.records, rejected: acc.rejected, tooManyAttributes: acc.tooManyAttributes, errors: acc.errors };
}

/**
 * Reads a protobuf export request one record at a time (see exportRecords), decoding each with
 * `decodeRecord` and each group's Resource once; a malformed buffer is an OtlpDecodeError naming `what`.
 */
function* protobufRecords<R>(body: Uint8Array, codecs: OtlpCodecs, what: string, add: (acc: Accumulated<R>, record: Record<string, unknown>, resource: Readonly<Record<string, unknown>>) => void, decodeRecord: (bytes: Uint8Array) => unknown): Steps<Accumulated<R>> {
  const { resource: resourceCodec } = codecs.load();
  const invalid = (error: unknown): OtlpDecodeError => (error instanceof OtlpDecodeError ? error : new OtlpDecodeError(`the body is not a valid OTLP protobuf ${what} (${(error as Error).message})`));
  const acc: Accumulated<R> = { records: [], rejected: 0, tooManyAttributes: 0, errors: [] };
  const records = exportRecords(body);
  let lastResource: Uint8Array | undefined;
  let resource: Readonly<Record<string, unknown>> = {};
  let n = 0;
  for (;;) {
    let next: IteratorResult<{ resource: Uint8Array | undefined; record: Uint8Array }>;
    try {
      next = records.next();
      if (next.done) break;
      if (next.value.resource !== lastResource) {
        lastResource = next.value.resource;
        resource = lastResource ? resourceOf(resourceCodec.decode(lastResource)) : {};
      }
      add(acc, decodeRecord(next.value.record) as Record<string, unknown>, resource);
    } catch (error) {
      throw invalid(error);
    }
    if (++n % STEP === 0) yield;
  }
  return acc;
}

function* protobufSpans(body: Uint8Array, codecs: OtlpCodecs): Steps<DecodedSpans> {
  // Outside the walk: a missing or broken proto directory is a deployment error, not a bad request.
  const { span } = codecs.load();
  const acc = yield* protobufRecords<OtlpSpan>(body, codecs, "ExportTraceServiceRequest", addSpan, (b) => span.decode(b));
  return { spans: acc.records, rejected: acc.rejected, tooManyAttributes: acc.tooManyAttributes, errors: acc.errors };
}

function* protobufLogs(body: Uint8Array, codecs: OtlpCodecs): Steps<DecodedLogs> {
  const { logRecord } = codecs.load();
  const acc = yield* protobufRecords<OtlpLog>(body, codecs, "ExportLogsServiceRequest", addLog, (b) => logRecord.decode(b));
  return { logs: acc.records, rejected: acc.rejected, tooManyAttributes: acc.tooManyAttributes, errors: acc.errors };
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch (error) {
    throw new OtlpDecodeError(`the body is not valid JSON (${(error as Error).message})`);
  }
}

function* jsonSpans(body: string): Steps<DecodedSpans> {
  return yield* normaliseSpans(parseJson(body));
}

function* jsonLogs(body: string): Steps<DecodedLogs> {
  return yield* normaliseLogs(parseJson(body));
}

/** Decodes an OTLP/HTTP protobuf trace export with `codecs` (createOtlpCodecs; the caller keeps one). */
export function decodeProtobuf(body: Uint8Array, codecs: OtlpCodecs): DecodedSpans {
  return runSteps(protobufSpans(body, codecs));
}

/** Decodes an OTLP/HTTP JSON trace export. */
export function decodeJson(body: string): DecodedSpans {
  return runSteps(jsonSpans(body));
}

/**
 * Decodes an OTLP/HTTP trace export (protobuf, or JSON when `json`), awaiting `pause()` after every
 * few hundred spans so that a large request does not hold the event loop.
 */
export function decodeSpansPausing(body: Buffer, json: boolean, codecs: OtlpCodecs, pause: () => Promise<void>): Promise<DecodedSpans> {
  return runStepsPausing(json ? jsonSpans(body.toString("utf8")) : protobufSpans(body, codecs), pause);
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
  /** Of those rejected, records over MAX_RECORD_ATTRIBUTES. */
  readonly tooManyAttributes: number;
  readonly errors: string[];
}

/** Decodes an OTLP/HTTP protobuf logs export with `codecs`. */
export function decodeLogsProtobuf(body: Uint8Array, codecs: OtlpCodecs): DecodedLogs {
  return runSteps(protobufLogs(body, codecs));
}

/** Decodes an OTLP/HTTP JSON logs export. */
export function decodeLogsJson(body: string): DecodedLogs {
  return runSteps(jsonLogs(body));
}

/** Decodes an OTLP/HTTP logs export (protobuf, or JSON when `json`), awaiting `pause()` after every few hundred records. */
export function decodeLogsPausing(body: Buffer, json: boolean, codecs: OtlpCodecs, pause: () => Promise<void>): Promise<DecodedLogs> {
  return runStepsPausing(json ? jsonLogs(body.toString("utf8")) : protobufLogs(body, codecs), pause);
}

/** The OTLP logs response: empty on full success, partial_success with the rejected count and a message otherwise. */
export function encodeLogsResponse(rejected: number, message: string, json: boolean, codecs: OtlpCodecs): Buffer | string {
  const body = rejected > 0 ? { partialSuccess: { rejectedLogRecords: rejected, errorMessage: message } } : {};
  if (json) return JSON.stringify(body);
  return Buffer.from(codecs.load().logsResponse.encode(body));
}
