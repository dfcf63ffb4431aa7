import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/errors.ts";
import { loadConfigFile } from "../../src/config/file.ts";
import { resolveScoreOptions } from "../../src/config/score-options.ts";
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
    expect(() => resolveScoreOptions({}, { env: { GROUNDWATCH_TOKEN_BUDGET: "lots" } })).toThrow('invalid GROUNDWATCH_TOKEN_BUDGET: "lots" (expected a number)');
    expect(() => resolveScoreOptions({}, { file: { topK: 2.5 } })).toThrow("invalid config file topK: 2.5");
    expect(() => resolveScoreOptions({ backend: " " })).toThrow("invalid backend");
    expect(() => resolveScoreOptions({}, { env: { GROUNDWATCH_REQUIRE_PRODUCTION: "maybe" } })).toThrow('invalid GROUNDWATCH_REQUIRE_PRODUCTION: "maybe" (expected true or false)');
    expect(() => resolveScoreOptions({ variant: "int4" })).toThrow('invalid variant: "int4" (expected one of quantized, fp32)');
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
