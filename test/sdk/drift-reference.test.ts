import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { resolveCollectorOptions } from "../../src/collector/options.ts";
import { startupBanner } from "../../src/cli/serve.ts";
import { loadOfflineModel } from "../../src/nli/offline/backend.ts";
import { createScorer } from "../../src/sdk/create-scorer.ts";
import { createMonitor } from "../../src/sdk/monitor.ts";
import type { MonitorOptions } from "../../src/sdk/options.ts";
import { resolveMonitorOptions } from "../../src/sdk/options.ts";
import { METRICS } from "../../src/telemetry/semconv.ts";
import { runCli, tempDir } from "../helpers/cli.ts";
import { captureWarnings } from "../helpers/diag.ts";
import { testOtel } from "../helpers/otel.ts";

const ENV = { HF_HOME: "/nonexistent/groundwatch-test-hf-home" };
const CONTEXT = ["Returns are accepted within 30 days of delivery for a full refund."];
const GOOD = { context: CONTEXT, answer: "Returns are accepted within 30 days of delivery." };
const BAD = { context: CONTEXT, answer: "Returns are accepted within 90 days of delivery, in any condition." };

/** The offline backend's score of an answer, as the monitor will score it. */
async function scoreOf(input: { context: string[]; answer: string }): Promise<number> {
  const scorer = await createScorer({ backend: "offline" });
  try {
    const r = await scorer.score(input);
    if (r.score === null) throw new Error("unscorable");
    return r.score;
  } finally {
    await scorer.close();
  }
}

/** calibration.json as calibrate writes it from a review export: `driftReference` per route (or refused), no pooled scores. */
function reviewCalibration(driftReference: unknown): string {
  const path = join(tempDir(), "calibration.json");
  const backend = { name: "offline", version: loadOfflineModel().version, tier: "triage" };
  const dataset = { path: "reviewed.jsonl", rows: 60, positives: 30, negatives: 30, unscorable: 0, sha256: "e".repeat(64), bundled: false, production: { rows: 60, reviewers: 1, from: "2026-11-01T00:00:00.000Z", to: "2026-11-02T00:00:00.000Z" } };
  writeFileSync(path, JSON.stringify({ version: 1, backend, threshold: 0.42, dataset, auroc: { value: 0.96, low: 0.9, high: 1 }, verdict: "pass", referenceScores: [], driftReference }));
  return path;
}

/** A route's reference: `n` rows of `score`, each weighing 1. */
const route = (name: string, score: number, n: number): { route: string; scores: number[]; weights: number[] } => ({ route: name, scores: Array.from({ length: n }, () => score), weights: Array.from({ length: n }, () => 1) });

describe("the SDK's drift against a per-route reference from production review", () => {
  it("compares each route with its own reference, counts a route it does not name and one too small to use, and says so", async () => {
    const [good, bad] = [await scoreOf(GOOD), await scoreOf(BAD)];
    expect(good).toBeGreaterThan(bad);
    // /grounded answers well, /poor badly: each one's reference is its own. /small has 5 rows: too few.
    const path = reviewCalibration({ weighting: "sample_rate", routes: [route("/grounded", good, 30), route("/poor", bad, 30), route("/small", good, 5)] });
    const resolved = resolveMonitorOptions({ env: ENV, calibrationFile: path, scoring: { backend: "offline" }, drift: { windowSize: 20 } });
    expect(resolved.drift.referenceStatus).toEqual({ source: "calibration", scores: 60, perRoute: { routes: [{ route: "/grounded", rows: 30, effective: 30 }, { route: "/poor", rows: 30, effective: 30 }], refused: [{ route: "/small", rows: 5, effective: 5 }] } });
    const warnings = captureWarnings();
    const otel = testOtel();
    const options: MonitorOptions = { env: ENV, scoring: { backend: "offline" }, sampling: { default: 1 }, calibrationFile: path, drift: { windowSize: 20, minScores: 20 }, tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider, loggerProvider: otel.loggerProvider };
    const monitor = createMonitor(options);
    onTestFinished(() => monitor.shutdown(1000));
    expect(warnings).toContain("groundwatch: drift on a route runs without the calibration's reference, worth fewer than drift.minScores (20) answers (/small: 5 rows, worth 5 answers): its first 20 scores become its reference instead.");
    for (let i = 0; i < 20; i++) {
      monitor.observe({ route: "/grounded", ...GOOD });
      monitor.observe({ route: "/poor", ...BAD });
      // A grounded route answering badly: it drifted from its own reference.
      monitor.observe({ route: "/poor-now-good", ...GOOD });
      monitor.observe({ route: "/small", ...GOOD });
    }
    await monitor.flush();
    const metrics = await otel.metrics();
    const p = new Map((metrics.get(METRICS.driftPValue.name) ?? []).map((d) => [d.attributes["groundwatch.route"], d.value]));
    // The old way compared /poor's low scores with every route's reference pooled; against its own, no drift.
    expect(p.get("/grounded")).toBe(1);
    expect(p.get("/poor")).toBe(1);
    // Not named by the reference, and too small: their first 20 scores became their reference, no verdict yet.
    expect(p.has("/poor-now-good")).toBe(false);
    expect(p.has("/small")).toBe(false);
    expect(new Map((metrics.get(METRICS.driftReferenceRefused.name) ?? []).map((d) => [d.attributes["groundwatch.reason"], d.value]))).toEqual(
      new Map([
        ["too_few_scores", 1],
        ["no_route_reference", 1],
      ]),
    );
    expect(warnings.some((w) => w.includes("per-route drift reference does not name route /poor-now-good") && w.includes('groundwatch_drift_reference_refused_total{groundwatch_reason="no_route_reference"}'))).toBe(true);
  });

  it("uses route R's reference for route R: good answers on the poorly grounded route drift from it", async () => {
    const [good, bad] = [await scoreOf(GOOD), await scoreOf(BAD)];
    const path = reviewCalibration({ weighting: "sample_rate", routes: [route("/grounded", good, 30), route("/poor", bad, 30)] });
    const otel = testOtel();
    const monitor = createMonitor({ env: ENV, scoring: { backend: "offline" }, sampling: { default: 1 }, calibrationFile: path, drift: { windowSize: 20, minScores: 20 }, tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider, loggerProvider: otel.loggerProvider });
    onTestFinished(() => monitor.shutdown(1000));
    for (let i = 0; i < 20; i++) monitor.observe({ route: "/poor", ...GOOD });
    await monitor.flush();
    const [d] = (await otel.metrics()).get(METRICS.driftStatistic.name) ?? [];
    expect(d).toMatchObject({ attributes: { "groundwatch.route": "/poor" }, value: 1 });
  });

  it.each([
    ["mixed_set", 4, "the set mixes answers from production review with 4 rows of another labelled set"],
    ["no_sample_rate", 9, "9 rows from production review do not say their route and the rate they were sampled at (exported by an older groundwatch)"],
    ["selected_by_label", 12, "the set was exported for its labels (review export --only disagreements: 12 rows)"],
  ] as const)("refuses a set whose rows cannot stand for live traffic (%s): said through diag, on the banner and by doctor, and counted", async (reason, rows, why) => {
    const path = reviewCalibration({ refused: { reason, rows } });
    const resolved = resolveMonitorOptions({ env: ENV, calibrationFile: path, scoring: { backend: "offline" } });
    expect(resolved.drift.referenceStatus).toMatchObject({ source: "none", refused: { reason } });
    const warnings = captureWarnings();
    const otel = testOtel();
    const monitor = createMonitor({ env: ENV, scoring: { backend: "offline" }, calibrationFile: path, tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider, loggerProvider: otel.loggerProvider });
    onTestFinished(() => monitor.shutdown(1000));
    expect(warnings.find((w) => w.startsWith("groundwatch: drift runs without a reference"))).toContain(`the calibration's reference is refused: ${why}`);
    expect((await otel.metrics()).get(METRICS.driftReferenceRefused.name)).toEqual([{ attributes: { "groundwatch.reason": reason }, value: 1 }]);
    const banner = startupBanner({ url: "http://127.0.0.1:4319", collector: resolveCollectorOptions({ env: ENV }), monitor: resolved, env: ENV, logEvaluations: false });
    expect(banner).toMatch(new RegExp(`drift +no reference — REFUSED, the calibration's reference is refused: ${why.replace(/[().]/g, "\\$&")}`));
    const doctor = await runCli(["doctor", "--backend", "offline", "--calibration", path]);
    expect(doctor.stdout).toContain(`[WARN] drift reference    refused: the calibration's reference is refused: ${why}`);
  });

  it("is said per route on serve's banner and by doctor", async () => {
    const path = reviewCalibration({ weighting: "sample_rate", routes: [{ route: "/a", scores: [...Array.from({ length: 30 }, (_, i) => i / 100), ...Array.from({ length: 20 }, (_, i) => 0.6 + i / 100)], weights: [...Array.from({ length: 30 }, () => 1), ...Array.from({ length: 20 }, () => 20)] }, route("/b", 0.5, 8)] });
    const monitor = resolveMonitorOptions({ env: ENV, calibrationFile: path, scoring: { backend: "offline" } });
    const banner = startupBanner({ url: "http://127.0.0.1:4319", collector: resolveCollectorOptions({ env: ENV }), monitor, env: ENV, logEvaluations: false });
    const line = "reference per route from the calibration, weighted by the rates its reviewed answers were sampled at (/a: 50 rows, worth 22 answers); too few to stand for their traffic, so their first 200 scores become their reference: /b: 8 rows, worth 8 answers";
    expect(banner).toContain(`  drift        ${line}\n`);
    const doctor = await runCli(["doctor", "--backend", "offline", "--calibration", path]);
    expect(doctor.stdout).toContain(`[WARN] drift reference    ${line}`);
  });
});
