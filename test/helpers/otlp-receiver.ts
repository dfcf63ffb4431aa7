import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { onTestFinished } from "vitest";
import { attributesOf as attrs } from "../../src/collector/otlp.ts";
import { createOtlpCodecs } from "../../src/collector/otlp-proto.ts";

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

/** An OTLP/HTTP receiver that decodes protobuf requests with the collector's OTLP codecs (the vendored .proto files); closed when the test ends. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const c = createOtlpCodecs().load();
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
        for (const rs of c.traceRequest.decode(body).resourceSpans) for (const ss of rs.scopeSpans) for (const s of ss.spans) {
          received.spans.push({ name: String(s.name), traceId: hex(s.traceId), spanId: hex(s.spanId), parentSpanId: hex(s.parentSpanId), attributes: attrs(s.attributes), status: Number(s.status?.code ?? 0) });
        }
        response = c.traceResponse.encode({});
      } else if (route === "/v1/logs") {
        for (const rl of c.logsRequest.decode(body).resourceLogs) for (const sl of rl.scopeLogs) for (const l of sl.logRecords) {
          received.logs.push({ eventName: String(l.eventName ?? ""), traceId: hex(l.traceId), spanId: hex(l.spanId), attributes: attrs(l.attributes) });
        }
        response = c.logsResponse.encode({});
      } else if (route === "/v1/metrics") {
        for (const rm of c.metricsRequest.decode(body).resourceMetrics) for (const sm of rm.scopeMetrics) for (const metric of sm.metrics) {
          const data = metric.sum ?? metric.gauge ?? metric.histogram;
          for (const p of data?.dataPoints ?? []) {
            const v = p.asDouble ?? p.asInt ?? p.sum ?? 0;
            received.points.push({ metric: String(metric.name), attributes: attrs(p.attributes), value: Number(v), ...(p.count !== undefined ? { count: Number(p.count) } : {}) });
          }
        }
        response = c.metricsResponse.encode({});
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
