/** What `startCollector` hands back, and what it answers to metrics sent to it. */
import type { Monitor } from "../sdk/types.ts";
import type { ResolvedCollectorOptions } from "./options.ts";
import type { CertificateWatch } from "./tls.ts";

/** The answer to OTLP metrics sent to the collector (an SDK exporter pointed here): where they belong. */
export const METRICS_ELSEWHERE =
  "groundwatch serve does not take metrics: it takes traces (/v1/traces), logs (/v1/logs) and observations (/v1/observations). " +
  "Send OTLP metrics (the groundwatch SDK's among them) to an OpenTelemetry Collector (collector/otel-collector.yaml in the groundwatch package: traces and logs to serve, metrics to Prometheus), " +
  "to Prometheus' OTLP receiver (/api/v1/otlp/v1/metrics, with --web.enable-otlp-receiver), or have Prometheus scrape the SDK's own Prometheus exporter.";

export interface RunningCollector {
  readonly url: string;
  /** The probe listener's URL (collector.healthPort: /healthz and /readyz only); undefined when off. */
  readonly healthUrl: string | undefined;
  /** With TLS (collector.tlsCertFile): the certificate served, and `check()` to read the files again now (serve's SIGHUP); undefined without. */
  readonly tls: Pick<CertificateWatch, "current" | "check"> | undefined;
  readonly monitor: Monitor;
  readonly options: ResolvedCollectorOptions;
  /** This replica's name: its x-groundwatch-replica header, its part of a merged /v1/flagged cursor. */
  readonly replica: string;
  /** Traces not scored and records not used while joining (duplicate_event, duplicate_span, late, invalid_id, …), by reason, as groundwatch.collector.incomplete counts them. */
  readonly incompleteStats: () => Readonly<Record<string, number>>;
  /** What the trace buffer holds now: traces being joined (those complete and waiting for room in the scoring queue among them), and their text (characters ≈ bytes). */
  readonly buffered: () => { readonly traces: number; readonly waiting: number; readonly bytes: number };
  /** Requests (and connections) refused, by endpoint and reason, as groundwatch.collector.refused counts them ("endpoint reason" keys). */
  readonly refusedStats: () => Readonly<Record<string, number>>;
  /**
   * Stops accepting, lets admitted requests finish, settles buffered traces, drains the queue and
   * flushes the exporters, all within the deadline (default collector.drainMs).
   */
  close(deadlineMs?: number): Promise<void>;
}
