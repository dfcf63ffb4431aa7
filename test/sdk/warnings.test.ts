import { describe, expect, it, onTestFinished } from "vitest";
import { createMonitor } from "../../src/sdk/monitor.ts";
import type { Monitor } from "../../src/sdk/types.ts";
import { captureWarnings } from "../helpers/diag.ts";
import { testOtel } from "../helpers/otel.ts";

// No hub cache and no model: `auto` falls back to the offline (triage) backend on every machine.
const NO_MODEL = { HF_HOME: "/nonexistent/groundwatch-test-hf-home", HF_HUB_OFFLINE: "1" };

function monitorWith(backend: "auto" | "offline", workers: number): Monitor {
  const otel = testOtel();
  const monitor = createMonitor({ env: NO_MODEL, workers, scoring: { backend }, tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider, loggerProvider: otel.loggerProvider });
  onTestFinished(() => monitor.shutdown(1000));
  return monitor;
}

describe("the scorer's warnings reach the host", () => {
  it("says the fallback to the triage backend once with diag.warn, and keeps it in health() and stats()", async () => {
    const said = captureWarnings();
    const monitor = monitorWith("auto", 2);
    await monitor.ready();
    const fallback = said.filter((w) => w.includes("offline backend"));
    // Two workers, each with the same scorer: said once, not once per worker.
    expect(fallback).toHaveLength(1);
    expect(fallback[0]).toMatch(/^groundwatch: no NLI model configured or cached: scoring with the offline backend, whose results are TRIAGE-GRADE/);
    expect(monitor.health()).toMatchObject({ ready: true, warnings: [fallback[0]?.replace(/^groundwatch: /, "")] });
    expect(monitor.stats().warnings).toEqual(monitor.health().warnings);
  });

  it("has nothing to say when the offline backend is chosen explicitly", async () => {
    const said = captureWarnings();
    const monitor = monitorWith("offline", 1);
    await monitor.ready();
    expect(said.filter((w) => w.includes("offline backend"))).toEqual([]);
    expect(monitor.health().warnings).toEqual([]);
    expect(monitor.stats().warnings).toEqual([]);
  });

  it("reports no warnings before the workers are ready", () => {
    const monitor = monitorWith("auto", 1);
    expect(monitor.health()).toMatchObject({ ready: false, warnings: [] });
  });
});
