import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/errors.ts";
import { loadConfigFile } from "../../src/config/file.ts";
import { DEFAULT_LIMITS } from "../../src/config/defaults.ts";
import { SCORE_ENV, cascadeThresholds, resolveScoreOptions } from "../../src/config/score-options.ts";
import { tempDir } from "../helpers/cli.ts";

describe("resolveScoreOptions", () => {
  it("uses defaults when nothing is set, leaving the threshold to the backend", () => {
    expect(resolveScoreOptions()).toMatchObject({ backend: "auto", model: undefined, requireProduction: false, threshold: undefined, topK: 3, tokenBudget: 400, onnxWorkers: 1, judgeBudget: 1000 });
  });

  it("resolves option > environment > file > default", () => {
    const file = { topK: 4, threshold: 0.2, tokenBudget: 300 };
    const env = { GROUNDWATCH_TOP_K: "6", GROUNDWATCH_THRESHOLD: "0.3" };
    expect(resolveScoreOptions({ topK: 8 }, { env, file })).toMatchObject({ backend: "auto", topK: 8, threshold: 0.3, tokenBudget: 300 });
    expect(resolveScoreOptions({}, { file })).toMatchObject({ topK: 4, threshold: 0.2 });
  });

  it("throws a ConfigError naming the field and the value", () => {
    expect(() => resolveScoreOptions({ threshold: 2 })).toThrow(ConfigError);
    expect(() => resolveScoreOptions({ threshold: 2 })).toThrow("invalid threshold: 2");
    expect(() => resolveScoreOptions({}, { env: { GROUNDWATCH_TOKEN_BUDGET: "lots" } })).toThrow('invalid GROUNDWATCH_TOKEN_BUDGET: "lots" (expected an integer from 16 to 8192)');
    expect(() => resolveScoreOptions({}, { file: { topK: 2.5 } })).toThrow("invalid config file scoring.topK: 2.5");
    expect(() => resolveScoreOptions({ backend: "gpu" })).toThrow('invalid backend: "gpu" (expected one of auto, offline, onnx, judge, spans)');
    expect(() => resolveScoreOptions({}, { env: { GROUNDWATCH_REQUIRE_PRODUCTION: "maybe" } })).toThrow('invalid GROUNDWATCH_REQUIRE_PRODUCTION: "maybe" (expected true or false)');
    expect(() => resolveScoreOptions({ variant: "int4" })).toThrow('invalid variant: "int4" (expected auto, fp32, int8, fp16, q4, quantized');
  });
});

describe("claim-level consistency options", () => {
  it("default to a share of 0.5, reported and not gated on", () => {
    expect(resolveScoreOptions()).toMatchObject({ unstableShare: 0.5, failOnUnstableClaims: false });
  });

  it("are read from GROUNDWATCH_UNSTABLE_SHARE and GROUNDWATCH_FAIL_ON_UNSTABLE_CLAIMS and config files, options first", () => {
    expect(SCORE_ENV).toMatchObject({ unstableShare: "GROUNDWATCH_UNSTABLE_SHARE", failOnUnstableClaims: "GROUNDWATCH_FAIL_ON_UNSTABLE_CLAIMS" });
    const env = { GROUNDWATCH_UNSTABLE_SHARE: "0.3", GROUNDWATCH_FAIL_ON_UNSTABLE_CLAIMS: "true" };
    expect(resolveScoreOptions({}, { env })).toMatchObject({ unstableShare: 0.3, failOnUnstableClaims: true });
    expect(resolveScoreOptions({ unstableShare: 0.8, failOnUnstableClaims: false }, { env })).toMatchObject({ unstableShare: 0.8, failOnUnstableClaims: false });
    expect(resolveScoreOptions({}, { file: { unstableShare: 1, failOnUnstableClaims: true } })).toMatchObject({ unstableShare: 1, failOnUnstableClaims: true });
    expect(resolveScoreOptions({ unstableShare: 0 })).toMatchObject({ unstableShare: 0 });
  });

  it("throw a ConfigError naming the field and the value", () => {
    expect(() => resolveScoreOptions({ unstableShare: 1.5 })).toThrow("invalid unstableShare: 1.5 (expected a number from 0 to 1)");
    expect(() => resolveScoreOptions({}, { env: { GROUNDWATCH_UNSTABLE_SHARE: "half" } })).toThrow('invalid GROUNDWATCH_UNSTABLE_SHARE: "half" (expected a number from 0 to 1)');
    expect(() => resolveScoreOptions({}, { env: { GROUNDWATCH_FAIL_ON_UNSTABLE_CLAIMS: "sometimes" } })).toThrow('invalid GROUNDWATCH_FAIL_ON_UNSTABLE_CLAIMS: "sometimes" (expected true or false)');
    expect(() => resolveScoreOptions({}, { file: { unstableShare: -0.1 } })).toThrow("invalid config file scoring.unstableShare: -0.1");
  });

  it("are accepted in a config file's scoring section", () => {
    const path = join(tempDir(), "gw.yaml");
    writeFileSync(path, "scoring:\n  unstableShare: 0.4\n  failOnUnstableClaims: true\n");
    expect(loadConfigFile(path)).toEqual({ scoring: { unstableShare: 0.4, failOnUnstableClaims: true } });
  });
});

describe("input limits", () => {
  const LIMIT_KEYS = ["maxAnswerChars", "maxContextChars", "maxDocuments", "maxTokenChars", "maxClaims", "maxSamples", "maxEntailmentCalls", "entropyMaxCalls"] as const;

  it("resolve to finite defaults when nothing is set", () => {
    const resolved = resolveScoreOptions();
    for (const key of LIMIT_KEYS) {
      expect(Number.isFinite(resolved[key]), key).toBe(true);
      expect(resolved[key], key).toBe(DEFAULT_LIMITS[key]);
    }
    expect(resolved).toMatchObject({ maxAnswerChars: 20_000, maxContextChars: 200_000, maxDocuments: 200, maxTokenChars: 100, maxClaims: 100, maxSamples: 20, maxEntailmentCalls: 1000, entropyMaxCalls: 500 });
  });

  it("leave room for the default groundedness checks and a full default resample set", () => {
    const r = resolveScoreOptions();
    expect(r.entropyMaxCalls).toBeGreaterThanOrEqual(r.maxSamples * (r.maxSamples - 1));
    expect(r.maxEntailmentCalls).toBeGreaterThanOrEqual(r.maxClaims * r.topK + r.maxSamples * (r.maxSamples - 1));
  });

  it("are read from GROUNDWATCH_MAX_* variables and config files, options first", () => {
    expect(SCORE_ENV).toMatchObject({
      maxAnswerChars: "GROUNDWATCH_MAX_ANSWER_CHARS",
      maxContextChars: "GROUNDWATCH_MAX_CONTEXT_CHARS",
      maxDocuments: "GROUNDWATCH_MAX_DOCUMENTS",
      maxTokenChars: "GROUNDWATCH_MAX_TOKEN_CHARS",
      maxSamples: "GROUNDWATCH_MAX_SAMPLES",
      maxEntailmentCalls: "GROUNDWATCH_MAX_ENTAILMENT_CALLS",
    });
    const env = { GROUNDWATCH_MAX_ANSWER_CHARS: "5000", GROUNDWATCH_MAX_SAMPLES: "8", GROUNDWATCH_MAX_TOKEN_CHARS: "64" };
    expect(resolveScoreOptions({ maxSamples: 4 }, { env, file: { maxDocuments: 7, maxAnswerChars: 9000 } })).toMatchObject({ maxAnswerChars: 5000, maxSamples: 4, maxTokenChars: 64, maxDocuments: 7 });
    expect(resolveScoreOptions().cacheBytes).toBe(32 * 1024 * 1024);
    expect(resolveScoreOptions({}, { env: { GROUNDWATCH_CACHE_BYTES: "0" } }).cacheBytes).toBe(0);
  });

  it.each([
    [{ maxAnswerChars: 0 }, "invalid maxAnswerChars: 0"],
    [{ maxContextChars: 1.5e3 + 0.5 }, "invalid maxContextChars: 1500.5"],
    [{ maxDocuments: -1 }, "invalid maxDocuments: -1"],
    [{ maxTokenChars: 8 }, "invalid maxTokenChars: 8 (expected an integer from 16 to 10000)"],
    [{ maxSamples: 1 }, "invalid maxSamples: 1"],
    [{ maxEntailmentCalls: 0 }, "invalid maxEntailmentCalls: 0"],
    [{ cacheBytes: -1 }, "invalid cacheBytes: -1"],
    [{ entropyMaxCalls: 2_000_000 }, "invalid entropyMaxCalls: 2000000"],
  ])("throw a ConfigError naming the field for %j", (options, message) => {
    expect(() => resolveScoreOptions(options)).toThrow(ConfigError);
    expect(() => resolveScoreOptions(options)).toThrow(message);
  });

  it("name the variable when the environment holds a bad value", () => {
    expect(() => resolveScoreOptions({}, { env: { GROUNDWATCH_MAX_ENTAILMENT_CALLS: "lots" } })).toThrow('invalid GROUNDWATCH_MAX_ENTAILMENT_CALLS: "lots" (expected an integer from 1 to 1000000)');
    expect(() => resolveScoreOptions({}, { env: { GROUNDWATCH_MAX_SAMPLES: "Infinity" } })).toThrow("invalid GROUNDWATCH_MAX_SAMPLES");
    expect(() => resolveScoreOptions({}, { file: { maxContextChars: 10 } })).toThrow("invalid config file scoring.maxContextChars: 10");
  });
});

describe("loadConfigFile", () => {
  it("reads YAML as well as JSON", () => {
    const path = join(tempDir(), "gw.yaml");
    writeFileSync(path, "scoring:\n  topK: 4\nsampling:\n  default: 0.1\n  routes:\n    /api/advice/*: 1\n");
    expect(loadConfigFile(path)).toEqual({ scoring: { topK: 4 }, sampling: { default: 0.1, routes: { "/api/advice/*": 1 } } });
  });

  it("reads the scoring section", () => {
    const path = join(tempDir(), "gw.json");
    writeFileSync(path, JSON.stringify({ scoring: { topK: 5 } }));
    expect(loadConfigFile(path)).toEqual({ scoring: { topK: 5 } });
  });

  it("rejects unknown keys and unreadable files by name", () => {
    const dir = tempDir();
    const typo = join(dir, "typo.json");
    writeFileSync(typo, JSON.stringify({ scoring: { topk: 5 } }));
    expect(() => loadConfigFile(typo)).toThrow("invalid config file scoring.topk: 5");
    const broken = join(dir, "broken.json");
    writeFileSync(broken, "{");
    expect(() => loadConfigFile(broken)).toThrow(/broken\.json.*cannot read it as JSON/);
  });
});

describe("onnx batching options", () => {
  it("default to batches of 32 and a wait bound of 5 ms", () => {
    expect(resolveScoreOptions()).toMatchObject({ onnxMaxBatch: 32, onnxBatchWaitMs: 5 });
  });

  it("are read option > GROUNDWATCH_ONNX_MAX_BATCH / GROUNDWATCH_ONNX_BATCH_WAIT_MS > config file > default", () => {
    expect(SCORE_ENV).toMatchObject({ onnxMaxBatch: "GROUNDWATCH_ONNX_MAX_BATCH", onnxBatchWaitMs: "GROUNDWATCH_ONNX_BATCH_WAIT_MS" });
    const env = { GROUNDWATCH_ONNX_MAX_BATCH: "64", GROUNDWATCH_ONNX_BATCH_WAIT_MS: "2.5" };
    const file = { onnxMaxBatch: 16, onnxBatchWaitMs: 10 };
    expect(resolveScoreOptions({ onnxMaxBatch: 8, onnxBatchWaitMs: 0 }, { env, file })).toMatchObject({ onnxMaxBatch: 8, onnxBatchWaitMs: 0 });
    expect(resolveScoreOptions({}, { env, file })).toMatchObject({ onnxMaxBatch: 64, onnxBatchWaitMs: 2.5 });
    expect(resolveScoreOptions({}, { file })).toMatchObject({ onnxMaxBatch: 16, onnxBatchWaitMs: 10 });
  });

  it("throw a ConfigError naming the field for values out of range", () => {
    expect(() => resolveScoreOptions({ onnxMaxBatch: 0 })).toThrow(ConfigError);
    expect(() => resolveScoreOptions({ onnxMaxBatch: 257 })).toThrow("invalid onnxMaxBatch: 257 (expected an integer from 1 to 256)");
    expect(() => resolveScoreOptions({ onnxMaxBatch: 2.5 })).toThrow("invalid onnxMaxBatch: 2.5");
    expect(() => resolveScoreOptions({}, { env: { GROUNDWATCH_ONNX_BATCH_WAIT_MS: "1001" } })).toThrow("invalid GROUNDWATCH_ONNX_BATCH_WAIT_MS: 1001 (expected a number from 0 to 1000)");
    expect(() => resolveScoreOptions({}, { file: { onnxBatchWaitMs: -1 } })).toThrow("invalid config file scoring.onnxBatchWaitMs: -1");
  });
});

describe("the recipe option", () => {
  it("is read from --recipe (the option), GROUNDWATCH_RECIPE and a config file's scoring.recipe, in that order, and is unset by default", () => {
    expect(SCORE_ENV.recipe).toBe("GROUNDWATCH_RECIPE");
    expect(resolveScoreOptions().recipe).toBeUndefined();
    expect(resolveScoreOptions({}, { file: { recipe: "hhem" } }).recipe).toBe("hhem");
    expect(resolveScoreOptions({}, { env: { GROUNDWATCH_RECIPE: "factcg" }, file: { recipe: "hhem" } }).recipe).toBe("factcg");
    expect(resolveScoreOptions({ recipe: "minicheck-roberta" }, { env: { GROUNDWATCH_RECIPE: "factcg" } }).recipe).toBe("minicheck-roberta");
  });
});

describe("the cascade's options", () => {
  it("are off by default, with thresholds left to a calibration or the defaults that decide nothing", () => {
    expect(resolveScoreOptions()).toMatchObject({ cascade: false, cascadeSupportAbove: undefined, cascadeUnsupportBelow: undefined });
    expect(cascadeThresholds(resolveScoreOptions())).toEqual({ supportAbove: 1, unsupportBelow: 0 });
  });

  it("resolve option > environment > file > default", () => {
    const env = { GROUNDWATCH_CASCADE: "on", GROUNDWATCH_CASCADE_SUPPORT_ABOVE: "0.9", GROUNDWATCH_CASCADE_UNSUPPORT_BELOW: "0.05" };
    const file = { cascade: false, cascadeSupportAbove: 0.8, cascadeUnsupportBelow: 0.1 };
    expect(resolveScoreOptions({}, { file })).toMatchObject({ cascade: false, cascadeSupportAbove: 0.8, cascadeUnsupportBelow: 0.1 });
    expect(resolveScoreOptions({}, { env, file })).toMatchObject({ cascade: true, cascadeSupportAbove: 0.9, cascadeUnsupportBelow: 0.05 });
    expect(resolveScoreOptions({ cascade: false, cascadeSupportAbove: 0.95 }, { env, file })).toMatchObject({ cascade: false, cascadeSupportAbove: 0.95, cascadeUnsupportBelow: 0.05 });
    expect(SCORE_ENV.cascade).toBe("GROUNDWATCH_CASCADE");
  });

  it("throw a ConfigError naming the field for a value out of [0, 1], a non-boolean, or supportAbove not above unsupportBelow", () => {
    expect(() => resolveScoreOptions({ cascadeSupportAbove: 1.5 })).toThrow("invalid cascadeSupportAbove: 1.5 (expected a number from 0 to 1)");
    expect(() => resolveScoreOptions({}, { env: { GROUNDWATCH_CASCADE_UNSUPPORT_BELOW: "-0.1" } })).toThrow("invalid GROUNDWATCH_CASCADE_UNSUPPORT_BELOW: -0.1");
    expect(() => resolveScoreOptions({}, { env: { GROUNDWATCH_CASCADE: "sometimes" } })).toThrow('invalid GROUNDWATCH_CASCADE: "sometimes" (expected true or false)');
    expect(() => resolveScoreOptions({ cascadeSupportAbove: 0.3, cascadeUnsupportBelow: 0.4 })).toThrow(/^invalid cascadeSupportAbove: 0\.3 \(the cascade's support threshold \(0\.3\) must be above its unsupport threshold \(0\.4\)\)$/);
    expect(() => resolveScoreOptions({}, { file: { cascadeUnsupportBelow: 1 } })).toThrow("invalid config file scoring.cascadeUnsupportBelow: 1");
  });
});
