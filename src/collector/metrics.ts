import type { BatchObservableResult, Meter, ObservableGauge } from "@opentelemetry/api";
import { ValueType } from "@opentelemetry/api";
import type { MetricSpec } from "../telemetry/semconv.ts";
import type { PeerOutcome } from "../telemetry/semconv.ts";
import { ATTR_CONVENTION, ATTR_ENDPOINT, ATTR_OUTCOME, ATTR_REASON, ATTR_ROUTE, METRICS } from "../telemetry/semconv.ts";

/** Why the collector refused a request (or a connection), as groundwatch.collector.refused counts it. */
export type RefusalReason = "buffer_full" | "queue_full" | "too_large" | "unsupported_media_type" | "bad_request" | "unauthorized" | "misdirected" | "too_many_connections" | "too_many_per_address" | "timeout" | "plain_http" | "tls_handshake" | "internal_error";

/**
 * The endpoints refusals are counted under; any other path is `other`, a refusal before any request
 * `connection` (the main port) or `health_connection` (the probe listener, collector.healthPort).
 */
const ENDPOINTS = new Set(["/v1/traces", "/v1/logs", "/v1/observations", "/v1/guard", "/v1/flagged", "/metrics"]);

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

/**
 * The collector's own metrics, each with the in-memory tally RunningCollector reports: interactions
 * joined (by route and convention), traces and records not scored (groundwatch.collector.incomplete,
 * by route and reason), requests and connections refused (groundwatch.collector.refused, by endpoint
 * and reason), and the trace buffer's fill.
 */
export interface CollectorMetrics {
  /** An interaction joined from a trace, by the convention it was read from. */
  interaction(route: string, convention: string): void;
  /** `n` traces or records not scored, with the reason. */
  incomplete(reason: string, route: string, n?: number): void;
  /** A request (or connection) refused on `endpoint`, with the reason. */
  refused(endpoint: string, reason: RefusalReason): void;
  /** A call to a peer replica ended (groundwatch.peer.requests), with its outcome. */
  peerRequest(outcome: PeerOutcome): void;
  /** Not scored so far, by reason. */
  incompleteStats(): Record<string, number>;
  /** Refused so far, by "endpoint reason". */
  refusedStats(): Record<string, number>;
}

export interface CollectorMetricsOptions {
  /** The monitor's route label (its one route cap): routes and service names come from the input. */
  readonly routeLabel: (route: string) => string;
  /** The trace buffer's levels and limits, read when the gauges are observed. */
  readonly levels: () => BufferLevels;
}

/** Creates the collector's counters and the buffer gauges (traces, waiting, bytes and their limits), observed from `levels`. */
export function createCollectorMetrics(meter: Meter, options: CollectorMetricsOptions): CollectorMetrics {
  const { routeLabel, levels } = options;
  const incompleteStats: Record<string, number> = {};
  const refusedStats: Record<string, number> = {};
  const incompleteCounter = meter.createCounter(METRICS.collectorIncomplete.name, { unit: METRICS.collectorIncomplete.unit, description: METRICS.collectorIncomplete.description });
  const interactionsCounter = meter.createCounter(METRICS.collectorInteractions.name, { unit: METRICS.collectorInteractions.unit, description: METRICS.collectorInteractions.description });
  const refusedCounter = meter.createCounter(METRICS.collectorRefused.name, { unit: METRICS.collectorRefused.unit, description: METRICS.collectorRefused.description, valueType: ValueType.INT });
  const peerCounter = meter.createCounter(METRICS.peerRequests.name, { unit: METRICS.peerRequests.unit, description: METRICS.peerRequests.description, valueType: ValueType.INT });
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
    interaction(route, convention) {
      interactionsCounter.add(1, { [ATTR_ROUTE]: routeLabel(route), [ATTR_CONVENTION]: convention });
    },
    incomplete(reason, route, n = 1) {
      incompleteStats[reason] = (incompleteStats[reason] ?? 0) + n;
      incompleteCounter.add(n, { [ATTR_ROUTE]: routeLabel(route), [ATTR_REASON]: reason });
    },
    refused(endpoint, reason) {
      const key = `${endpoint} ${reason}`;
      refusedStats[key] = (refusedStats[key] ?? 0) + 1;
      refusedCounter.add(1, { [ATTR_ENDPOINT]: endpoint, [ATTR_REASON]: reason });
    },
    peerRequest(outcome) {
      peerCounter.add(1, { [ATTR_OUTCOME]: outcome });
    },
    incompleteStats: () => ({ ...incompleteStats }),
    refusedStats: () => ({ ...refusedStats }),
  };
}
