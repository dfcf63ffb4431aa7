import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HubError, fetchRepoListing, pullModel, readSavedListing } from "../../src/nli/hub/pull.ts";
import type { OnnxEngine } from "../../src/nli/onnx/engine.ts";
import { createOnnxEngine } from "../../src/nli/onnx/engine.ts";
import type { CpuFeatures } from "../../src/nli/onnx/variants.ts";
import { tempDir } from "../helpers/cli.ts";
import type { GraphKind, LayoutRepo } from "../helpers/hub-layouts.ts";
import { CPUS, CROSS_ENCODER, LAYOUTS, OPTIMUM, TOLERANCE, TRANSFORMERS_JS, graphReference } from "../helpers/hub-layouts.ts";
import { HUB_SHA, startHubServer } from "../helpers/hub-server.ts";
import { resolveHubSettings } from "../../src/config/hub.ts";

/** Every file under `dir`, relative. */
function tree(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => !e.isDirectory())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

const engines: OnnxEngine[] = [];
afterAll(async () => {
  await Promise.all(engines.map((e) => e.close()));
});

/**
 * Pulls `variant` of `layout` for `cpu` from a local hub, checks that exactly one graph was
 * asked for and written (plus the tokenizer and config files), loads it and compares its
 * logits with the numpy reference of the network that graph name serves.
 */
async function pullAndCheck(layout: LayoutRepo, variant: string, cpu: CpuFeatures, expected: string): Promise<void> {
  const server = await startHubServer({ files: layout.files, repo: layout.repo });
  const home = tempDir();
  const result = await pullModel({ repo: layout.repo, variant, cpu, hub: resolveHubSettings({ HF_HOME: home, HF_ENDPOINT: server.url }) });
  expect(result.choice.graph.path).toBe(expected);
  const fetched = server.requests.filter((r) => r.path.includes("/resolve/")).map((r) => r.path.slice(`/${layout.repo}/resolve/${HUB_SHA}/`.length));
  expect(fetched.filter((f) => f.endsWith(".onnx"))).toEqual([expected]);
  expect(fetched.sort()).toEqual([...layout.support, expected].sort());
  expect(result.files.map((f) => f.path).sort()).toEqual([...layout.support, expected].sort());
  expect(tree(result.dir).filter((f) => f.endsWith(".onnx"))).toEqual([expected]);
  // Loading what was pulled: the snapshot holds one graph, which the same variant names again.
  const engine = await createOnnxEngine({ dir: result.dir, variant, cpu, threads: 1, minHypothesisTokens: graphReference(layout.base).minHypothesis });
  engines.push(engine);
  expect(engine.info.graph).toBe(expected);
  const kind = layout.graphs.get(expected) as GraphKind;
  const pair = graphReference(layout.base).pairs[1];
  if (!pair) throw new Error("no reference pair");
  const { logits } = await engine.logits([pair]);
  (logits[0] ?? []).forEach((x, k) => expect(Math.abs(x - (pair.logits[kind][k] ?? NaN)), `${expected} logit ${k}`).toBeLessThan(TOLERANCE[kind]));
}

describe("model pull fetches exactly one graph of each layout", () => {
  it.each([
    ["avx512_vnni", "onnx/model_qint8_avx512_vnni.onnx"],
    ["avx512", "onnx/model_qint8_avx512.onnx"],
    ["avx2", "onnx/model_quint8_avx2.onnx"],
    ["arm64", "onnx/model_qint8_arm64.onnx"],
    ["none", "onnx/model.onnx"],
  ] as const)("cross-encoder/nli-deberta-v3-xsmall, auto on %s: %s", async (cpu, expected) => {
    await pullAndCheck(CROSS_ENCODER, "auto", CPUS[cpu], expected);
  });

  it.each(["avx512_vnni", "avx2", "arm64", "none"] as const)("Xenova/nli-deberta-v3-xsmall, auto on %s: onnx/model_quantized.onnx", async (cpu) => {
    await pullAndCheck(TRANSFORMERS_JS, "auto", CPUS[cpu], "onnx/model_quantized.onnx");
  });

  it.each(["avx512_vnni", "arm64", "none"] as const)("the optimum layout, auto on %s: model_quantized.onnx at the root", async (cpu) => {
    await pullAndCheck(OPTIMUM, "auto", CPUS[cpu], "model_quantized.onnx");
  });

  it.each([
    [CROSS_ENCODER, "fp32", "onnx/model.onnx"],
    [CROSS_ENCODER, "int8", "onnx/model_qint8_avx512_vnni.onnx"],
    [CROSS_ENCODER, "quantized", "onnx/model_qint8_avx512_vnni.onnx"],
    [TRANSFORMERS_JS, "fp32", "onnx/model.onnx"],
    [TRANSFORMERS_JS, "int8", "onnx/model_quantized.onnx"],
    [TRANSFORMERS_JS, "quantized", "onnx/model_quantized.onnx"],
    [OPTIMUM, "fp32", "model.onnx"],
    [OPTIMUM, "int8", "model_quantized.onnx"],
  ] as const)("$repo --variant %s: %s", async (layout, variant, expected) => {
    await pullAndCheck(layout, variant, CPUS.avx512_vnni, expected);
  });

  const named = LAYOUTS.flatMap((layout) => [...layout.graphs.keys()].map((path) => [layout.repo, path, layout] as const));
  it.each(named)("%s --variant %s (named exactly)", async (_repo, path, layout) => {
    await pullAndCheck(layout, path, CPUS.none, path);
  });
});

describe("model pull refuses what the CPU provider does not run, asking for nothing", () => {
  it.each([
    [TRANSFORMERS_JS, "fp16", /fp16 graphs are not run on the CPU execution provider.*--variant onnx\/model_fp16\.onnx/],
    [CROSS_ENCODER, "fp16", /fp16 graphs are not run on the CPU execution provider.*--variant onnx\/model_O4\.onnx/],
    [TRANSFORMERS_JS, "q4", /4-bit graphs \(q4, q4f16, bnb4\) are not run on the CPU execution provider unless named/],
    [OPTIMUM, "onnx/model_fp16.onnx", /test-org\/minilm-nli-optimum@main has no graph onnx\/model_fp16\.onnx; its graphs: model\.onnx, model_quantized\.onnx/],
  ] as const)("$repo --variant %s", async (layout, variant, message) => {
    const server = await startHubServer({ files: layout.files, repo: layout.repo });
    const failure = await pullModel({ repo: layout.repo, variant, cpu: CPUS.avx2, hub: resolveHubSettings({ HF_HOME: tempDir(), HF_ENDPOINT: server.url }) }).catch((e: unknown) => e);
    expect(failure).toMatchObject({ name: "ConfigError", field: "variant" });
    expect((failure as Error).message).toMatch(message);
    expect(server.requests.filter((r) => r.path.includes("/resolve/"))).toEqual([]);
  });

  it("names a repository with no ONNX graph as one it cannot load", async () => {
    const files = new Map([...OPTIMUM.files].filter(([path]) => !path.endsWith(".onnx")));
    const server = await startHubServer({ files, repo: OPTIMUM.repo });
    const failure = await pullModel({ repo: OPTIMUM.repo, cpu: CPUS.avx2, hub: resolveHubSettings({ HF_HOME: tempDir(), HF_ENDPOINT: server.url }) }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(HubError);
    expect((failure as Error).message).toMatch(/^test-org\/minilm-nli-optimum@main has no ONNX graph .*: not a model groundwatch can load$/);
  });
});

describe("model pull with an external data file", () => {
  it("fetches the graph's _data file beside it", async () => {
    const files = new Map(OPTIMUM.files);
    files.set("model.onnx_data", "external weights");
    const server = await startHubServer({ files, repo: OPTIMUM.repo });
    const result = await pullModel({ repo: OPTIMUM.repo, variant: "fp32", cpu: CPUS.avx2, hub: resolveHubSettings({ HF_HOME: tempDir(), HF_ENDPOINT: server.url }) });
    expect(result.files.map((f) => f.path)).toEqual(["config.json", "tokenizer.json", "model.onnx", "model.onnx_data"]);
  });
});

describe("the listing of a repository", () => {
  it("lists every graph with its size, from the hub and as saved beside a pull", async () => {
    const server = await startHubServer({ files: CROSS_ENCODER.files, repo: CROSS_ENCODER.repo });
    const env = { HF_HOME: tempDir(), HF_ENDPOINT: server.url };
    const listing = await fetchRepoListing({ repo: CROSS_ENCODER.repo, hub: resolveHubSettings(env) });
    const expected = [...CROSS_ENCODER.graphs.keys()].map((path) => ({ path, bytes: Buffer.byteLength(CROSS_ENCODER.files.get(path) ?? "") }));
    expect(listing.graphs.map((g) => ({ path: g.path, bytes: g.bytes }))).toEqual(expected);
    expect(listing.sha).toBe(HUB_SHA);
    const pulled = await pullModel({ repo: CROSS_ENCODER.repo, cpu: CPUS.avx2, hub: resolveHubSettings(env) });
    expect(readSavedListing(pulled.dir)).toEqual({ repo: CROSS_ENCODER.repo, sha: HUB_SHA, graphs: listing.graphs });
  });
});
