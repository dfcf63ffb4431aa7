import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/errors.ts";
import { resolveBackendSettings } from "../../src/config/hub.ts";
import { resolveMonitorOptions, scoringWorkerData } from "../../src/sdk/options.ts";
import { cacheWithDefaultModel, tempDir } from "../helpers/cli.ts";
import { predictBackend } from "../../src/nli/registry.ts";

const configFile = (content: unknown): string => {
  const path = join(tempDir(), "gw.json");
  writeFileSync(path, JSON.stringify(content));
  return path;
};

const calibrationFile = (threshold: number): string => {
  const path = join(tempDir(), "calibration.json");
  writeFileSync(path, JSON.stringify({ threshold, referenceScores: [0.9, 0.8] }));
  return path;
};

describe("monitor options read booleans as every other option does", () => {
  // Issue 26: GROUNDWATCH_REQUIRE_PRODUCTION=yes was accepted, GROUNDWATCH_CAPTURE_CONTENT=yes a ConfigError.
  it("accepts GROUNDWATCH_CAPTURE_CONTENT=yes like GROUNDWATCH_REQUIRE_PRODUCTION=yes", () => {
    const resolved = resolveMonitorOptions({ env: { GROUNDWATCH_CAPTURE_CONTENT: "yes", GROUNDWATCH_REQUIRE_PRODUCTION: "yes" } });
    expect(resolved.captureContent).toBe(true);
    expect(resolved.score.requireProduction).toBe(true);
    expect(resolveMonitorOptions({ env: { GROUNDWATCH_CAPTURE_CONTENT: " Off " } }).captureContent).toBe(false);
    expect(() => resolveMonitorOptions({ env: { GROUNDWATCH_CAPTURE_CONTENT: "maybe" } })).toThrow('invalid GROUNDWATCH_CAPTURE_CONTENT: "maybe" (expected true or false)');
  });
});

describe("config-file errors name the section and the key", () => {
  // Issue 26: "config file topK" for the scoring section but "config file collector.port" for the collector's.
  it.each([
    [{ scoring: { topK: 2.5 } }, "invalid config file scoring.topK: 2.5"],
    [{ monitor: { queueSize: 0 } }, "invalid config file monitor.queueSize: 0"],
    [{ monitor: { captureContent: "maybe" } }, 'invalid config file monitor.captureContent: "maybe"'],
    [{ sampling: { default: 2 } }, "invalid config file sampling.default: 2"],
  ])("for %j", (content, message) => {
    expect(() => resolveMonitorOptions({ env: {}, configFile: configFile(content) })).toThrow(message);
  });
});

describe("the threshold's source is the resolver's", () => {
  it("reports option, env, config file, calibration and default as the resolver picks them", () => {
    const cal = calibrationFile(0.42);
    expect(resolveMonitorOptions({ env: {}, scoring: { threshold: 0.3 }, calibrationFile: cal })).toMatchObject({ thresholdSource: "option", score: { threshold: 0.3 } });
    expect(resolveMonitorOptions({ env: { GROUNDWATCH_THRESHOLD: "0.6" }, calibrationFile: cal })).toMatchObject({ thresholdSource: "env", score: { threshold: 0.6 } });
    expect(resolveMonitorOptions({ env: {}, configFile: configFile({ scoring: { threshold: 0.7 } }), calibrationFile: cal })).toMatchObject({ thresholdSource: "config", score: { threshold: 0.7 } });
    expect(resolveMonitorOptions({ env: {}, calibrationFile: cal })).toMatchObject({ thresholdSource: "calibration", score: { threshold: 0.42 } });
    expect(resolveMonitorOptions({ env: {} })).toMatchObject({ thresholdSource: "default", score: { threshold: undefined } });
  });

  // Issue 26: the monitor peeked at GROUNDWATCH_THRESHOLD ("  " is set, so "env") while the resolver
  // read the same value another way (a ConfigError): a blank variable is unset, for both.
  it("treats a blank GROUNDWATCH_THRESHOLD as unset: the calibration's threshold applies", () => {
    const resolved = resolveMonitorOptions({ env: { GROUNDWATCH_THRESHOLD: "  " }, calibrationFile: calibrationFile(0.42) });
    expect(resolved.thresholdSource).toBe("calibration");
    expect(resolved.score.threshold).toBe(0.42);
  });
});

describe("scoring workers", () => {
  it("receive the resolved options and the backend's settings as values, not the process environment", () => {
    const env = { GROUNDWATCH_JUDGE_API_KEY: "sk-judge", HF_HOME: "/models", DATABASE_PASSWORD: "hunter2", GROUNDWATCH_TOKEN: "collector-secret", GROUNDWATCH_TOP_K: "5", PATH: "/usr/bin" };
    const resolved = resolveMonitorOptions({ env });
    const data = scoringWorkerData(resolved, resolveBackendSettings(env));
    expect(data.settings).toEqual({ hubCacheDir: join("/models", "hub"), judgeApiKey: "sk-judge" });
    expect(data.score.topK).toBe(5);
    expect(JSON.stringify(data)).not.toContain("hunter2");
    expect(JSON.stringify(data)).not.toContain("collector-secret");
    expect(JSON.stringify(data)).not.toContain("/usr/bin");
  });
});

describe("time budget per observation", () => {
  it("defaults to 30 s, and to 120 s when scoring uses the onnx backend, so an observation at the entailment budget fits well inside it", () => {
    expect(resolveMonitorOptions({ env: { HF_HOME: tempDir() } }).timeoutMs).toBe(30_000);
    expect(resolveMonitorOptions({ env: {}, scoring: { backend: "offline", model: "/m" } }).timeoutMs).toBe(30_000);
    expect(resolveMonitorOptions({ env: {}, scoring: { backend: "onnx" } }).timeoutMs).toBe(120_000);
    expect(resolveMonitorOptions({ env: { GROUNDWATCH_MODEL: "/m" } }).timeoutMs).toBe(120_000);
    expect(resolveMonitorOptions({ env: { GROUNDWATCH_TIMEOUT_MS: "5000" }, scoring: { backend: "onnx" } }).timeoutMs).toBe(5_000);
  });
});

describe("observations in flight per scoring worker", () => {
  it("default to 2, and to 8 when scoring uses the onnx backend (onnx, or auto with a model)", () => {
    expect(resolveMonitorOptions({ env: { HF_HOME: tempDir() } }).inFlightPerWorker).toBe(2);
    expect(resolveMonitorOptions({ env: {}, scoring: { backend: "offline", model: "/m" } }).inFlightPerWorker).toBe(2);
    expect(resolveMonitorOptions({ env: {}, scoring: { backend: "onnx" } }).inFlightPerWorker).toBe(8);
    expect(resolveMonitorOptions({ env: { GROUNDWATCH_MODEL: "/m" } }).inFlightPerWorker).toBe(8);
  });

  it("default to 8, with the onnx time budget, when auto takes the onnx backend because the default model is cached", () => {
    // Regression: the monitor re-derived auto's choice from the model option alone and kept 2 (and 30 s) where the registry loads onnx.
    const env = { HF_HOME: cacheWithDefaultModel(fileURLToPath(new URL("../fixtures/models/bert-wordpiece/", import.meta.url))) };
    expect(predictBackend({ backend: "auto", model: undefined }, resolveBackendSettings(env)).name).toBe("onnx");
    const resolved = resolveMonitorOptions({ env });
    expect(resolved.inFlightPerWorker).toBe(8);
    expect(resolved.timeoutMs).toBe(120_000);
    expect(resolveMonitorOptions({ env, scoring: { backend: "offline" } }).inFlightPerWorker).toBe(2);
  });

  it("are read option > GROUNDWATCH_IN_FLIGHT_PER_WORKER > config file's monitor section", () => {
    const file = configFile({ monitor: { inFlightPerWorker: 4 } });
    const env = { GROUNDWATCH_IN_FLIGHT_PER_WORKER: "16" };
    expect(resolveMonitorOptions({ env, configFile: file, inFlightPerWorker: 3 }).inFlightPerWorker).toBe(3);
    expect(resolveMonitorOptions({ env, configFile: file }).inFlightPerWorker).toBe(16);
    expect(resolveMonitorOptions({ env: {}, configFile: file }).inFlightPerWorker).toBe(4);
  });

  it("throw a ConfigError naming the field for values out of range", () => {
    expect(() => resolveMonitorOptions({ env: {}, inFlightPerWorker: 0 })).toThrow(ConfigError);
    expect(() => resolveMonitorOptions({ env: {}, inFlightPerWorker: 257 })).toThrow(/invalid inFlightPerWorker: 257/);
    expect(() => resolveMonitorOptions({ env: { GROUNDWATCH_IN_FLIGHT_PER_WORKER: "many" } })).toThrow(/invalid GROUNDWATCH_IN_FLIGHT_PER_WORKER/);
    expect(() => resolveMonitorOptions({ env: {}, configFile: configFile({ monitor: { inFlightPerWorker: 1.5 } }) })).toThrow(/invalid config file monitor.inFlightPerWorker: 1.5/);
  });
});

describe("per-route sampling rates from GROUNDWATCH_SAMPLE_ROUTES", () => {
  it("are read by the one rate parser: a route without a rate is an error, not a rate of 0, and a bad rate names the variable", () => {
    // Regression: the env's own parser read "/a=" as Number("") = 0, and an out-of-range rate was reported as sampling.routes["/a"].
    expect(resolveMonitorOptions({ env: { GROUNDWATCH_SAMPLE_ROUTES: "/a/*=1, /b=0.2" } }).sampling.routes).toEqual({ "/a/*": 1, "/b": 0.2 });
    expect(() => resolveMonitorOptions({ env: { GROUNDWATCH_SAMPLE_ROUTES: "/a=" } })).toThrow('invalid GROUNDWATCH_SAMPLE_ROUTES: "/a=" (expected "route=rate,route=rate")');
    expect(() => resolveMonitorOptions({ env: { GROUNDWATCH_SAMPLE_ROUTES: "/a=2" } })).toThrow("invalid GROUNDWATCH_SAMPLE_ROUTES route /a: 2 (expected a sampling rate from 0 to 1)");
  });

  it("come option > env > config file, as the default rate does", () => {
    const file = configFile({ sampling: { default: 0.5, routes: { "/f": 0.3 } } });
    const env = { GROUNDWATCH_SAMPLE_ROUTES: "/e=0.4", GROUNDWATCH_SAMPLE_RATE: "0.6" };
    expect(resolveMonitorOptions({ env, configFile: file, sampling: { default: 0.7, routes: { "/o": 0.1 } } }).sampling).toEqual({ default: 0.7, routes: { "/o": 0.1 } });
    expect(resolveMonitorOptions({ env, configFile: file }).sampling).toEqual({ default: 0.6, routes: { "/e": 0.4 } });
    expect(resolveMonitorOptions({ env: {}, configFile: file }).sampling).toEqual({ default: 0.5, routes: { "/f": 0.3 } });
  });
});

describe("a threshold set blank", () => {
  it("counts as not set: the calibration's threshold applies", () => {
    // Regression: the scoring resolver recorded a blank config-file threshold as set ("config"), so the calibration's threshold was not applied and the backend default scored.
    const cal = calibrationFile(0.42);
    expect(resolveMonitorOptions({ env: {}, configFile: configFile({ scoring: { threshold: " " } }), calibrationFile: cal })).toMatchObject({ thresholdSource: "calibration", score: { threshold: 0.42 } });
  });
});

describe("drift settings", () => {
  it("are read field by field, option > config file's monitor.drift, each checked where it was set", () => {
    // Regression: the file's drift section was taken unchecked, and whole: any drift option hid all of it, and a section that was not an object was ignored.
    const reference = Array.from({ length: 30 }, (_, i) => i / 30);
    const file = configFile({ monitor: { drift: { windowSize: 40, reference } } });
    const resolved = resolveMonitorOptions({ env: {}, configFile: file, drift: { minScores: 25 } });
    expect(resolved.drift).toMatchObject({ windowSize: 40, minScores: 25, reference, referenceStatus: { source: "option", scores: 30 } });
    expect(() => resolveMonitorOptions({ env: {}, configFile: configFile({ monitor: { drift: 50 } }) })).toThrow("invalid config file monitor.drift: 50 (expected an object)");
    expect(() => resolveMonitorOptions({ env: {}, configFile: configFile({ monitor: { drift: { reference: ["high"] } } }) })).toThrow('invalid config file monitor.drift.reference: ["high"] (expected an array of scores from 0 to 1)');
    expect(() => resolveMonitorOptions({ env: {}, configFile: configFile({ monitor: { drift: { windowSize: 5 } } }) })).toThrow("invalid config file monitor.drift.windowSize: 5 (expected an integer from 20 to 100000)");
  });
});
