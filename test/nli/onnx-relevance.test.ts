import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { isConfigError } from "../../src/config/errors.ts";
import { createOfflineBackend } from "../../src/nli/offline/backend.ts";
import { createOnnxBackend, relevanceVariant } from "../../src/nli/onnx/backend.ts";
import type { RelevanceEngine } from "../../src/nli/onnx/relevance-engine.ts";
import { createRelevanceEngine, sigmoid, singleLogits } from "../../src/nli/onnx/relevance-engine.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import { CPUS, TOLERANCE } from "../helpers/hub-layouts.ts";

// Single-logit relevance cross-encoders from scripts/onnx_fixtures.py (`relevance`): random weights,
// the ms-marco / bge-reranker shape (one LABEL_0, logits [batch, 1] or [batch]), numpy references.
const MODELS = fileURLToPath(new URL("../fixtures/models/", import.meta.url));

interface Reference {
  max_length: number;
  min_hypothesis: number;
  output: string;
  pairs: Array<{ query: string; passage: string; input_ids: number[]; token_type_ids: number[]; truncated: number; logit: number; score: number }>;
}
interface VariantReference {
  pairs: Array<{ query: string; passage: string; logit: { fp32: number; int8: number } }>;
}

const reference = (name: string): Reference => JSON.parse(readFileSync(join(MODELS, name, "reference.json"), "utf8")) as Reference;
const int8Reference = (): VariantReference => JSON.parse(readFileSync(join(MODELS, "graph-variants", "relevance-bert", "reference.json"), "utf8")) as VariantReference;
const MIN_HYPOTHESIS = reference("relevance-bert").min_hypothesis;

const engines: RelevanceEngine[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(engines.map((e) => e.close()));
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});
async function engine(dir: string, variant?: string): Promise<RelevanceEngine> {
  const e = await createRelevanceEngine({ dir, minHypothesisTokens: MIN_HYPOTHESIS, threads: 1, cpu: CPUS.avx2, ...(variant ? { variant } : {}) });
  engines.push(e);
  return e;
}

/** relevance-bert's config and tokenizer, with `graphs` (path in the directory → fixture graph) placed as an export layout places them. */
function layout(graphs: Record<string, "fp32" | "int8">): string {
  const d = mkdtempSync(join(tmpdir(), "gw-relevance-"));
  dirs.push(d);
  for (const f of ["config.json", "tokenizer.json", "tokenizer_config.json"]) cpSync(join(MODELS, "relevance-bert", f), join(d, f));
  for (const [path, kind] of Object.entries(graphs)) {
    mkdirSync(join(d, path, ".."), { recursive: true });
    cpSync(kind === "fp32" ? join(MODELS, "relevance-bert", "onnx", "model.onnx") : join(MODELS, "graph-variants", "relevance-bert", "model_int8.onnx"), join(d, path));
  }
  return d;
}

describe.each(["relevance-bert", "relevance-flat"])("relevance engine on %s", (name) => {
  it("encodes the query first and the passage second, exactly as the reference, truncation included", async () => {
    const ref = reference(name);
    const { encoded } = await (await engine(join(MODELS, name))).logits(ref.pairs);
    ref.pairs.forEach((p, i) => {
      expect(encoded[i]?.ids).toEqual(p.input_ids);
      expect(encoded[i]?.typeIds).toEqual(p.token_type_ids);
      expect(encoded[i]?.truncated).toBe(p.truncated);
    });
    expect(ref.pairs.some((p) => p.truncated > 0)).toBe(true);
  });

  it("matches the numpy reference logit to 1e-4 and scores its sigmoid, one pair at a time and batched", async () => {
    const e = await engine(join(MODELS, name));
    const ref = reference(name);
    for (const p of ref.pairs) {
      const { logits } = await e.logits([p]);
      expect(Math.abs((logits[0] ?? NaN) - p.logit)).toBeLessThan(1e-4);
    }
    const scores = await e.score(ref.pairs);
    scores.forEach((s, i) => {
      expect(Math.abs(s - (ref.pairs[i]?.score ?? NaN))).toBeLessThan(1e-4);
      expect(s).toBeGreaterThanOrEqual(0);
      expect(s).toBeLessThanOrEqual(1);
    });
  });
});

describe("relevance model export layouts and variants", () => {
  it.each([
    ["model.onnx at the root (optimum)", { "model.onnx": "fp32" }, undefined, "model.onnx", "fp32"],
    ["onnx/model.onnx (sentence-transformers)", { "onnx/model.onnx": "fp32" }, undefined, "onnx/model.onnx", "fp32"],
    ["onnx/model_quantized.onnx beside fp32 (transformers.js), auto", { "onnx/model.onnx": "fp32", "onnx/model_quantized.onnx": "int8" }, undefined, "onnx/model_quantized.onnx", "int8"],
    ["onnx/model_quint8_avx2.onnx for an AVX2 CPU (cross-encoder int8 per instruction set)", { "onnx/model.onnx": "fp32", "onnx/model_quint8_avx2.onnx": "int8" }, "int8", "onnx/model_quint8_avx2.onnx", "int8"],
    ["fp32 asked for beside int8", { "onnx/model.onnx": "fp32", "onnx/model_quantized.onnx": "int8" }, "fp32", "onnx/model.onnx", "fp32"],
  ] as const)("%s: loads the chosen graph and matches its numpy reference", async (_name, graphs, variant, graph, kind) => {
    const e = await engine(layout(graphs), variant);
    expect(e.info.graph).toBe(graph);
    expect(e.info.variant.precision).toBe(kind);
    for (const p of int8Reference().pairs) {
      const { logits } = await e.logits([p]);
      expect(Math.abs((logits[0] ?? NaN) - p.logit[kind]), p.query).toBeLessThan(TOLERANCE[kind]);
    }
  });

  it("takes the NLI model's variant when it names a kind, auto when it names one of the NLI model's files", () => {
    expect(relevanceVariant(undefined)).toBe("auto");
    expect(relevanceVariant("int8")).toBe("int8");
    expect(relevanceVariant("fp32")).toBe("fp32");
    expect(relevanceVariant("onnx/model_qint8_arm64.onnx")).toBe("auto");
  });
});

describe("a model that is not a single-logit cross-encoder is refused", () => {
  it("refuses a 3-label NLI model, naming the model and its labels", async () => {
    await expect(createRelevanceEngine({ dir: join(MODELS, "bert-wordpiece") })).rejects.toThrow(/relevance model .*bert-wordpiece\/?: config\.json declares 3 labels \(\{"0":"contradiction","1":"entailment","2":"neutral"\}\); a relevance cross-encoder has exactly one output logit per pair/);
  });

  it("refuses an NLI graph whose config.json claims one label, naming the model and the shape it returned", async () => {
    const d = mkdtempSync(join(tmpdir(), "gw-relevance-"));
    dirs.push(d);
    cpSync(join(MODELS, "bert-wordpiece"), d, { recursive: true });
    const config = JSON.parse(readFileSync(join(d, "config.json"), "utf8")) as Record<string, unknown>;
    writeFileSync(join(d, "config.json"), JSON.stringify({ ...config, id2label: { 0: "LABEL_0" }, label2id: { LABEL_0: 0 } }));
    await expect(createRelevanceEngine({ dir: d })).rejects.toThrow(/relevance model .*\(.*onnx\/model\.onnx\) returned an output of shape \[1, 3\] for 1 pair\(s\); a relevance cross-encoder has exactly one output logit per pair \(\[1, 1\] or \[1\]\)/);
  });

  it("reads [n, 1] and [n] outputs, and nothing else", () => {
    expect(singleLogits({ dims: [2, 1], data: Float32Array.from([0.5, -1]) }, 2, "m")).toEqual([0.5, -1]);
    expect(singleLogits({ dims: [2], data: Float32Array.from([0.5, -1]) }, 2, "m")).toEqual([0.5, -1]);
    expect(() => singleLogits({ dims: [2, 2], data: Float32Array.from([0, 0, 0, 0]) }, 2, "m")).toThrow(/shape \[2, 2\]/);
    expect(() => singleLogits({ dims: [1, 1], data: Float32Array.from([0]) }, 2, "m")).toThrow(/shape \[1, 1\] for 2 pair/);
    expect(() => singleLogits(undefined, 1, "m")).toThrow(/shape \[\]/);
  });

  it("computes the sigmoid without overflow", () => {
    expect(sigmoid(0)).toBe(0.5);
    expect(sigmoid(1000)).toBe(1);
    expect(sigmoid(-1000)).toBe(0);
    expect(sigmoid(2)).toBeCloseTo(1 / (1 + Math.exp(-2)), 12);
  });
});

describe("onnx backend relevance", () => {
  it("scores relevance with the cross-encoder in worker threads, as the engine does, and says so", async () => {
    const ref = reference("relevance-bert");
    const backend = await createOnnxBackend({ dir: join(MODELS, "bert-wordpiece"), relevanceDir: join(MODELS, "relevance-bert"), workers: 2, maxBatch: 2, minHypothesisTokens: MIN_HYPOTHESIS, cpu: CPUS.avx2 });
    try {
      expect(backend.relevanceScorer).toEqual({ name: "onnx", model: expect.stringMatching(/relevance-bert:onnx\/model\.onnx@[0-9a-f]{12}$/) as unknown });
      expect(backend.relevanceModel?.graph).toBe("onnx/model.onnx");
      const scores = (await backend.relevance?.(ref.pairs)) ?? [];
      expect(scores).toHaveLength(ref.pairs.length);
      scores.forEach((s, i) => expect(Math.abs(s - (ref.pairs[i]?.score ?? NaN))).toBeLessThan(1e-4));
      expect(await backend.relevance?.([])).toEqual([]);
      // NLI is untouched by the relevance model.
      expect((await backend.classify([{ premise: "the tower is in paris.", hypothesis: "the tower is in paris." }]))[0]?.entailment).toBeGreaterThanOrEqual(0);
    } finally {
      await backend.close();
    }
  });

  it("refuses at start a 3-logit NLI model given as the relevance model, with a ConfigError naming relevanceModel", async () => {
    const failure = await createOnnxBackend({ dir: join(MODELS, "bert-wordpiece"), relevanceDir: join(MODELS, "bert-permuted") }).catch((e: unknown) => e);
    expect(isConfigError(failure) && failure.field).toBe("relevanceModel");
    expect((failure as Error).message).toMatch(/^invalid relevanceModel: ".*bert-permuted\/?" \(relevance model .*bert-permuted\/?: config\.json declares 3 labels/);
  });

  it("without a relevance model, answers with the offline backend's lexical relevance and says so", async () => {
    const analyzer = testAnalyzer();
    let built = 0;
    const backend = await createOnnxBackend(
      { dir: join(MODELS, "bert-wordpiece") },
      {
        lexicalRelevance: () => {
          built++;
          return createOfflineBackend({ analyzer });
        },
      },
    );
    try {
      expect(backend.relevanceScorer).toEqual({ name: "offline-lexical" });
      expect(backend.relevanceModel).toBeUndefined();
      expect(built).toBe(0);
      const pairs = [
        { query: "When does the museum open?", passage: "The museum opens at nine." },
        { query: "When does the museum open?", passage: "Refunds take five days." },
      ];
      const scores = (await backend.relevance?.(pairs)) ?? [];
      expect(scores).toEqual(await createOfflineBackend({ analyzer }).relevance?.(pairs));
      expect((scores[0] ?? 0) > (scores[1] ?? 1)).toBe(true);
      await backend.relevance?.(pairs);
      expect(built).toBe(1);
    } finally {
      await backend.close();
    }
  });

  it("has no relevance when given neither a relevance model nor the lexical fallback", async () => {
    const backend = await createOnnxBackend({ dir: join(MODELS, "bert-wordpiece") });
    try {
      expect(backend.relevance).toBeUndefined();
      expect(backend.relevanceScorer).toBeUndefined();
    } finally {
      await backend.close();
    }
  });
});
