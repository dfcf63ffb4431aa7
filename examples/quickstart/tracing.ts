import { DiagConsoleLogger, DiagLogLevel, diag } from "@opentelemetry/api";
import { HttpInstrumentation } from "@opentelemetry/instrumentation-http";
import { NodeSDK } from "@opentelemetry/sdk-node";

// Loaded before the service (`node --import ./tracing.js server.js`), so that OpenTelemetry is
// registered before express and the service's own modules load. Spans, metrics and log events go over
// OTLP to the endpoint of the standard variables (OTEL_EXPORTER_OTLP_ENDPOINT, default
// http://localhost:4318): an OpenTelemetry Collector or a tracing backend, not `groundwatch serve`.
// Metrics are exported every OTEL_METRIC_EXPORT_INTERVAL ms (default 60000).

// OpenTelemetry's warnings on the console: groundwatch's among them (a triage-grade backend, telemetry with nowhere to go).
diag.setLogger(new DiagConsoleLogger(), DiagLogLevel.WARN);
// The HTTP instrumentation gives each request a span: groundwatch's evaluation span becomes its child.
export const sdk = new NodeSDK({ instrumentations: [new HttpInstrumentation()] });
sdk.start();
