import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, expect, it, vi } from "vitest";
import { isConfigError } from "../../src/config/errors.ts";
import { resolveBackendSettings, resolveHubSettings } from "../../src/config/hub.ts";
import { resolveScoreOptions } from "../../src/config/score-options.ts";
import { createTextAnalyzer } from "../../src/core/text.ts";
import { createOnnxBackend } from "../../src/nli/onnx/backend.ts";
import { createOnnxEngine } from "../../src/nli/onnx/engine.ts";
import type { OnnxImporter } from "../../src/nli/onnx/runtime.ts";
import { ONNX_RUNTIME_INSTALL, ONNX_RUNTIME_INSTALL_CPU, OnnxRuntimeMissingError, isMissingPackageError, loadOnnxRuntime, onnxRuntimeVersion } from "../../src/nli/onnx/runtime.ts";
import { createBackend, onnxRuntimeNeed, predictBackend } from "../../src/nli/registry.ts";
import { createScorer } from "../../src/sdk/create-scorer.ts";
import { cacheWithDefaultModel } from "../helpers/cli.ts";

const FIXTURE = fileURLToPath(new URL("../fixtures/models/bert-wordpiece/", import.meta.url));
const NO_CACHE = { HF_HOME: "/nonexistent/groundwatch-test-hf-home" };

/** What Node's ESM loader throws when onnxruntime-node is not in node_modules. */
function esmMissing(name = "onnxruntime-node"): Error {
  return Object.assign(new Error(`Cannot find package '${name}' imported from /srv/app/node_modules/groundwatch/dist/nli/onnx/import-runtime.js`), { code: "ERR_MODULE_NOT_FOUND" });
}

/** What require() throws (the CommonJS build) when onnxruntime-node is not in node_modules. */
function cjsMissing(name = "onnxruntime-node"): Error {
  return Object.assign(new Error(`Cannot find module '${name}'\nRequire stack:\n- /srv/app/node_modules/groundwatch/dist/nli/onnx/import-runtime.cjs`), { code: "MODULE_NOT_FOUND" });
}

const failing =
  (error: Error): OnnxImporter =>
  () =>
    Promise.reject(error);


function expectInstallCommands(message: string): void {
  expect(message).toContain("`npm install onnxruntime-node`");
  expect(message).toContain("`ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node`");
}

describe("loadOnnxRuntime", () => {
  it("loads the installed runtime and reports its version", async () => {
    const runtime = await loadOnnxRuntime();
    const installed = (createRequire(import.meta.url)("onnxruntime-node/package.json") as { version: string }).version;
    expect(typeof runtime.InferenceSession.create).toBe("function");
    expect(onnxRuntimeVersion(runtime)).toBe(installed);
  });

  it.each([
    ["ESM", esmMissing()],
    ["CommonJS", cjsMissing()],
  ])("turns a missing onnxruntime-node (%s) into a ConfigError naming both install commands", async (_kind, error) => {
    const failure = await loadOnnxRuntime(failing(error)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OnnxRuntimeMissingError);
    expect(isConfigError(failure)).toBe(true);
    expect((failure as Error).message).toBe(
      'invalid backend: "onnx" (the onnx backend needs onnxruntime-node, an optional peer dependency that is not installed: install it with `npm install onnxruntime-node`, or on CPU-only machines and where only the npm registry is reachable, `ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node`)',
    );
  });

  it("keeps the original error when another module is missing (a broken install), prefixed with what was loading", async () => {
    const original = esmMissing("onnxruntime-common");
    const failure = await loadOnnxRuntime(failing(original)).catch((e: unknown) => e);
    expect(failure).not.toBeInstanceOf(OnnxRuntimeMissingError);
    expect(isConfigError(failure)).toBe(false);
    expect((failure as Error).message).toBe(`onnx backend: cannot load onnxruntime-node: ${original.message}`);
    expect((failure as Error).cause).toBe(original);
  });

  it("keeps a native binary's load failure as its own message", async () => {
    const original = new Error("libonnxruntime.so.1: cannot open shared object file: No such file or directory");
    await expect(loadOnnxRuntime(failing(original))).rejects.toThrow("onnx backend: cannot load onnxruntime-node: libonnxruntime.so.1: cannot open shared object file");
  });

  it("does not mistake a missing file inside onnxruntime-node for the package being absent", async () => {
    const original = Object.assign(new Error("Cannot find module '/srv/app/node_modules/onnxruntime-node/dist/index.js' imported from /srv/app/x.js"), { code: "ERR_MODULE_NOT_FOUND" });
    await expect(loadOnnxRuntime(failing(original))).rejects.not.toBeInstanceOf(OnnxRuntimeMissingError);
  });

  it("accepts a module whose exports sit on default (CommonJS through import())", async () => {
    const real = await loadOnnxRuntime();
    await expect(loadOnnxRuntime(() => Promise.resolve({ default: real }))).resolves.toBe(real);
  });

  it("names an incompatible module", async () => {
    await expect(loadOnnxRuntime(() => Promise.resolve({ version: "0.1" }))).rejects.toThrow("onnx backend: cannot load onnxruntime-node: the module has no InferenceSession.create or Tensor");
  });
});

describe("isMissingPackageError on Node's own errors", () => {
  it("recognises what import() and require() really throw for an absent package, and only for that name", async () => {
    const name = "groundwatch-test-no-such-package";
    const esm = await import(/* @vite-ignore */ name).catch((e: unknown) => e);
    let cjs: unknown;
    try {
      createRequire(import.meta.url)(name);
    } catch (error) {
      cjs = error;
    }
    expect(isMissingPackageError(esm, name)).toBe(true);
    expect(isMissingPackageError(cjs, name)).toBe(true);
    expect(isMissingPackageError(esm)).toBe(false);
    expect(isMissingPackageError(cjs)).toBe(false);
  });
});

describe("onnx backend without onnxruntime-node", () => {
  const analyzer = createTextAnalyzer();

  it("fails backend creation with the install commands", async () => {
    await expect(createOnnxBackend({ dir: FIXTURE }, { importOnnxRuntime: failing(esmMissing()) })).rejects.toBeInstanceOf(OnnxRuntimeMissingError);
    await expect(createOnnxEngine({ dir: FIXTURE }, { importOnnxRuntime: failing(esmMissing()) })).rejects.toBeInstanceOf(OnnxRuntimeMissingError);
  });

  it("makes --backend onnx a ConfigError on the backend setting", async () => {
    const failure = await createBackend(resolveScoreOptions({ backend: "onnx", model: FIXTURE }), { analyzer, settings: resolveBackendSettings(NO_CACHE), importOnnxRuntime: failing(esmMissing()) }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OnnxRuntimeMissingError);
    expect(failure).toMatchObject({ field: "backend", value: "onnx" });
    expectInstallCommands((failure as Error).message);
  });

  it("keeps another module's import failure as it was", async () => {
    const original = cjsMissing("onnxruntime-common");
    await expect(createBackend(resolveScoreOptions({ backend: "onnx", model: FIXTURE }), { analyzer, settings: resolveBackendSettings(NO_CACHE), importOnnxRuntime: failing(original) })).rejects.toThrow(`onnx backend: cannot load onnxruntime-node: ${original.message}`);
  });

  it("still names a model that cannot be found before the runtime", async () => {
    await expect(createBackend(resolveScoreOptions({ backend: "onnx", model: "/nonexistent/model" }), { analyzer, settings: resolveBackendSettings(NO_CACHE), importOnnxRuntime: failing(esmMissing()) })).rejects.toThrow(/invalid model: "\/nonexistent\/model"/);
  });

  it("auto with a model configured (option or env) fails with the error, naming the model setting", async () => {
    for (const [options, env] of [
      [{ model: FIXTURE }, NO_CACHE],
      [{}, { ...NO_CACHE, GROUNDWATCH_MODEL: FIXTURE }],
    ] as const) {
      const failure = await createBackend(resolveScoreOptions(options, { env }), { analyzer, settings: resolveBackendSettings(env), importOnnxRuntime: failing(esmMissing()) }).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(OnnxRuntimeMissingError);
      expect(failure).toMatchObject({ field: "model", value: FIXTURE });
      expectInstallCommands((failure as Error).message);
    }
  });

  it("auto with only the default model cached falls back to offline, warning that the runtime is not installed", async () => {
    const env = { HF_HOME: cacheWithDefaultModel(FIXTURE) };
    const created = await createBackend(resolveScoreOptions({}, { env }), { analyzer, settings: resolveBackendSettings(env), importOnnxRuntime: failing(esmMissing()) });
    try {
      expect(created.backend).toMatchObject({ name: "offline", tier: "triage" });
      expect(created.warnings).toHaveLength(1);
      expect(created.warnings[0]).toContain("the ONNX runtime (onnxruntime-node) is not installed, so the cached Xenova/nli-deberta-v3-xsmall cannot be used");
      expect(created.warnings[0]).toContain("TRIAGE-GRADE");
      expectInstallCommands(created.warnings[0] ?? "");
    } finally {
      await created.backend.close();
    }
  });

  it("auto with only the default model cached refuses the fallback under requireProduction, naming the install command", async () => {
    const env = { HF_HOME: cacheWithDefaultModel(FIXTURE) };
    const failure = await createBackend(resolveScoreOptions({ requireProduction: true }, { env }), { analyzer, settings: resolveBackendSettings(env), importOnnxRuntime: failing(esmMissing()) }).catch((e: unknown) => e);
    expect(isConfigError(failure)).toBe(true);
    expect(failure).toMatchObject({ field: "requireProduction" });
    expect((failure as Error).message).toContain("refusing to fall back to the triage-tier offline backend");
    expectInstallCommands((failure as Error).message);
  });

  it("auto with the default model cached and another load failure keeps that failure", async () => {
    const env = { HF_HOME: cacheWithDefaultModel(FIXTURE) };
    await expect(createBackend(resolveScoreOptions({}, { env }), { analyzer, settings: resolveBackendSettings(env), importOnnxRuntime: failing(new Error("bad ELF header")) })).rejects.toThrow("onnx backend: cannot load onnxruntime-node: bad ELF header");
  });

  it("never imports the runtime for the offline backend, or for auto with no model", async () => {
    const importer = vi.fn(failing(esmMissing()));
    for (const options of [{ backend: "offline" }, {}]) {
      const created = await createBackend(resolveScoreOptions(options), { analyzer, settings: resolveBackendSettings(NO_CACHE), importOnnxRuntime: importer });
      expect(created.backend.name).toBe("offline");
      await created.backend.close();
    }
    expect(importer).not.toHaveBeenCalled();
  });

  it("surfaces the error from the SDK's createScorer with scoring backend onnx", async () => {
    const failure = await createScorer({ backend: "onnx", model: FIXTURE }, { env: NO_CACHE, importOnnxRuntime: failing(esmMissing()) }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OnnxRuntimeMissingError);
    expect((failure as Error).message).toContain(ONNX_RUNTIME_INSTALL);
    expect((failure as Error).message).toContain(ONNX_RUNTIME_INSTALL_CPU);
  });
});

describe("onnxRuntimeNeed", () => {
  it("requires the runtime for onnx or a configured model, prefers it for a cached default, and skips it otherwise", () => {
    expect(onnxRuntimeNeed({ backend: "onnx", model: undefined }, resolveHubSettings(NO_CACHE).cacheDir)).toEqual({ need: "required", field: "backend", value: "onnx" });
    expect(onnxRuntimeNeed({ backend: "auto", model: "org/m" }, resolveHubSettings(NO_CACHE).cacheDir)).toEqual({ need: "required", field: "model", value: "org/m" });
    expect(onnxRuntimeNeed({ backend: "auto", model: undefined }, resolveHubSettings({ HF_HOME: cacheWithDefaultModel(FIXTURE) }).cacheDir)).toMatchObject({ need: "preferred" });
    expect(onnxRuntimeNeed({ backend: "auto", model: undefined }, resolveHubSettings(NO_CACHE).cacheDir)).toBeUndefined();
    expect(onnxRuntimeNeed({ backend: "offline", model: "org/m" }, resolveHubSettings(NO_CACHE).cacheDir)).toBeUndefined();
    expect(onnxRuntimeNeed({ backend: "judge", model: undefined }, resolveHubSettings(NO_CACHE).cacheDir)).toBeUndefined();
  });
});

describe("predictBackend", () => {
  const settings = (env: NodeJS.ProcessEnv) => resolveBackendSettings(env);
  it("tells, without loading anything, the backend createBackend creates", async () => {
    const cached = { HF_HOME: cacheWithDefaultModel(FIXTURE) };
    const installed = (): boolean => true;
    const missing = (): boolean => false;
    expect(predictBackend({ backend: "offline", model: undefined }, settings(cached), installed)).toMatchObject({ name: "offline", tier: "triage", auto: false });
    expect(predictBackend({ backend: "judge", model: undefined }, settings(NO_CACHE), installed)).toMatchObject({ name: "judge", tier: "production", auto: false });
    expect(predictBackend({ backend: "onnx", model: "/m" }, settings(NO_CACHE), missing)).toMatchObject({ name: "onnx", auto: false, model: "/m" });
    expect(predictBackend({ backend: "auto", model: "/m" }, settings(NO_CACHE), missing)).toMatchObject({ name: "onnx", auto: true, model: "/m" });
    expect(predictBackend({ backend: "auto", model: undefined }, settings(cached), installed)).toMatchObject({ name: "onnx", auto: true, model: "Xenova/nli-deberta-v3-xsmall", cachedDefault: true });
    expect(predictBackend({ backend: "auto", model: undefined }, settings(cached), missing)).toMatchObject({ name: "offline", auto: true, why: "Xenova/nli-deberta-v3-xsmall is cached but onnxruntime-node is not installed" });
    expect(predictBackend({ backend: "auto", model: undefined }, settings(NO_CACHE), installed)).toMatchObject({ name: "offline", auto: true });
    // The prediction agrees with what createBackend creates from the same options.
    const created = await createBackend(resolveScoreOptions({}, { env: cached }), { analyzer: createTextAnalyzer(), settings: settings(cached), importOnnxRuntime: failing(esmMissing()) });
    try {
      expect(created.backend.name).toBe(predictBackend({ backend: "auto", model: undefined }, settings(cached), missing).name);
    } finally {
      await created.backend.close();
    }
  });
});
