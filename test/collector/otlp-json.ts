/** Builders of synthetic OTLP/JSON export requests for the collector tests. */

type Attrs = Readonly<Record<string, unknown>>;

export interface JsonSpan {
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name?: string;
  readonly attributes?: Attrs;
  readonly events?: ReadonlyArray<{ readonly name: string; readonly attributes?: Attrs }>;
}

export interface JsonLog {
  readonly spanId?: string;
  readonly eventName?: string;
  readonly attributes?: Attrs;
  readonly body?: unknown;
  readonly traceId?: string;
}

export function anyValue(v: unknown): object {
  if (typeof v === "string") return { stringValue: v };
  if (typeof v === "number") return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
  if (typeof v === "boolean") return { boolValue: v };
  if (Array.isArray(v)) return { arrayValue: { values: v.map(anyValue) } };
  return { kvlistValue: { values: keyValues(v as Attrs) } };
}

export function keyValues(attrs: Attrs): object[] {
  return Object.entries(attrs).map(([key, value]) => ({ key, value: anyValue(value) }));
}

/** An ExportTraceServiceRequest with the spans of one trace. */
export function tracesJson(traceId: string, spans: readonly JsonSpan[], service = "svc"): object {
  return {
    resourceSpans: [
      {
        resource: { attributes: keyValues({ "service.name": service }) },
        scopeSpans: [
          {
            spans: spans.map((s) => ({
              traceId,
              spanId: s.spanId,
              ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
              name: s.name ?? "span",
              attributes: keyValues(s.attributes ?? {}),
              events: (s.events ?? []).map((e) => ({ timeUnixNano: "1", name: e.name, attributes: keyValues(e.attributes ?? {}) })),
            })),
          },
        ],
      },
    ],
  };
}

/** An ExportLogsServiceRequest with the records of one trace (eventName in the field, or in the event.name attribute when `asAttribute`). */
export function logsJson(traceId: string, records: readonly JsonLog[], service = "svc", asAttribute = false): object {
  return {
    resourceLogs: [
      {
        resource: { attributes: keyValues({ "service.name": service }) },
        scopeLogs: [
          {
            logRecords: records.map((r) => ({
              timeUnixNano: "1",
              traceId: r.traceId ?? traceId,
              ...(r.spanId ? { spanId: r.spanId } : {}),
              ...(r.eventName && !asAttribute ? { eventName: r.eventName } : {}),
              attributes: keyValues({ ...(r.eventName && asAttribute ? { "event.name": r.eventName } : {}), ...(r.attributes ?? {}) }),
              ...(r.body !== undefined ? { body: anyValue(r.body) } : {}),
            })),
          },
        ],
      },
    ],
  };
}
