import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { resolveHubSettings } from "../../src/config/hub.ts";
import { TOKENIZER_SOURCE_FILE, readTokenizerSource } from "../../src/nli/hub/borrowed-tokenizer.ts";
import { pullModel } from "../../src/nli/hub/pull.ts";
import type { OnnxEngine } from "../../src/nli/onnx/engine.ts";
import { createOnnxEngine } from "../../src/nli/onnx/engine.ts";
import { runCli, tempDir } from "../helpers/cli.ts";
import { HUB_SHA, startHubServer } from "../helpers/hub-server.ts";

const RECIPES = fileURLToPath(new URL("../fixtures/models/recipes/", import.meta.url));
const read = (...parts: string[]): Buffer => readFileSync(join(RECIPES, ...parts));
const STANDIN = "not a file groundwatch fetches";
const AVX2 = { arch: "x64", flags: ["avx2"] };

/** MiniCheck-Flan-T5 as optimum and transformers.js export it: fp32 and int8 encoder/decoder pairs, and the cached decoders groundwatch does not run. */
function minicheckFiles(): Map<string, Buffer | string> {
  const m = (name: string): Buffer => read("minicheck-flan-t5", "onnx", name);
  return new Map<string, Buffer | string>([
    ["README.md", STANDIN],
    ["config.json", read("minicheck-flan-t5", "config.json")],
    ["generation_config.json", STANDIN],
    ["onnx/decoder_model.onnx", m("decoder_model.onnx")],
    ["onnx/decoder_model_merged.onnx", STANDIN],
    ["onnx/decoder_model_merged_quantized.onnx", STANDIN],
    ["onnx/decoder_model_quantized.onnx", m("decoder_model_quantized.onnx")],
    ["onnx/decoder_with_past_model.onnx", STANDIN],
    ["onnx/encoder_model.onnx", m("encoder_model.onnx")],
    ["onnx/encoder_model_quantized.onnx", m("encoder_model_quantized.onnx")],
    ["special_tokens_map.json", read("minicheck-flan-t5", "special_tokens_map.json")],
    ["spiece.model", STANDIN],
    ["tokenizer.json", read("minicheck-flan-t5", "tokenizer.json")],
    ["tokenizer_config.json", read("minicheck-flan-t5", "tokenizer_config.json")],
  ]);
}

/** vectara/hallucination_evaluation_model with an ONNX graph: config.json as the repository's, no tokenizer. */
function hhemFiles(): Map<string, Buffer | string> {
  return new Map<string, Buffer | string>([
    ["README.md", STANDIN],
    ["config.json", read("hhem", "config.json")],
    ["configuration_hhem_v2.py", STANDIN],
    ["model.safetensors", STANDIN],
    ["modeling_hhem_v2.py", STANDIN],
    ["onnx/model.onnx", read("hhem", "onnx", "model.onnx")],
  ]);
}

/** google/flan-t5-base: the tokenizer files HHEM borrows (the fixture's tiny T5 tokenizer stands for it). */
const FLAN_T5_BASE = {
  repo: "google/flan-t5-base",
  files: new Map<string, Buffer | string>([
    ["config.json", STANDIN],
    ["model.safetensors", STANDIN],
    ["special_tokens_map.json", read("flan-t5-base-tokenizer", "special_tokens_map.json")],
    ["spiece.model", STANDIN],
    ["tokenizer.json", read("flan-t5-base-tokenizer", "tokenizer.json")],
    ["tokenizer_config.json", read("flan-t5-base-tokenizer", "tokenizer_config.json")],
  ]),
};

const fetched = (requests: ReadonlyArray<{ path: string }>, repo: string): string[] => requests.map((r) => r.path).filter((p) => p.startsWith(`/${repo}/resolve/`)).map((p) => p.slice(`/${repo}/resolve/${HUB_SHA}/`.length)).sort();

const engines: OnnxEngine[] = [];
afterAll(async () => {
  await Promise.all(engines.map((e) => e.close()));
});

describe("model pull of a seq2seq export (MiniCheck-Flan-T5)", () => {
  it.each([
    ["auto", "onnx/encoder_model_quantized.onnx", "onnx/decoder_model_quantized.onnx"],
    ["fp32", "onnx/encoder_model.onnx", "onnx/decoder_model.onnx"],
  ])("fetches the %s encoder and its decoder, and nothing of the cached decoders", async (variant, encoder, decoder) => {
    const repo = "lytang/MiniCheck-Flan-T5-Large";
    const server = await startHubServer({ repo, files: minicheckFiles() });
    const result = await pullModel({ repo, variant, cpu: AVX2, hub: resolveHubSettings({ HF_HOME: tempDir(), HF_ENDPOINT: server.url }) });
    expect(result.choice.graph.path).toBe(encoder);
    expect(result.decoder).toBe(decoder);
    expect(fetched(server.requests, repo)).toEqual(["config.json", decoder, encoder, "special_tokens_map.json", "tokenizer.json", "tokenizer_config.json"].sort());
    // What was pulled loads as it was chosen, and scores as the numpy reference.
    // The snapshot's path names the repository: the recipe is recognised without being named.
    const engine = await createOnnxEngine({ dir: result.dir, variant, cpu: AVX2, threads: 1, maxBatch: 1 });
    engines.push(engine);
    expect([engine.info.graph, engine.info.decoder, engine.info.recipe.name]).toEqual([encoder, decoder, "minicheck-flan-t5"]);
    const ref = JSON.parse(read("minicheck-flan-t5", "reference.json").toString("utf8")) as { rows: Array<{ premise: string; hypothesis: string; chunks: Array<{ logits: number[]; int8_logits: number[] }> }> };
    const row = ref.rows[1];
    if (!row) throw new Error("no reference row");
    const [got] = await engine.inspect([row]);
    const want = variant === "fp32" ? row.chunks[0]?.logits : row.chunks[0]?.int8_logits;
    want?.forEach((l, j) => expect(Math.abs((got?.chunks[0]?.logits[j] ?? NaN) - l)).toBeLessThan(variant === "fp32" ? 1e-4 : 0.05));
  });

  it("refuses an export whose encoder has no decoder, naming the missing graph, before fetching any graph", async () => {
    const repo = "someone/t5-encoder-only";
    const files = minicheckFiles();
    for (const name of [...files.keys()]) if (name.startsWith("onnx/decoder")) files.delete(name);
    const server = await startHubServer({ repo, files });
    await expect(pullModel({ repo, cpu: AVX2, hub: resolveHubSettings({ HF_HOME: tempDir(), HF_ENDPOINT: server.url }) })).rejects.toThrow(/onnx\/encoder_model\.onnx has no onnx\/decoder_model\.onnx/);
    expect(fetched(server.requests, repo)).toEqual([]);
  });
});

describe("model pull of HHEM fetches the tokenizer it borrows from google/flan-t5-base", () => {
  it("writes flan-t5-base's tokenizer files beside the graph, records where they came from, and they encode as the reference", async () => {
    const repo = "vectara/hallucination_evaluation_model";
    const server = await startHubServer({ repo, files: hhemFiles(), others: [FLAN_T5_BASE] });
    const result = await pullModel({ repo, cpu: AVX2, hub: resolveHubSettings({ HF_HOME: tempDir(), HF_ENDPOINT: server.url }) });
    expect(result.tokenizerFrom).toMatchObject({ from: "google/flan-t5-base", recipe: "hhem", revision: HUB_SHA, because: `the repository name ${repo}` });
    expect(fetched(server.requests, repo)).toEqual(["config.json", "onnx/model.onnx"]);
    expect(fetched(server.requests, "google/flan-t5-base")).toEqual(["special_tokens_map.json", "tokenizer.json", "tokenizer_config.json"]);
    expect(readTokenizerSource(result.dir)).toEqual({ repo: "google/flan-t5-base", sha: HUB_SHA, recipe: "hhem" });
    expect(readdirSync(result.dir).sort()).toEqual([".groundwatch-listing.json", TOKENIZER_SOURCE_FILE, "config.json", "onnx", "special_tokens_map.json", "tokenizer.json", "tokenizer_config.json"].sort());
    const ref = JSON.parse(read("hhem", "reference.json").toString("utf8")) as { rows: Array<{ premise: string; hypothesis: string; chunks: Array<{ ids: number[] }> }> };
    const engine = await createOnnxEngine({ dir: result.dir, cpu: AVX2, threads: 1 });
    engines.push(engine);
    expect(engine.info.recipe.name).toBe("hhem");
    const got = await engine.inspect(ref.rows);
    ref.rows.forEach((row, i) => expect(got[i]?.chunks[0]?.ids).toEqual(row.chunks[0]?.ids));
  });

  it("recognises an HHEM export under another name by its config.json", async () => {
    const repo = "acme/consistency-scorer-onnx";
    const server = await startHubServer({ repo, files: hhemFiles(), others: [FLAN_T5_BASE] });
    const result = await pullModel({ repo, cpu: AVX2, hub: resolveHubSettings({ HF_HOME: tempDir(), HF_ENDPOINT: server.url }) });
    expect(result.tokenizerFrom?.because).toBe("config.json's architectures (HHEMv2ForSequenceClassification)");
    expect(existsSync(join(result.dir, "tokenizer.json"))).toBe(true);
  });

  it("refuses a repository without tokenizer.json whose model borrows none, and fetches no graph", async () => {
    const repo = "acme/no-tokenizer";
    const files = hhemFiles();
    files.set("config.json", JSON.stringify({ architectures: ["BertForSequenceClassification"], model_type: "bert" }));
    const server = await startHubServer({ repo, files, others: [FLAN_T5_BASE] });
    await expect(pullModel({ repo, cpu: AVX2, hub: resolveHubSettings({ HF_HOME: tempDir(), HF_ENDPOINT: server.url }) })).rejects.toThrow(`${repo}@main lacks tokenizer.json, and is not a model known to borrow one`);
    expect(fetched(server.requests, repo)).toEqual(["config.json"]);
    expect(fetched(server.requests, "google/flan-t5-base")).toEqual([]);
  });
});

describe("groundwatch model pull and model info on the T5 families", () => {
  it("says where HHEM's tokenizer came from when pulling, and model info shows it", async () => {
    const repo = "vectara/hallucination_evaluation_model";
    const server = await startHubServer({ repo, files: hhemFiles(), others: [FLAN_T5_BASE] });
    const env = { HF_HOME: tempDir(), HF_ENDPOINT: server.url };
    const pull = await runCli(["model", "pull", repo, "--variant", "fp32"], { env });
    expect(pull.code).toBe(0);
    expect(pull.stdout).toContain(`tokenizer  from google/flan-t5-base@${HUB_SHA}: ${repo} ships none, and its model (recipe hhem, recognised by the repository name ${repo}) reads google/flan-t5-base's`);
    const info = await runCli(["model", "info", repo], { env });
    expect(info.code).toBe(0);
    expect(info.stdout).toContain(`tokenizer:   google/flan-t5-base@${HUB_SHA} (borrowed for recipe hhem: the model's repository ships none)`);
  });

  it("names both graphs of a seq2seq export when pulling, and model info shows the decoder", async () => {
    const repo = "lytang/MiniCheck-Flan-T5-Large";
    const server = await startHubServer({ repo, files: minicheckFiles() });
    const env = { HF_HOME: tempDir(), HF_ENDPOINT: server.url };
    const pull = await runCli(["model", "pull", repo, "--variant", "fp32"], { env });
    expect(pull.code).toBe(0);
    expect(pull.stdout).toContain("variant    onnx/encoder_model.onnx (fp32");
    expect(pull.stdout).toContain("decoder    onnx/decoder_model.onnx: the seq2seq export's decoder of the same kind, fetched with its encoder");
    const info = await runCli(["model", "info", repo, "--variant", "fp32"], { env });
    expect(info.code).toBe(0);
    expect(info.stdout).toContain("graph:       onnx/encoder_model.onnx");
    expect(info.stdout).toContain("decoder:     onnx/decoder_model.onnx");
    expect(info.stdout).toMatch(/recipe:\s+minicheck-flan-t5/);
    expect(info.stdout).toMatch(/onnx\/encoder_model_quantized\.onnx +[0-9.]+ MB {2}encoder, int8 for any CPU \(quantized\)\n/);
    expect(info.stdout).toMatch(/onnx\/decoder_model\.onnx +[0-9.]+ MB {2}decoder, fp32 {2}\[pulled; chosen; --variant fp32 on this CPU\]/);
    expect(info.stdout).toMatch(/onnx\/decoder_model_merged\.onnx +[0-9.]+ MB {2}decoder with a key\/value cache: not run \(groundwatch runs one step of decoder_model\*\.onnx\)\n/);
    expect(info.stdout).toContain("fetches onnx/encoder_model.onnx and onnx/decoder_model.onnx: fp32, as asked");
  });
});
