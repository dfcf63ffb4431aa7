/** A monitor for tests, and its accounting as tests check it: in process (MonitorStats) or read from a child's /stats. */
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

/** The counters of the accounting identity: MonitorStats, or the same fields read from a child process. */
export type AccountingStats = Pick<MonitorStats, "seen" | "sampled" | "notSampled" | "scored" | "pending" | "dropped" | "failed">;

/** The sum of a count-by-reason record. */
export const totalOf = (counts: Readonly<Record<string, number>>): number => Object.values(counts).reduce((a, b) => a + b, 0);

/** Every observation seen is sampled or not, and every sampled one is scored, dropped, failed or still pending. */
export function identityHolds(s: AccountingStats): boolean {
  return s.seen === s.sampled + s.notSampled && s.sampled === s.scored + totalOf(s.dropped) + totalOf(s.failed) + s.pending;
}

/** Observations whose scoring has ended, in a score or a failure. */
export const settledCount = (s: AccountingStats): number => s.scored + totalOf(s.failed);
