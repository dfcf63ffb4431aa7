import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { context } from "@opentelemetry/api";
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from "@opentelemetry/sdk-logs";
import type { ResourceMetrics } from "@opentelemetry/sdk-metrics";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { onTestFinished } from "vitest";

class TestReader extends MetricReader {
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

export interface TestOtel {
  readonly tracerProvider: BasicTracerProvider;
  readonly meterProvider: MeterProvider;
  readonly loggerProvider: LoggerProvider;
  readonly spans: InMemorySpanExporter;
  readonly logs: InMemoryLogRecordExporter;
  /** Collected metrics, by name: every data point's attributes and value. */
  metrics(): Promise<Map<string, Array<{ attributes: Record<string, unknown>; value: unknown }>>>;
}

/** Real OTel SDK providers with in-memory exporters; shut down when the test ends. */
export function testOtel(): TestOtel {
  const spans = new InMemorySpanExporter();
  const logExporter = new InMemoryLogRecordExporter();
  const reader = new TestReader();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const meterProvider = new MeterProvider({ readers: [reader] });
  const loggerProvider = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter: logExporter })] });
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  onTestFinished(async () => {
    await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown(), loggerProvider.shutdown()]);
    context.disable();
  });
  return {
    tracerProvider,
    meterProvider,
    loggerProvider,
    spans,
    logs: logExporter,
    async metrics() {
      const { resourceMetrics } = (await reader.collect()) as { resourceMetrics: ResourceMetrics };
      const out = new Map<string, Array<{ attributes: Record<string, unknown>; value: unknown }>>();
      for (const sm of resourceMetrics.scopeMetrics) {
        for (const metric of sm.metrics) {
          out.set(
            metric.descriptor.name,
            metric.dataPoints.map((p) => ({ attributes: p.attributes as Record<string, unknown>, value: p.value })),
          );
        }
      }
      return out;
    },
  };
}
