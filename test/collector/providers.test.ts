import { describe, expect, it, onTestFinished, vi } from "vitest";
import { captureWarnings } from "../helpers/diag.ts";
import { createExportFailureLog, createProviders, exportTimeoutFor } from "../../src/collector/providers.ts";

describe("collector exports", () => {
  it("logs an export failure at most once per interval and signal, with the count of those held back", () => {
    const warnings = captureWarnings();
    const clock = { t: 0 };
    const traces = createExportFailureLog("traces", "http://otel:4318/v1/traces", () => clock.t, 30_000);
    const metrics = createExportFailureLog("metrics", "http://otel:4318/v1/metrics", () => clock.t, 30_000);
    traces.failed(new Error("connect ECONNREFUSED 127.0.0.1:4318"));
    metrics.failed(new Error("Request timed out"));
    for (let i = 0; i < 5; i++) {
      clock.t += 5000;
      traces.failed(new Error("connect ECONNREFUSED 127.0.0.1:4318"));
    }
    expect(warnings).toEqual([
      "groundwatch collector: OTLP traces export to http://otel:4318/v1/traces failed: connect ECONNREFUSED 127.0.0.1:4318",
      "groundwatch collector: OTLP metrics export to http://otel:4318/v1/metrics failed: Request timed out",
    ]);
    clock.t = 30_000;
    traces.failed(new Error("Request timed out"));
    expect(warnings.at(-1)).toBe("groundwatch collector: OTLP traces export to http://otel:4318/v1/traces failed: Request timed out (5 more failed since the last message)");
    clock.t += 1000;
    traces.failed(undefined);
    traces.summary();
    metrics.summary();
    expect(warnings.at(-1)).toBe("groundwatch collector: 1 more OTLP traces export to http://otel:4318/v1/traces failed since the last message");
    expect(warnings).toHaveLength(4);
  });

  it("gives an export a third of the drain deadline, at least 1 s and no more than the configured timeout", () => {
    expect(exportTimeoutFor(10_000)).toBe(3333);
    expect(exportTimeoutFor(2000)).toBe(1000);
    expect(exportTimeoutFor(0)).toBe(1000);
    expect(exportTimeoutFor(600_000)).toBe(10_000);
    expect(exportTimeoutFor(600_000, 20_000)).toBe(20_000);
    expect(exportTimeoutFor(10_000, 2000)).toBe(2000);
  });
});

describe("the collector's resource", () => {
  it("carries OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME, as the OpenTelemetry SDK reads them", async () => {
    vi.stubEnv("OTEL_SERVICE_NAME", "rag-collector");
    vi.stubEnv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=staging,service.namespace=rag");
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    const providers = createProviders({}, 3000);
    onTestFinished(() => providers.shutdown(1000));
    const { resourceMetrics } = await providers.prometheus.collect();
    expect(resourceMetrics.resource.attributes).toMatchObject({ "service.name": "rag-collector", "deployment.environment": "staging", "service.namespace": "rag" });
  });

  it("is named groundwatch-collector when OTEL_SERVICE_NAME is not set", async () => {
    vi.stubEnv("OTEL_SERVICE_NAME", "");
    vi.stubEnv("OTEL_RESOURCE_ATTRIBUTES", "");
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    const providers = createProviders({}, 3000);
    onTestFinished(() => providers.shutdown(1000));
    const { resourceMetrics } = await providers.prometheus.collect();
    expect(resourceMetrics.resource.attributes["service.name"]).toBe("groundwatch-collector");
  });
});
