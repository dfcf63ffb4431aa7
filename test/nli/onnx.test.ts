import { cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createOnnxBackend } from "../../src/nli/onnx/backend.ts";
import type { OnnxEngine } from "../../src/nli/onnx/engine.ts";
import { createOnnxEngine, probabilitiesFromLogits } from "../../src/nli/onnx/engine.ts";

const MODELS = fileURLToPath(new URL("../fixtures/models/", import.meta.url));

interface Reference {
  max_length: number;
  min_hypothesis: number;
  id2label: string[];
  pairs: Array<{ premise: string; hypothesis: string; input_ids: number[]; token_type_ids: number[]; truncated: number; logits: number[] }>;
}

const reference = (name: string): Reference => JSON.parse(readFileSync(join(MODELS, name, "reference.json"), "utf8")) as Reference;
const engines: OnnxEngine[] = [];
async function engine(name: string): Promise<OnnxEngine> {
  const ref = reference(name);
  const e = await createOnnxEngine({ dir: join(MODELS, name), minHypothesisTokens: ref.min_hypothesis, threads: 1 });
  engines.push(e);
  return e;
}
afterAll(async () => {
  await Promise.all(engines.map((e) => e.close()));
});

describe.each(["bert-wordpiece", "deberta-unigram"])("onnx engine on %s", (name) => {
  it("tokenises pairs exactly as the reference, truncation included", async () => {
    const ref = reference(name);
    const { encoded } = await (await engine(name)).logits(ref.pairs);
    ref.pairs.forEach((p, i) => {
      expect(encoded[i]?.ids).toEqual(p.input_ids);
      expect(encoded[i]?.typeIds).toEqual(p.token_type_ids);
      expect(encoded[i]?.truncated).toBe(p.truncated);
    });
    expect(ref.pairs.some((p) => p.truncated > 0)).toBe(true);
  });

  it("matches the numpy reference logits to 1e-4, one pair at a time", async () => {
    const e = await engine(name);
    for (const p of reference(name).pairs) {
      const { logits } = await e.logits([p]);
      const row = logits[0] ?? [];
      expect(row).toHaveLength(p.logits.length);
      row.forEach((x, k) => expect(Math.abs(x - (p.logits[k] ?? NaN))).toBeLessThan(1e-4));
    }
  });

  it("gives a mixed-length padded batch the same results as one-by-one", async () => {
    const e = await engine(name);
    const pairs = reference(name).pairs;
    const batch = await e.classify(pairs);
    for (const [i, p] of pairs.entries()) {
      const [single] = await e.classify([p]);
      expect(batch[i]?.entailment).toBeCloseTo(single?.entailment ?? NaN, 5);
      expect(batch[i]?.contradiction).toBeCloseTo(single?.contradiction ?? NaN, 5);
    }
  });

  it("reports truncation on the pair that needed it", async () => {
    const ref = reference(name);
    const results = await (await engine(name)).classify(ref.pairs);
    ref.pairs.forEach((p, i) => expect(results[i]?.truncatedTokens ?? 0).toBe(p.truncated));
  });
});

describe("label mapping", () => {
  it("reads the entailment column by name when the checkpoint permutes labels", async () => {
    const ref = reference("bert-permuted");
    const e = await engine("bert-permuted");
    expect(e.info.labels).toMatchObject({ kind: "three", entailment: 0, neutral: 1, contradiction: 2 });
    const [r] = await e.classify([ref.pairs[0]!]);
    const logits = ref.pairs[0]!.logits;
    const z = logits.map((x) => Math.exp(x));
    const sum = z.reduce((a, b) => a + b, 0);
    expect(r?.entailment).toBeCloseTo((z[0] ?? 0) / sum, 5);
    expect(r?.contradiction).toBeCloseTo((z[2] ?? 0) / sum, 5);
  });

  it("maps the default fixture's contradiction/entailment/neutral order", async () => {
    const e = await engine("bert-wordpiece");
    expect(e.info.labels).toMatchObject({ kind: "three", entailment: 1, neutral: 2, contradiction: 0 });
    expect(probabilitiesFromLogits([0, 10, 0], e.info.labels).entailment).toBeGreaterThan(0.99);
  });

  it("supports a two-label entailment/not_entailment model", async () => {
    const e = await engine("two-label");
    const [r] = await e.classify([reference("two-label").pairs[0]!]);
    expect(e.info.labels.kind).toBe("two");
    expect(r?.contradiction).toBe(0);
    expect((r?.entailment ?? 0) + (r?.neutral ?? 0)).toBeCloseTo(1, 9);
  });

  it("refuses a model whose labels cannot be mapped, printing them", async () => {
    await expect(createOnnxEngine({ dir: join(MODELS, "bad-labels") })).rejects.toThrow(/cannot map the labels.*LABEL_0.*LABEL_1.*LABEL_2/);
  });
});

describe("broken model directories", () => {
  const dirs: string[] = [];
  const copy = (): string => {
    const d = mkdtempSync(join(tmpdir(), "gw-model-"));
    cpSync(join(MODELS, "bert-wordpiece"), d, { recursive: true });
    dirs.push(d);
    return d;
  };
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it("names a missing tokenizer.json", async () => {
    const d = copy();
    unlinkSync(join(d, "tokenizer.json"));
    await expect(createOnnxEngine({ dir: d })).rejects.toThrow(/has no tokenizer\.json/);
  });

  it("names a corrupt config.json", async () => {
    const d = copy();
    writeFileSync(join(d, "config.json"), "{not json");
    await expect(createOnnxEngine({ dir: d })).rejects.toThrow(/cannot parse .*config\.json/);
  });

  it("names a corrupt graph", async () => {
    const d = copy();
    writeFileSync(join(d, "onnx", "model.onnx"), "garbage");
    await expect(createOnnxEngine({ dir: d })).rejects.toThrow(/cannot load .*model\.onnx/);
  });

  it("names a missing graph for the requested variant", async () => {
    await expect(createOnnxEngine({ dir: join(MODELS, "bert-wordpiece"), variant: "quantized" })).rejects.toThrow(/invalid variant: "quantized" \(model directory .*bert-wordpiece\/? has no int8 graph this CPU can use \(looked for model_quantized\.onnx, model_int8\.onnx, model_uint8\.onnx/);
  });

  it("names a directory that does not exist", async () => {
    await expect(createOnnxEngine({ dir: "/nonexistent/model" })).rejects.toThrow(/\/nonexistent\/model does not exist/);
  });
});

describe("onnx backend", () => {
  it("infers in worker threads with the same results as the engine and declares production tier", async () => {
    const ref = reference("bert-wordpiece");
    const backend = await createOnnxBackend({ dir: join(MODELS, "bert-wordpiece"), workers: 2, maxBatch: 2, minHypothesisTokens: ref.min_hypothesis });
    try {
      expect(backend.tier).toBe("production");
      expect(backend.version).toMatch(/bert-wordpiece:onnx\/model\.onnx@[0-9a-f]{12}$/);
      const viaPool = await backend.classify(ref.pairs);
      const direct = await (await engine("bert-wordpiece")).classify(ref.pairs);
      viaPool.forEach((r, i) => expect(r.entailment).toBeCloseTo(direct[i]?.entailment ?? NaN, 6));
    } finally {
      await backend.close();
    }
  });

  it("rejects a worker start failure with the model error", async () => {
    await expect(createOnnxBackend({ dir: join(MODELS, "bad-labels") })).rejects.toThrow(/cannot map the labels/);
  });
});
