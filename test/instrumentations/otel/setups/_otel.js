/* global process */
// Shared OpenTelemetry set-up for the OpenInference and GenAI set-ups: a NodeTracerProvider (and,
// when asked, a LoggerProvider) exporting OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT, protobuf by
// default or JSON when OTEL_EXPORTER_OTLP_PROTOCOL=http/json. The exporters read the endpoint
// variables themselves (…/v1/traces, …/v1/logs).
import { SpanKind, SpanStatusCode, context, trace } from "@opentelemetry/api";
import { logs } from "@opentelemetry/api-logs";
import { OTLPLogExporter as LogsJson } from "@opentelemetry/exporter-logs-otlp-http";
import { OTLPLogExporter as LogsProto } from "@opentelemetry/exporter-logs-otlp-proto";
import { OTLPTraceExporter as TracesJson } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as TracesProto } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchLogRecordProcessor, LoggerProvider } from "@opentelemetry/sdk-logs";
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";

const json = process.env.OTEL_EXPORTER_OTLP_PROTOCOL === "http/json";

/** Starts tracing (and logs when `withLogs`), registered globally. */
export function startOtel(serviceName, { withLogs = false } = {}) {
  const resource = resourceFromAttributes({ "service.name": serviceName, "deployment.environment.name": "fixture" });
  const tracerProvider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(json ? new TracesJson() : new TracesProto())],
  });
  tracerProvider.register();
  let loggerProvider;
  if (withLogs) {
    loggerProvider = new LoggerProvider({ resource, processors: [new BatchLogRecordProcessor({ exporter: json ? new LogsJson() : new LogsProto() })] });
    logs.setGlobalLoggerProvider(loggerProvider);
  }
  const tracer = tracerProvider.getTracer("support-rag-api");
  return {
    tracerProvider, loggerProvider, tracer,
    async shutdown() {
      await tracerProvider.forceFlush();
      await loggerProvider?.forceFlush();
      await tracerProvider.shutdown();
      await loggerProvider?.shutdown();
    },
  };
}

/** Runs fn(question) inside a SERVER root span shaped like the HTTP handler `POST /api/ask`. */
export function asRequest(tracer, question, fn) {
  return tracer.startActiveSpan("POST /api/ask", {
    kind: SpanKind.SERVER, root: true,
    attributes: { "http.request.method": "POST", "http.route": "/api/ask", "url.path": "/api/ask", "url.scheme": "http" },
  }, context.active(), async (span) => {
    try {
      const answer = await fn(question);
      span.setAttribute("http.response.status_code", 200);
      return answer;
    } catch (err) {
      span.recordException(err);
      span.setStatus({ code: SpanStatusCode.ERROR, message: String(err?.message ?? err) });
      throw err;
    } finally {
      span.end();
    }
  });
}

export { trace };
