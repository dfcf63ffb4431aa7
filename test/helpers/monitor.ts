import { onTestFinished } from "vitest";
import { createMonitor } from "../../src/sdk/monitor.ts";
import type { MonitorOptions } from "../../src/sdk/options.ts";
import type { Monitor, MonitorStats } from "../../src/sdk/types.ts";
import type { TestOtel } from "./otel.ts";

/** An env without a Hugging Face cache, so no test finds a model by accident. */
export const MONITOR_TEST_ENV = { HF_HOME: "/nonexistent/groundwatch-test-hf-home" };

/** A monitor on the offline backend recording to `otel`'s providers; `extra` overrides; shut down when the test ends. */
export function testMonitor(otel: TestOtel, extra: MonitorOptions = {}): Monitor {
  const monitor = createMonitor({
    env: MONITOR_TEST_ENV,
    scoring: { backend: "offline" },
    tracerProvider: otel.tracerProvider,
    meterProvider: otel.meterProvider,
    loggerProvider: otel.loggerProvider,
    ...extra,
  });
  onTestFinished(() => monitor.shutdown(1000));
  return monitor;
}

/** Every observation is accounted for: seen = sampled + notSampled; sampled = scored + dropped + failed + pending. */
export function identityHolds(s: MonitorStats): boolean {
  const dropped = Object.values(s.dropped).reduce((a, b) => a + b, 0);
  const failed = Object.values(s.failed).reduce((a, b) => a + b, 0);
  return s.seen === s.sampled + s.notSampled && s.sampled === s.scored + dropped + failed + s.pending;
}
