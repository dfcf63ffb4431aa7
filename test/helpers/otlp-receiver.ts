import { createRequire } from "node:module";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { onTestFinished } from "vitest";

// The OTLP request types, generated from the official .proto files: @opentelemetry/otlp-transformer
// 0.214 is the last release that ships them for traces, metrics and logs (installed as "otlp-decoders").
const require = createRequire(import.meta.url);
const root = (require("otlp-decoders/build/src/generated/root.js") as { opentelemetry: OtlpRoot }).opentelemetry;

interface Codec {
  decode(buf: Uint8Array): unknown;
  toObject(msg: unknown, opts: Record<string, unknown>): Record<string, unknown>;
  encode(msg: unknown): { finish(): Uint8Array };
  fromObject(o: unknown): unknown;
}
interface OtlpRoot {
  proto: { collector: { trace: { v1: Record<string, Codec> }; metrics: { v1: Record<string, Codec> }; logs: { v1: Record<string, Codec> } } };
}

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean; arrayValue?: { values?: AnyValue[] } };
type KeyValue = { key: string; value?: AnyValue };

function value(v: AnyValue | undefined): unknown {
  if (!v) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(value);
  return undefined;
}

export function attrs(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, value(kv.value)]));
}

export interface ReceivedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  attributes: Record<string, unknown>;
  status: number;
}
export interface ReceivedLog {
  eventName: string;
  traceId: string;
  spanId: string;
  attributes: Record<string, unknown>;
}
export interface ReceivedPoint {
  metric: string;
  attributes: Record<string, unknown>;
  value: number;
  count?: number;
}

export interface OtlpReceiver {
  readonly url: string;
  readonly spans: ReceivedSpan[];
  readonly logs: ReceivedLog[];
  /** Every metric data point received (cumulative exports: the latest per series is the total). */
  readonly points: ReceivedPoint[];
  readonly contentTypes: Set<string>;
}

const hex = (b: string | undefined): string => (b ? Buffer.from(b, "base64").toString("hex") : "");
const options = { longs: String, bytes: String, enums: Number, defaults: false, arrays: true };

/** An OTLP/HTTP receiver that decodes protobuf requests with the generated OTLP types; closed when the test ends. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const c = root.proto.collector;
  const received: OtlpReceiver = { url: "", spans: [], logs: [], points: [], contentTypes: new Set() };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (d: Buffer) => chunks.push(d));
    req.on("end", () => {
      let body = Buffer.concat(chunks);
      if (req.headers["content-encoding"] === "gzip") body = gunzipSync(body);
      received.contentTypes.add(String(req.headers["content-type"]));
      const route = req.url ?? "";
      let response: Uint8Array;
      if (route === "/v1/traces") {
        const t = c.trace.v1.ExportTraceServiceRequest as Codec;
        const msg = t.toObject(t.decode(body), options) as { resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }> }> };
        for (const rs of msg.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) for (const s of ss.spans ?? []) {
          received.spans.push({ name: String(s.name), traceId: hex(s.traceId as string), spanId: hex(s.spanId as string), parentSpanId: hex(s.parentSpanId as string), attributes: attrs(s.attributes as KeyValue[]), status: Number((s.status as { code?: number } | undefined)?.code ?? 0) });
        }
        response = (c.trace.v1.ExportTraceServiceResponse as Codec).encode({}).finish();
      } else if (route === "/v1/logs") {
        const t = c.logs.v1.ExportLogsServiceRequest as Codec;
        const msg = t.toObject(t.decode(body), options) as { resourceLogs?: Array<{ scopeLogs?: Array<{ logRecords?: Array<Record<string, unknown>> }> }> };
        for (const rl of msg.resourceLogs ?? []) for (const sl of rl.scopeLogs ?? []) for (const l of sl.logRecords ?? []) {
          received.logs.push({ eventName: String(l.eventName ?? ""), traceId: hex(l.traceId as string), spanId: hex(l.spanId as string), attributes: attrs(l.attributes as KeyValue[]) });
        }
        response = (c.logs.v1.ExportLogsServiceResponse as Codec).encode({}).finish();
      } else if (route === "/v1/metrics") {
        const t = c.metrics.v1.ExportMetricsServiceRequest as Codec;
        const msg = t.toObject(t.decode(body), options) as { resourceMetrics?: Array<{ scopeMetrics?: Array<{ metrics?: Array<Record<string, unknown>> }> }> };
        for (const rm of msg.resourceMetrics ?? []) for (const sm of rm.scopeMetrics ?? []) for (const metric of sm.metrics ?? []) {
          const data = (metric.sum ?? metric.gauge ?? metric.histogram) as { dataPoints?: Array<Record<string, unknown>> } | undefined;
          for (const p of data?.dataPoints ?? []) {
            const v = p.asDouble ?? p.asInt ?? p.sum ?? 0;
            received.points.push({ metric: String(metric.name), attributes: attrs(p.attributes as KeyValue[]), value: Number(v), ...(p.count !== undefined ? { count: Number(p.count) } : {}) });
          }
        }
        response = (c.metrics.v1.ExportMetricsServiceResponse as Codec).encode({}).finish();
      } else {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { "content-type": "application/x-protobuf" }).end(Buffer.from(response));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
  return Object.assign(received, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
}

/** The latest cumulative value of each series of a metric, summed over series matching `where`. */
export function total(points: ReceivedPoint[], metric: string, where: Record<string, unknown> = {}): number {
  const latest = new Map<string, number>();
  for (const p of points) {
    if (p.metric !== metric) continue;
    if (!Object.entries(where).every(([k, v]) => p.attributes[k] === v)) continue;
    latest.set(JSON.stringify(p.attributes), p.count ?? p.value);
  }
  return [...latest.values()].reduce((a, b) => a + b, 0);
}
