import { OTLPLogExporter } from "@opentelemetry/exporter-logs-otlp-proto";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-proto";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchLogRecordProcessor } from "@opentelemetry/sdk-logs";
import { PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { NodeSDK } from "@opentelemetry/sdk-node";

/**
 * The host owns the OpenTelemetry SDK: traces, metrics and logs over OTLP/HTTP protobuf to
 * OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318). groundwatch only uses the API.
 */
export function startTelemetry(): NodeSDK {
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({ "service.name": process.env.OTEL_SERVICE_NAME ?? "rag-service" }),
    traceExporter: new OTLPTraceExporter(),
    metricReaders: [new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter(), exportIntervalMillis: Number(process.env.OTEL_METRIC_EXPORT_INTERVAL ?? 10_000) })],
    logRecordProcessors: [new BatchLogRecordProcessor({ exporter: new OTLPLogExporter() })],
    instrumentations: [],
  });
  sdk.start();
  return sdk;
}
