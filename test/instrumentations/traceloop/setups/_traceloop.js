/* global process */
// Shared Traceloop (OpenLLMetry) start-up: its own OTel 0.203 SDK, exporting OTLP/HTTP to
// OTEL_EXPORTER_OTLP_ENDPOINT (…/v1/traces), protobuf by default or JSON when
// OTEL_EXPORTER_OTLP_PROTOCOL=http/json. No Traceloop cloud: no API key, prompt sync off.
import { OTLPTraceExporter as TracesJson } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as TracesProto } from "@opentelemetry/exporter-trace-otlp-proto";
import * as traceloop from "@traceloop/node-server-sdk";

export function startTraceloop(appName, instrumentModules) {
  process.env.TRACELOOP_TELEMETRY ??= "false";
  const json = process.env.OTEL_EXPORTER_OTLP_PROTOCOL === "http/json";
  traceloop.initialize({
    appName,
    exporter: json ? new TracesJson() : new TracesProto(),
    instrumentModules,
    traceloopSyncEnabled: false,
    silenceInitializationMessage: true,
  });
  return {
    traceloop,
    async shutdown() {
      await traceloop.forceFlush();
    },
  };
}
