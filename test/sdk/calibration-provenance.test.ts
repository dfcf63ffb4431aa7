import { mkdirSync, writeFileSync } from "node:fs";
import { captureWarnings } from "../helpers/diag.ts";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { readCalibrationFile } from "../../src/config/calibration-file.ts";
import { loadOfflineModel } from "../../src/nli/offline/backend.ts";
import type { Monitor } from "../../src/sdk/types.ts";
import { createMonitor } from "../../src/sdk/monitor.ts";
import type { MonitorOptions } from "../../src/sdk/options.ts";
import { resolveMonitorOptions } from "../../src/sdk/options.ts";
import { METRICS } from "../../src/telemetry/semconv.ts";
import { tempDir } from "../helpers/cli.ts";
import type { TestOtel } from "../helpers/otel.ts";
import { testOtel } from "../helpers/otel.ts";

const ENV = { HF_HOME: "/nonexistent/groundwatch-test-hf-home" };
const BAD = { context: ["Returns are accepted within 30 days of delivery for a full refund."], answer: "Returns are accepted within 90 days of delivery." };
const OFFLINE = { name: "offline", version: loadOfflineModel().version, tier: "triage" };
const OWN = { path: "labelled.jsonl", rows: 40, sha256: "d".repeat(64), bundled: false };

/** A passing calibration.json with 30 reference scores of 0.99; `dataset` and `backend` say where it came from. */
function calibration(extra: Record<string, unknown> = {}, dir = tempDir(), name = "calibration.json"): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ version: 1, backend: OFFLINE, threshold: 0.42, dataset: OWN, auroc: { value: 0.96, low: 0.9, high: 1 }, verdict: "pass", referenceScores: Array.from({ length: 30 }, () => 0.99), ...extra }));
  return path;
}

function monitorWith(otel: TestOtel, extra: MonitorOptions): Monitor {
  const monitor = createMonitor({ env: ENV, scoring: { backend: "offline" }, sampling: { default: 1 }, tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider, loggerProvider: otel.loggerProvider, drift: { windowSize: 20, minScores: 20 }, ...extra });
  onTestFinished(() => monitor.shutdown(1000));
  return monitor;
}

// Issue 25: a calibration fitted on groundwatch's examples/labelled.jsonl was applied silently, and
// GroundwatchScoreDrift fired on the user's routes against the example data's scores.
describe("the SDK and a calibration that is not the user's", () => {
  it("warns at createMonitor that a calibration on the bundled examples is not your data, and refuses it for drift (counted)", async () => {
    const warnings = captureWarnings();
    const path = calibration({ dataset: { ...OWN, path: "examples/labelled.jsonl", bundled: true } });
    expect(resolveMonitorOptions({ env: {}, calibrationFile: path }).drift.referenceStatus).toMatchObject({ source: "none", refused: { reason: "bundled_examples", scores: 30 } });
    const otel = testOtel();
    const monitor = monitorWith(otel, { calibrationFile: path });
    expect(warnings.find((w) => w.includes("bundled examples"))).toContain("calibrated on groundwatch's bundled examples (examples/labelled.jsonl), not your data");
    expect(warnings.find((w) => w.startsWith("groundwatch: drift runs without a reference"))).toContain("it was fitted on groundwatch's bundled examples");
    // Drift does not compare the route with the example's 0.99s: 25 low scores give no verdict (the first 20 are the route's own reference).
    for (let i = 0; i < 25; i++) monitor.observe({ route: "/r", ...BAD });
    await monitor.flush();
    const metrics = await otel.metrics();
    expect(metrics.get(METRICS.driftStatistic.name)).toBeUndefined();
    expect(metrics.get(METRICS.driftReferenceRefused.name)).toEqual([{ attributes: { "groundwatch.reason": "bundled_examples" }, value: 1 }]);
  });

  it("warns at createMonitor about a calibration made with another backend, and refuses its drift reference", () => {
    const warnings = captureWarnings();
    const path = calibration({ backend: { name: "judge", version: "gpt-4o-mini", tier: "production" } });
    expect(resolveMonitorOptions({ env: {}, calibrationFile: path, scoring: { backend: "offline" } }).drift.referenceStatus).toMatchObject({ refused: { reason: "other_backend" } });
    monitorWith(testOtel(), { calibrationFile: path });
    expect(warnings.some((w) => w.includes(`fitted with backend judge/gpt-4o-mini, scoring uses offline`))).toBe(true);
  });

  it("finds another model of the same backend at the first result: warns once and drift forgets the calibration's reference", async () => {
    const warnings = captureWarnings();
    const otel = testOtel();
    const monitor = monitorWith(otel, { calibrationFile: calibration({ backend: { ...OFFLINE, version: "an-older-offline-model" } }) });
    for (let i = 0; i < 25; i++) monitor.observe({ route: "/r", ...BAD });
    await monitor.flush();
    expect(warnings.filter((w) => w.includes(`fitted with backend offline/an-older-offline-model, scoring uses offline/${OFFLINE.version}`))).toHaveLength(1);
    const metrics = await otel.metrics();
    expect(metrics.get(METRICS.driftStatistic.name)).toBeUndefined();
    expect(metrics.get(METRICS.driftReferenceRefused.name)).toEqual([{ attributes: { "groundwatch.reason": "other_backend" }, value: 1 }]);
  });

  it("says fingerprint unknown for an older file, and nothing for one fitted on the user's data with the backend that scores", async () => {
    const warnings = captureWarnings();
    monitorWith(testOtel(), { calibrationFile: calibration({ dataset: { rows: 40 } }) });
    expect(warnings.some((w) => w.includes("fingerprint unknown"))).toBe(true);
    warnings.length = 0;
    const otel = testOtel();
    const monitor = monitorWith(otel, { calibrationFile: calibration() });
    for (let i = 0; i < 25; i++) monitor.observe({ route: "/r", ...BAD });
    await monitor.flush();
    expect(warnings.filter((w) => w.includes("calibration"))).toEqual([]);
    // Accepted: 25 low scores against the calibration's 0.99s give a verdict at once.
    expect((await otel.metrics()).get(METRICS.driftStatistic.name)?.[0]?.value).toBe(1);
  });
});

describe("groundwatch.scoring.info: what scores, exported", () => {
  it("carries backend, tier, model, the threshold in force and the calibration's id, with the threshold as a gauge", async () => {
    const path = calibration();
    const otel = testOtel();
    const monitor = monitorWith(otel, { calibrationFile: path });
    // Nothing is claimed before anything is scored.
    expect((await otel.metrics()).get(METRICS.scoringInfo.name)).toBeUndefined();
    monitor.observe({ route: "/r", ...BAD });
    await monitor.flush();
    const metrics = await otel.metrics();
    const id = readCalibrationFile(path).id;
    expect(metrics.get(METRICS.scoringInfo.name)).toEqual([
      { attributes: { "groundwatch.backend.name": "offline", "groundwatch.backend.tier": "triage", "groundwatch.backend.model": OFFLINE.version, "groundwatch.threshold": "0.42", "groundwatch.calibration.id": id }, value: 1 },
    ]);
    expect(metrics.get(METRICS.scoringThreshold.name)).toEqual([{ attributes: {}, value: 0.42 }]);
  });

  it("says calibration none, and the threshold set explicitly, without a calibration", async () => {
    const otel = testOtel();
    const monitor = monitorWith(otel, { scoring: { backend: "offline", threshold: 0.3 } });
    monitor.observe({ route: "/r", ...BAD });
    await monitor.flush();
    const [info] = (await otel.metrics()).get(METRICS.scoringInfo.name) ?? [];
    expect(info?.attributes).toMatchObject({ "groundwatch.threshold": "0.3", "groundwatch.calibration.id": "none" });
  });
});

// Issue 25: calibrationFile in a config file was read relative to the process's working directory.
describe("monitor.calibrationFile in a config file", () => {
  it("is resolved against the config file's folder, wherever the process runs", () => {
    const dir = tempDir();
    mkdirSync(join(dir, "conf"));
    const path = calibration({}, join(dir, "conf"), "cal.json");
    const config = join(dir, "conf", "groundwatch.json");
    writeFileSync(config, JSON.stringify({ monitor: { calibrationFile: "cal.json" } }));
    expect(process.cwd()).not.toBe(join(dir, "conf"));
    const resolved = resolveMonitorOptions({ env: {}, configFile: config });
    expect(resolved.calibration?.path).toBe(path);
    expect(resolved.score.threshold).toBe(0.42);
    // An absolute path stays as it is; the option and the environment stay relative to the working directory.
    writeFileSync(config, JSON.stringify({ monitor: { calibrationFile: path } }));
    expect(resolveMonitorOptions({ env: {}, configFile: config }).calibration?.path).toBe(path);
    writeFileSync(config, JSON.stringify({ monitor: { calibrationFile: "missing.json" } }));
    expect(() => resolveMonitorOptions({ env: {}, configFile: config })).toThrow(`invalid config file monitor.calibrationFile: ${JSON.stringify(join(dir, "conf", "missing.json"))}`);
  });
});
