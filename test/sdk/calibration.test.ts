import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DiagLogger } from "@opentelemetry/api";
import { DiagLogLevel, diag } from "@opentelemetry/api";
import { describe, expect, it, onTestFinished } from "vitest";
import type { Monitor } from "../../src/sdk/types.ts";
import { createMonitor } from "../../src/sdk/monitor.ts";
import type { CompletedEvaluation, MonitorOptions } from "../../src/sdk/options.ts";
import { readCalibrationFile } from "../../src/config/calibration-file.ts";
import { resolveMonitorOptions } from "../../src/sdk/options.ts";
import { loadOfflineModel } from "../../src/nli/offline/backend.ts";
import { METRICS } from "../../src/telemetry/semconv.ts";
import { tempDir } from "../helpers/cli.ts";
import type { TestOtel } from "../helpers/otel.ts";
import { testOtel } from "../helpers/otel.ts";

const ENV = { HF_HOME: "/nonexistent/groundwatch-test-hf-home" };
const BAD = { context: ["Returns are accepted within 30 days of delivery for a full refund."], answer: "Returns are accepted within 90 days of delivery." };
const GOOD = { context: ["Returns are accepted within 30 days of delivery for a full refund."], answer: "Returns are accepted within 30 days of delivery." };

/** A calibration.json as `groundwatch calibrate` writes it; `weak` is issue 14's: AUROC 0.667, interval 0.295–1.0, 6 rows. */
function calibrationFile(kind: "weak" | "pass", referenceScores: readonly number[], extra: Record<string, unknown> = {}): string {
  const path = join(tempDir(), `${kind}.json`);
  const auroc = kind === "weak" ? { value: 0.667, low: 0.295, high: 1, continuityCorrected: false } : { value: 0.95, low: 0.88, high: 1, continuityCorrected: false };
  // Fitted with the offline backend that scores here, on a set of the user's own (not a bundled example).
  const backend = { name: "offline", version: loadOfflineModel().version, tier: "triage" };
  const dataset = { path: "labelled.jsonl", rows: referenceScores.length, positives: 3, negatives: 3, unscorable: 0, sha256: "a".repeat(64), bundled: false };
  const record = { version: 1, createdAt: "2026-11-01T00:00:00.000Z", backend, criterion: "youden", threshold: 0.42, dataset, auroc, verdict: kind, labelsToSettle: kind === "weak" ? 40 : 0, referenceScores, ...extra };
  writeFileSync(path, JSON.stringify(record));
  return path;
}

/** Warnings and errors that reach OpenTelemetry's diag logger during the test. */
function captureDiag(): { warnings: string[]; errors: string[] } {
  const seen = { warnings: [] as string[], errors: [] as string[] };
  const ignore = (): void => undefined;
  const logger: DiagLogger = { error: (m) => seen.errors.push(m), warn: (m) => seen.warnings.push(m), info: ignore, debug: ignore, verbose: ignore };
  diag.setLogger(logger, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
  onTestFinished(() => diag.disable());
  return seen;
}

function monitorWith(otel: TestOtel, extra: MonitorOptions): Monitor {
  const monitor = createMonitor({ env: ENV, scoring: { backend: "offline" }, sampling: { default: 1 }, tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider, loggerProvider: otel.loggerProvider, ...extra });
  onTestFinished(() => monitor.shutdown(1000));
  return monitor;
}

const SIX = [0.1, 0.2, 0.3, 0.6, 0.7, 0.8];
const high = (n: number): number[] => Array.from({ length: n }, () => 0.99);

describe("a calibration that did not pass", () => {
  it("is read with its verdict and interval, and its threshold still applies", () => {
    const path = calibrationFile("weak", SIX);
    expect(readCalibrationFile(path)).toMatchObject({ path, verdict: "weak", auroc: { value: 0.667, low: 0.295, high: 1 }, rows: 6, labelsToSettle: 40 });
    const resolved = resolveMonitorOptions({ env: {}, calibrationFile: path });
    expect(resolved.score.threshold).toBe(0.42);
    expect(resolved.thresholdSource).toBe("calibration");
  });

  it("takes the verdict from the interval, not from a hand-edited \"verdict\"", () => {
    const path = calibrationFile("weak", SIX, { verdict: "pass" });
    expect(readCalibrationFile(path).verdict).toBe("weak");
  });

  it("makes createMonitor warn through diag, naming the verdict, the interval and what to do", () => {
    const seen = captureDiag();
    const path = calibrationFile("weak", high(25));
    const monitor = createMonitor({ env: ENV, scoring: { backend: "offline" }, calibrationFile: path });
    onTestFinished(() => monitor.shutdown(1000));
    const warning = seen.warnings.find((w) => w.includes("failed (verdict weak"));
    expect(warning).toContain(`the calibration ${path} failed (verdict weak, AUROC 0.667)`);
    expect(warning).toContain("interval (0.295–1.000) includes 0.5");
    expect(warning).toContain("Its threshold 0.42 is applied but is not trustworthy");
    expect(warning).toContain("about 40 more labelled rows would settle it");
  });

  it("says the threshold is not applied when one is set explicitly", () => {
    const seen = captureDiag();
    const monitor = createMonitor({ env: { ...ENV, GROUNDWATCH_THRESHOLD: "0.3" }, scoring: { backend: "offline" }, calibrationFile: calibrationFile("weak", high(25)) });
    onTestFinished(() => monitor.shutdown(1000));
    expect(seen.warnings.some((w) => w.includes("failed (verdict weak") && w.includes("Its threshold is not applied (one is set explicitly)"))).toBe(true);
  });

  it("is refused with requireValidCalibration (option or environment), naming the verdict and interval", () => {
    const path = calibrationFile("weak", high(25));
    expect(() => resolveMonitorOptions({ env: {}, calibrationFile: path, requireValidCalibration: true })).toThrow(/invalid calibrationFile: .*its verdict is weak \(AUROC 0\.667, 95% interval 0\.295–1\.000\), and requireValidCalibration is set/);
    expect(() => createMonitor({ env: { ...ENV, GROUNDWATCH_REQUIRE_VALID_CALIBRATION: "1" }, calibrationFile: path })).toThrow("its verdict is weak");
    // A passing one is accepted either way, and says nothing.
    const seen = captureDiag();
    const monitor = createMonitor({ env: ENV, scoring: { backend: "offline" }, calibrationFile: calibrationFile("pass", high(25)), requireValidCalibration: true });
    onTestFinished(() => monitor.shutdown(1000));
    expect(seen.warnings.filter((w) => w.includes("calibration"))).toEqual([]);
  });
});

describe("the calibration as the drift reference", () => {
  it("is refused below drift.minScores: no reference, said in the resolved options and through diag", () => {
    const path = calibrationFile("pass", SIX);
    const resolved = resolveMonitorOptions({ env: {}, calibrationFile: path });
    expect(resolved.drift.reference).toBeUndefined();
    expect(resolved.drift.referenceStatus).toMatchObject({ source: "none", refused: { reason: "too_few_scores", scores: 6, minScores: 20 } });
    // Its threshold still applies: only the drift reference is refused.
    expect(resolved.score.threshold).toBe(0.42);
    const seen = captureDiag();
    const monitor = createMonitor({ env: ENV, scoring: { backend: "offline" }, calibrationFile: path });
    onTestFinished(() => monitor.shutdown(1000));
    expect(seen.warnings).toContain("groundwatch: drift runs without a reference: the calibration has 6 reference scores, fewer than drift.minScores (20); each route's first 200 scores become its reference instead.");
  });

  it("is used from drift.minScores up, and a raised minScores refuses it again", () => {
    const path = calibrationFile("pass", high(20));
    expect(resolveMonitorOptions({ env: {}, calibrationFile: path }).drift.referenceStatus).toEqual({ source: "calibration", scores: 20 });
    expect(resolveMonitorOptions({ env: {}, calibrationFile: path, drift: { minScores: 30 } }).drift.referenceStatus).toMatchObject({ source: "none", refused: { reason: "too_few_scores", scores: 20, minScores: 30 } });
  });

  it("an explicit drift.reference shorter than minScores is a ConfigError", () => {
    expect(() => resolveMonitorOptions({ env: {}, drift: { reference: SIX } })).toThrow("invalid drift.reference length: 6 (expected at least drift.minScores (20) scores)");
  });

  it("drift with a refused reference waits for a route's own first window; with an accepted one it reports at once", async () => {
    const refused = testOtel();
    const withRefused = monitorWith(refused, { calibrationFile: calibrationFile("pass", high(6)), drift: { windowSize: 20, minScores: 20 } });
    const accepted = testOtel();
    const withAccepted = monitorWith(accepted, { calibrationFile: calibrationFile("pass", high(20)), drift: { windowSize: 20, minScores: 20 } });
    for (let i = 0; i < 25; i++) {
      withRefused.observe({ route: "/r", ...BAD });
      withAccepted.observe({ route: "/r", ...BAD });
    }
    await Promise.all([withRefused.flush(), withAccepted.flush()]);
    // Refused: the first 20 scores became the reference and 5 recent ones are too few for a verdict.
    expect((await refused.metrics()).get(METRICS.driftStatistic.name)).toBeUndefined();
    // Accepted: 20 low scores against a reference of 0.99s.
    expect((await accepted.metrics()).get(METRICS.driftStatistic.name)?.[0]).toMatchObject({ attributes: { "groundwatch.route": "/r" }, value: 1 });
  });
});

describe("onEvaluation", () => {
  it("gets each completed evaluation without user text, even with content capture on", async () => {
    const otel = testOtel();
    const seen: CompletedEvaluation[] = [];
    const monitor = monitorWith(otel, { captureContent: true, onEvaluation: (e) => seen.push(e) });
    monitor.observe({ route: "/ask", ...GOOD });
    monitor.observe({ route: "/ask", ...BAD });
    monitor.observe({ route: "/ask", context: GOOD.context, answer: "I don't know." });
    await monitor.flush();
    expect(seen.map((e) => e.result.verdict).sort()).toEqual(["grounded", "ungrounded", "unscorable"]);
    for (const e of seen) {
      expect(e.route).toBe("/ask");
      expect(e.durationMs).toBeGreaterThanOrEqual(0);
      expect(e.result).not.toHaveProperty("content");
      expect(JSON.stringify(e)).not.toContain("90 days");
    }
    expect(seen.find((e) => e.result.verdict === "ungrounded")?.result.claims).toMatchObject({ contradicted: 1 });
    expect(seen.find((e) => e.result.verdict === "unscorable")?.result.reason).toBe("no_checkable_claims");
  });

  it("a callback that throws or rejects changes nothing: scored, reported once", async () => {
    const errors = captureDiag().errors;
    const otel = testOtel();
    const throwing = monitorWith(otel, {
      onEvaluation: () => {
        throw new Error("host bug");
      },
    });
    // A host may pass an async callback anyway: its rejection must not become an unhandled one.
    // eslint-disable-next-line @typescript-eslint/no-misused-promises
    const rejecting = monitorWith(testOtel(), { onEvaluation: () => Promise.reject(new Error("async host bug")) });
    for (let i = 0; i < 3; i++) {
      throwing.observe({ route: "/ask", ...GOOD });
      rejecting.observe({ route: "/ask", ...GOOD });
    }
    await Promise.all([throwing.flush(), rejecting.flush()]);
    await new Promise((r) => setImmediate(r));
    expect(throwing.stats()).toMatchObject({ scored: 3, failed: {} });
    expect(rejecting.stats()).toMatchObject({ scored: 3, failed: {} });
    expect(errors.filter((e) => e.includes("onEvaluation callback threw (host bug)"))).toHaveLength(1);
    expect(errors.filter((e) => e.includes("onEvaluation callback threw (async host bug)"))).toHaveLength(1);
  });
});

describe("where the threshold comes from", () => {
  it("option, environment, config file, calibration, backend default", () => {
    const cal = calibrationFile("pass", high(20));
    const config = join(tempDir(), "groundwatch.json");
    writeFileSync(config, JSON.stringify({ scoring: { threshold: 0.7 } }));
    expect(resolveMonitorOptions({ env: {} }).thresholdSource).toBe("default");
    expect(resolveMonitorOptions({ env: {}, calibrationFile: cal }).thresholdSource).toBe("calibration");
    expect(resolveMonitorOptions({ env: { GROUNDWATCH_THRESHOLD: "0.3" }, calibrationFile: cal }).thresholdSource).toBe("env");
    expect(resolveMonitorOptions({ env: {}, configFile: config, calibrationFile: cal })).toMatchObject({ thresholdSource: "config", score: { threshold: 0.7 } });
    // The environment outranks the config file (option > env > file > default).
    expect(resolveMonitorOptions({ env: { GROUNDWATCH_THRESHOLD: "0.3" }, configFile: config }).thresholdSource).toBe("env");
    expect(resolveMonitorOptions({ env: {}, configFile: config, calibrationFile: cal, scoring: { threshold: 0.2 } })).toMatchObject({ thresholdSource: "option", score: { threshold: 0.2 } });
  });

  it("scores with the environment's threshold over the config file's (regression: the file's scoring section was merged into the options)", async () => {
    const config = join(tempDir(), "groundwatch.json");
    writeFileSync(config, JSON.stringify({ scoring: { threshold: 0.99 } }));
    const otel = testOtel();
    const monitor = monitorWith(otel, { env: { ...ENV, GROUNDWATCH_THRESHOLD: "0.01" }, configFile: config, sampling: { default: 1 } });
    monitor.observe({ route: "/r", ...GOOD });
    await monitor.flush();
    const event = otel.logs.getFinishedLogRecords().find((l) => l.eventName === "gen_ai.evaluation.result");
    expect(String(event?.attributes["gen_ai.evaluation.explanation"])).toMatch(/vs threshold 0\.01$/);
  });
});
