import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { resolveBackendSettings, resolveHubSettings } from "../../src/config/hub.ts";
import { resolveScoreOptions } from "../../src/config/score-options.ts";
import { createTextAnalyzer } from "../../src/core/text.ts";
import { pullModel } from "../../src/nli/hub/pull.ts";
import { createBackend } from "../../src/nli/registry.ts";
import { runCli, tempDir } from "../helpers/cli.ts";
import { CPUS, TOLERANCE } from "../helpers/hub-layouts.ts";
import { startHubServer } from "../helpers/hub-server.ts";

// Relevance cross-encoders pulled as the NLI models are, from a local hub serving the
// relevance-bert fixture (scripts/onnx_fixtures.py relevance) under the file names of the
// sentence-transformers layout (cross-encoder/ms-marco-MiniLM-L-6-v2: onnx/, O1–O4, one int8 graph
// per instruction set) and the transformers.js layout (a bge-reranker-base export: onnx/model.onnx,
// model_quantized.onnx, model_fp16.onnx). The listings are the export tools' names; they could not be
// checked against the live Hub from here (no network).
const MODELS = fileURLToPath(new URL("../fixtures/models/", import.meta.url));
const NLI_MODEL = join(MODELS, "bert-wordpiece");
const read = (...parts: string[]): Buffer => readFileSync(join(MODELS, ...parts));
const FP32 = read("relevance-bert", "onnx", "model.onnx");
const INT8 = read("graph-variants", "relevance-bert", "model_int8.onnx");
const SUPPORT: Array<[string, Buffer]> = [
  ["config.json", read("relevance-bert", "config.json")],
  ["tokenizer.json", read("relevance-bert", "tokenizer.json")],
  ["tokenizer_config.json", read("relevance-bert", "tokenizer_config.json")],
];
interface VariantReference {
  pairs: Array<{ query: string; passage: string; logit: { fp32: number; int8: number } }>;
}
const REFERENCE = JSON.parse(readFileSync(join(MODELS, "graph-variants", "relevance-bert", "reference.json"), "utf8")) as VariantReference;

const MS_MARCO_LAYOUT = {
  repo: "cross-encoder/ms-marco-MiniLM-L-6-v2",
  files: new Map<string, Buffer | string>([
    ["README.md", "a model card"],
    ...SUPPORT,
    ["onnx/model.onnx", FP32],
    ["onnx/model_O1.onnx", FP32],
    ["onnx/model_O4.onnx", FP32],
    ["onnx/model_qint8_arm64.onnx", INT8],
    ["onnx/model_qint8_avx512_vnni.onnx", INT8],
    ["onnx/model_quint8_avx2.onnx", INT8],
    ["pytorch_model.bin", "weights in another format"],
  ]),
};
const BGE_LAYOUT = {
  repo: "Xenova/bge-reranker-base",
  files: new Map<string, Buffer | string>([...SUPPORT, ["onnx/model.onnx", FP32], ["onnx/model_fp16.onnx", FP32], ["onnx/model_quantized.onnx", INT8]]),
};

const LAYOUTS = { [MS_MARCO_LAYOUT.repo]: MS_MARCO_LAYOUT, [BGE_LAYOUT.repo]: BGE_LAYOUT };

describe("relevance cross-encoders are pulled and loaded like the NLI models", () => {
  it.each([
    [MS_MARCO_LAYOUT.repo, "auto", "avx2", "onnx/model_quint8_avx2.onnx", "int8"],
    [MS_MARCO_LAYOUT.repo, "auto", "none", "onnx/model.onnx", "fp32"],
    [BGE_LAYOUT.repo, "auto", "avx512_vnni", "onnx/model_quantized.onnx", "int8"],
    [BGE_LAYOUT.repo, "fp32", "avx2", "onnx/model.onnx", "fp32"],
  ] as const)("%s, --variant %s on %s: pulls %s, and relevanceModel REPO loads it", async (repo, variant, cpu, graph, kind) => {
    const layout = LAYOUTS[repo] ?? MS_MARCO_LAYOUT;
    const server = await startHubServer({ files: layout.files, repo: layout.repo });
    const env = { HF_HOME: tempDir(), HF_ENDPOINT: server.url };
    const pulled = await pullModel({ repo: layout.repo, variant, cpu: CPUS[cpu], hub: resolveHubSettings(env) });
    expect(pulled.choice.graph.path).toBe(graph);
    const options = resolveScoreOptions({ backend: "onnx", model: NLI_MODEL, relevanceModel: layout.repo, ...(variant === "auto" ? {} : { variant }) });
    const { backend } = await createBackend(options, { analyzer: createTextAnalyzer(), settings: resolveBackendSettings(env) });
    try {
      expect(backend.relevanceScorer?.name).toBe("onnx");
      expect(backend.relevanceScorer?.model).toContain(`:${graph}@`);
      // One pair a call: an int8 graph's activation scales span its batch, and the reference is a batch of one.
      // The last pair is cut (the backend keeps 64 passage tokens, the reference 8): the others are not.
      for (const p of REFERENCE.pairs.slice(0, -1)) {
        const [score] = (await backend.relevance?.([p])) ?? [];
        expect(Math.abs((score ?? NaN) - 1 / (1 + Math.exp(-p.logit[kind]))), p.query).toBeLessThan(TOLERANCE[kind]);
      }
    } finally {
      await backend.close();
    }
  });

  it("model pull says to use a relevance cross-encoder as GROUNDWATCH_RELEVANCE_MODEL, not as --model", async () => {
    const server = await startHubServer({ files: MS_MARCO_LAYOUT.files, repo: MS_MARCO_LAYOUT.repo });
    const run = await runCli(["model", "pull", MS_MARCO_LAYOUT.repo], { env: { HF_HOME: tempDir(), HF_ENDPOINT: server.url } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`use it with: GROUNDWATCH_RELEVANCE_MODEL=${MS_MARCO_LAYOUT.repo} (a relevance cross-encoder: one logit per pair)\n`);
  });
});
