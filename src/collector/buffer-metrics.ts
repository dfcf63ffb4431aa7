import type { BatchObservableResult, Meter, ObservableGauge } from "@opentelemetry/api";
import { ValueType } from "@opentelemetry/api";
import type { MetricSpec } from "../telemetry/semconv.ts";
import { ATTR_ENDPOINT, ATTR_REASON, METRICS } from "../telemetry/semconv.ts";

/** Why the collector refused a request (or a connection), as groundwatch.collector.refused counts it. */
export type RefusalReason = "buffer_full" | "queue_full" | "too_large" | "unsupported_media_type" | "bad_request" | "unauthorized" | "misdirected" | "too_many_connections" | "too_many_per_address" | "timeout" | "plain_http" | "tls_handshake" | "internal_error";

/**
 * The endpoints refusals are counted under; any other path is `other`, a refusal before any request
 * `connection` (the main port) or `health_connection` (the probe listener, collector.healthPort).
 */
const ENDPOINTS = new Set(["/v1/traces", "/v1/logs", "/v1/observations", "/v1/flagged", "/metrics"]);

/** A request path as the endpoint label: one of ENDPOINTS, else "other" (paths are attacker text; the label set stays fixed). */
export function endpointOf(path: string): string {
  return ENDPOINTS.has(path) ? path : "other";
}

/** The refusal reason of an HTTP status the collector answered with. */
export function refusalOf(status: number): RefusalReason {
  if (status === 401) return "unauthorized";
  if (status === 413) return "too_large";
  if (status === 415) return "unsupported_media_type";
  if (status === 421) return "misdirected";
  if (status >= 500) return "internal_error";
  return "bad_request";
}

/** What the trace buffer holds now, and its limits. */
export interface BufferLevels {
  readonly traces: number;
  readonly waiting: number;
  readonly bytes: number;
  readonly maxTraces: number;
  readonly maxBytes: number;
}

/** The collector's own request metrics: refusals by endpoint and reason, and the trace buffer's fill. */
export interface CollectorRequestMetrics {
  refused(endpoint: string, reason: RefusalReason): void;
}

/** Creates groundwatch.collector.refused and the buffer gauges (traces, waiting, bytes and their limits), observed from `levels`. */
export function createRequestMetrics(meter: Meter, levels: () => BufferLevels): CollectorRequestMetrics {
  const refusedCounter = meter.createCounter(METRICS.collectorRefused.name, { unit: METRICS.collectorRefused.unit, description: METRICS.collectorRefused.description, valueType: ValueType.INT });
  const gauge = (s: MetricSpec): ObservableGauge => meter.createObservableGauge(s.name, { unit: s.unit, description: s.description, valueType: ValueType.INT });
  const gauges = {
    traces: gauge(METRICS.collectorBufferTraces),
    waiting: gauge(METRICS.collectorBufferWaiting),
    bytes: gauge(METRICS.collectorBufferBytes),
    maxTraces: gauge(METRICS.collectorBufferMaxTraces),
    maxBytes: gauge(METRICS.collectorBufferMaxBytes),
  };
  const observe = (r: BatchObservableResult): void => {
    const l = levels();
    r.observe(gauges.traces, l.traces);
    r.observe(gauges.waiting, l.waiting);
    r.observe(gauges.bytes, l.bytes);
    r.observe(gauges.maxTraces, l.maxTraces);
    r.observe(gauges.maxBytes, l.maxBytes);
  };
  meter.addBatchObservableCallback(observe, Object.values(gauges));
  return {
    refused(endpoint, reason) {
      refusedCounter.add(1, { [ATTR_ENDPOINT]: endpoint, [ATTR_REASON]: reason });
    },
  };
}

/** Settings of the full-buffer watch. */
export interface FullWatchOptions {
  /** How long the buffer must stay full before it counts as held full, ms (longer than one burst takes to settle). */
  readonly holdMs: number;
  readonly now: () => number;
  /** Whether the buffer is full now. */
  readonly isFull: () => boolean;
}

/**
 * Tells a buffer held full from a burst: `check()` is called on every sweep and request; the buffer is
 * held full once it was full at every check for holdMs. `heldForMs()` says for how long (undefined when not held full).
 */
export function createFullWatch(options: FullWatchOptions): { check(): void; heldForMs(): number | undefined } {
  let fullSince: number | undefined;
  const check = (): void => {
    if (!options.isFull()) fullSince = undefined;
    else fullSince ??= options.now();
  };
  return {
    check,
    heldForMs() {
      check();
      if (fullSince === undefined) return undefined;
      const held = options.now() - fullSince;
      return held >= options.holdMs ? held : undefined;
    },
  };
}
