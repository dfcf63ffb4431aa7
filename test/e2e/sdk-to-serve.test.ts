import { context as otelContext } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { OTLPLogExporter } from "@opentelemetry/exporter-logs-otlp-proto";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-proto";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { LoggerProvider, SimpleLogRecordProcessor } from "@opentelemetry/sdk-logs";
import { MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it, onTestFinished } from "vitest";
import { METRICS_ELSEWHERE } from "../../src/collector/server.ts";
import { createMonitor } from "../../src/sdk/monitor.ts";
import { COLLECTOR_TEST_ENV, startTestCollector } from "../helpers/collector.ts";

const GOOD = { context: ["Returns are accepted within 30 days of delivery for a full refund."], answer: "Returns are accepted within 30 days of delivery." };

/** The mistake the README's comment used to invite: an SDK monitor whose OTLP exporters all point at `groundwatch serve`. */
function monitorExportingTo(url: string) {
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${url}/v1/traces` }))] });
  const loggerProvider = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter: new OTLPLogExporter({ url: `${url}/v1/logs` }) })] });
  const meterProvider = new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter({ url: `${url}/v1/metrics` }), exportIntervalMillis: 60_000 })] });
  const manager = new AsyncLocalStorageContextManager().enable();
  otelContext.setGlobalContextManager(manager);
  const monitor = createMonitor({ env: COLLECTOR_TEST_ENV, scoring: { backend: "offline" }, sampling: { default: 1 }, tracerProvider, loggerProvider, meterProvider });
  onTestFinished(async () => {
    await monitor.shutdown(1000);
    await Promise.all([tracerProvider.shutdown(), loggerProvider.shutdown(), meterProvider.shutdown().catch(() => undefined)]);
    otelContext.disable();
  });
  return { monitor, tracerProvider, loggerProvider };
}

describe("an SDK monitor pointed at groundwatch serve", () => {
  it("has its evaluation spans and events counted already_evaluated: none is invalid_id or no_answer, and no trace is opened", async () => {
    const collector = await startTestCollector({ traceTimeoutMs: 200 });
    const { monitor, tracerProvider, loggerProvider } = monitorExportingTo(collector.url);
    // Outside any request span (no HTTP instrumentation): root evaluation spans and events without a trace id.
    monitor.observe({ route: "/api/answer", ...GOOD });
    // Inside a request span the exporter does not send: a child evaluation span and events with its trace id.
    const host = new BasicTracerProvider().getTracer("host");
    host.startActiveSpan("POST /api/answer", (span) => {
      monitor.observe({ route: "/api/answer", ...GOOD });
      span.end();
    });
    await monitor.flush();
    await Promise.all([tracerProvider.forceFlush(), loggerProvider.forceFlush()]);

    // Two spans and two events (one groundedness result each; no samples, so no entropy event).
    await expect.poll(() => collector.incompleteStats().already_evaluated ?? 0).toBe(4);
    const stats = collector.incompleteStats();
    expect(stats.invalid_id).toBeUndefined();
    expect(stats.no_answer).toBeUndefined();
    expect(collector.buffered().traces).toBe(0);
    const metrics = await (await fetch(`${collector.url}/metrics`)).text();
    expect(metrics).toMatch(/groundwatch_collector_incomplete_total\{[^}]*groundwatch_reason="already_evaluated"[^}]*\} 4/);
    expect(metrics).not.toMatch(/groundwatch_reason="(invalid_id|no_answer)"/);
  });

  it("answers /v1/metrics with a 404 whose body says where metrics belong", async () => {
    const collector = await startTestCollector();
    const res = await fetch(`${collector.url}/v1/metrics`, { method: "POST", headers: { "content-type": "application/x-protobuf" }, body: Buffer.from([0x0a, 0x00]) });
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: string };
    expect(body.error).toBe(METRICS_ELSEWHERE);
    expect(body.error).toContain("collector/otel-collector.yaml");
    expect(body.error).toContain("Prometheus' OTLP receiver");
  });
});
