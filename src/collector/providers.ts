import { diag } from "@opentelemetry/api";
import { OTLPLogExporter } from "@opentelemetry/exporter-logs-otlp-proto";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-proto";
import { PrometheusExporter } from "@opentelemetry/exporter-prometheus";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { getNumberFromEnv } from "@opentelemetry/core";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { BatchLogRecordProcessor, LoggerProvider } from "@opentelemetry/sdk-logs";
import type { MetricReader } from "@opentelemetry/sdk-metrics";
import { MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { settleWithin } from "../workers/settle-within.ts";

type Signal = "traces" | "metrics" | "logs";

/** The OpenTelemetry providers of a collector: Prometheus always, OTLP for the signals the environment asks for. */
export interface CollectorProviders {
  readonly prometheus: PrometheusExporter;
  readonly meterProvider: MeterProvider;
  readonly tracerProvider: BasicTracerProvider;
  readonly loggerProvider: LoggerProvider;
  /** Time one OTLP export may take, retries included (ms). */
  readonly exportTimeoutMs: number;
  /**
   * Flushes and shuts the providers down, giving up after `ms` (exports still running end within
   * exportTimeoutMs); then logs how many export failures the rate limit held back.
   */
  shutdown(ms: number): Promise<void>;
}

/** Whether the standard OTEL_EXPORTER_OTLP_* variables ask for an OTLP export of a signal. */
export function otlpWanted(env: NodeJS.ProcessEnv, signal: Signal): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env[`OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_ENDPOINT`]);
}

/** Where a signal is exported: its own OTEL_EXPORTER_OTLP_{SIGNAL}_ENDPOINT, else the base endpoint + /v1/{signal}. */
export function endpointOf(env: NodeJS.ProcessEnv, signal: Signal): string {
  const specific = env[`OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_ENDPOINT`];
  return specific || `${String(env.OTEL_EXPORTER_OTLP_ENDPOINT ?? "").replace(/\/+$/, "")}/v1/${signal}`;
}

/** A positive OTEL_* number, read as the OpenTelemetry SDK reads it (@opentelemetry/core: blank is unset, a non-number is warned about and unset). */
function positiveOtelNumber(name: string): number | undefined {
  const n = getNumberFromEnv(name);
  return n !== undefined && Number.isFinite(n) && n > 0 ? n : undefined;
}

/** OTEL_EXPORTER_OTLP_{SIGNAL_}TIMEOUT in ms, else the OTLP default of 10 s. */
function configuredTimeout(signal: Signal): number {
  return positiveOtelNumber(`OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_TIMEOUT`) ?? positiveOtelNumber("OTEL_EXPORTER_OTLP_TIMEOUT") ?? 10_000;
}

/**
 * The longest an OTLP export (retries included) may take so that shutdown fits in `drainMs`: a third
 * of it, at least 1 s, at most the configured timeout. The rest of the deadline drains the scoring queue.
 */
export function exportTimeoutFor(drainMs: number, configured = 10_000): number {
  return Math.min(configured, Math.max(1000, Math.floor(drainMs / 3)));
}

/** Export failures of one signal, logged at most once per `intervalMs` with a count of those held back. */
export interface ExportFailureLog {
  failed(error: Error | undefined): void;
  /** Logs the failures held back since the last line, if any. */
  summary(): void;
}

export function createExportFailureLog(signal: string, endpoint: string, now: () => number = Date.now, intervalMs = 30_000): ExportFailureLog {
  let last = -Infinity;
  let held = 0;
  return {
    failed(error) {
      if (now() - last < intervalMs) {
        held++;
        return;
      }
      const more = held > 0 ? ` (${held} more failed since the last message)` : "";
      diag.warn(`groundwatch collector: OTLP ${signal} export to ${endpoint} failed: ${error?.message ?? "unknown error"}${more}`);
      last = now();
      held = 0;
    },
    summary() {
      if (held === 0) return;
      diag.warn(`groundwatch collector: ${held} more OTLP ${signal} export${held === 1 ? "" : "s"} to ${endpoint} failed since the last message`);
      held = 0;
    },
  };
}

interface Exporter<T> {
  export(items: T, done: (result: { code: number; error?: Error }) => void): void;
}

/**
 * Wraps an exporter's export() to report each failed result (ExportResultCode.FAILED is 1) to `log`.
 * The processor is then told the export is handled (SUCCESS): it would otherwise pass every failure
 * to OpenTelemetry's global error handler, which logs each one, every few seconds while the endpoint
 * is down, past the rate limit. A failed batch is dropped either way; the SDK does not retry it.
 */
function watched<T, E extends Exporter<T>>(exporter: E, log: ExportFailureLog): E {
  const original = exporter.export.bind(exporter);
  exporter.export = (items: T, done: (result: { code: number; error?: Error }) => void): void => {
    original(items, (result) => {
      if (result.code === 0) return done(result);
      log.failed(result.error);
      done({ code: 0 });
    });
  };
  return exporter;
}

/** Creates the providers; OTLP exports time out within exportTimeoutFor(drainMs) so that shutdown keeps its deadline. */
export function createProviders(env: NodeJS.ProcessEnv, drainMs: number): CollectorProviders {
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES as the OpenTelemetry SDK reads them (its env detector), over groundwatch's default name.
  const resource = resourceFromAttributes({ "service.name": "groundwatch-collector" }).merge(detectResources({ detectors: [envDetector] }));
  const logs: ExportFailureLog[] = [];
  const timeoutOf = (signal: Signal): number => exportTimeoutFor(drainMs, configuredTimeout(signal));
  const failureLog = (signal: Signal): ExportFailureLog => {
    const log = createExportFailureLog(signal, endpointOf(env, signal));
    logs.push(log);
    return log;
  };
  const exportTimeoutMs = Math.max(...(["traces", "metrics", "logs"] as const).map(timeoutOf));
  const prometheus = new PrometheusExporter({ preventServerStart: true });
  const readers: MetricReader[] = [prometheus];
  if (otlpWanted(env, "metrics")) {
    const interval = positiveOtelNumber("OTEL_METRIC_EXPORT_INTERVAL") ?? 60_000;
    const exporter = watched(new OTLPMetricExporter({ timeoutMillis: timeoutOf("metrics") }), failureLog("metrics"));
    readers.push(new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: interval, exportTimeoutMillis: Math.min(interval, timeoutOf("metrics") + 500) }));
  }
  const meterProvider = new MeterProvider({ resource, readers });
  const spanProcessors = otlpWanted(env, "traces") ? [new BatchSpanProcessor(watched(new OTLPTraceExporter({ timeoutMillis: timeoutOf("traces") }), failureLog("traces")), { exportTimeoutMillis: timeoutOf("traces") + 500 })] : [];
  const tracerProvider = new BasicTracerProvider({ resource, spanProcessors });
  const logProcessors = otlpWanted(env, "logs") ? [new BatchLogRecordProcessor({ exporter: watched(new OTLPLogExporter({ timeoutMillis: timeoutOf("logs") }), failureLog("logs")), exportTimeoutMillis: timeoutOf("logs") + 500 })] : [];
  const loggerProvider = new LoggerProvider({ resource, processors: logProcessors });
  return {
    prometheus,
    meterProvider,
    tracerProvider,
    loggerProvider,
    exportTimeoutMs,
    async shutdown(ms: number): Promise<void> {
      await settleWithin(Promise.allSettled([meterProvider.shutdown(), tracerProvider.shutdown(), loggerProvider.shutdown()]), ms);
      for (const log of logs) log.summary();
    },
  };
}
