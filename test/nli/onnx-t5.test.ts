import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { readJsonFile } from "../../src/nli/onnx/model-dir.ts";
import { loadOnnxRuntime } from "../../src/nli/onnx/runtime.ts";
import { tokenSettings } from "../../src/nli/onnx/engine.ts";
import { createRecipeTextEncoder, fillTemplate, packChunks, sentencesOf } from "../../src/nli/onnx/recipe-text.ts";
import type { Seq2SeqEngine } from "../../src/nli/onnx/seq2seq-engine.ts";
import { createSeq2SeqEngine, supportedProbability } from "../../src/nli/onnx/seq2seq-engine.ts";
import { chooseSeq2SeqGraphs } from "../../src/nli/onnx/seq2seq-files.ts";
import { HHEM_RECIPE, MINICHECK_FLAN_T5_RECIPE } from "../../src/nli/recipes/t5.ts";

const RECIPES = fileURLToPath(new URL("../fixtures/models/recipes/", import.meta.url));
const MINICHECK = join(RECIPES, "minicheck-flan-t5");
const HHEM = join(RECIPES, "hhem");
const BORROWED = join(RECIPES, "flan-t5-base-tokenizer");

interface Chunk { text: string; ids: number[]; truncated: number; logits: number[]; supported: number; int8_logits?: number[] }
interface Row { premise: string; hypothesis: string; chunks: Chunk[]; supported: number; entailment: number; neutral: number; contradiction: number }
interface Reference { recipe: string; template: string; rows: Row[] }
const reference = (dir: string): Reference => JSON.parse(readFileSync(join(dir, "reference.json"), "utf8")) as Reference;

const engines: Seq2SeqEngine[] = [];
const temps: string[] = [];
async function engine(dir: string, variant?: string, maxBatch = 4): Promise<Seq2SeqEngine> {
  const e = await createSeq2SeqEngine({ dir, recipe: MINICHECK_FLAN_T5_RECIPE, threads: 1, maxBatch, ...(variant ? { variant } : {}) });
  engines.push(e);
  return e;
}
function copyOf(dir: string): string {
  const t = mkdtempSync(join(tmpdir(), "gw-t5-"));
  temps.push(t);
  cpSync(dir, t, { recursive: true });
  return t;
}
afterAll(async () => {
  await Promise.all(engines.map((e) => e.close()));
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

describe("MiniCheck-Flan-T5 recipe text", () => {
  it("builds `predict: {doc}</s>{claim}` from the tokenizer's eos token", () => {
    // Liyan06/MiniCheck minicheck/inference.py:
    //   original_text = [self.tokenizer.eos_token.join([one_doc, one_claim]) for one_doc, one_claim in zip(doc, claim)]
    //   ['predict: ' + text for text in mini_batch],
    if (MINICHECK_FLAN_T5_RECIPE.input.kind !== "text") throw new Error("MiniCheck-Flan-T5 reads one text");
    expect(fillTemplate(MINICHECK_FLAN_T5_RECIPE.input.template, "The tower is in Paris.", "It is in France.", "</s>")).toBe("predict: The tower is in Paris.</s>It is in France.");
    expect(reference(MINICHECK).template).toBe(MINICHECK_FLAN_T5_RECIPE.input.template);
  });

  it("splits sentences at line breaks and after . ! ? and packs them greedily up to the size", () => {
    expect(sentencesOf("One two. Three four!\nFive six? Seven")).toEqual(["One two.", "Three four!", "Five six?", "Seven"]);
    const count = (s: string): number => s.split(/\s+/).length;
    expect(packChunks(["a b c", "d e", "f g h i", "j"], 5, count, " ")).toEqual(["a b c d e", "f g h i j"]);
    // A sentence longer than the size is a chunk of its own (it is cut to fit later).
    expect(packChunks(["a b", "c d e f g h", "i"], 3, count, " ")).toEqual(["a b", "c d e f g h", "i"]);
  });
});

describe("MiniCheck-Flan-T5 on the seq2seq engine (encoder + one decoder step)", () => {
  it("chunks, tokenises, cuts and reads the two label logits as the numpy reference does", async () => {
    const ref = reference(MINICHECK);
    const got = await (await engine(MINICHECK, "fp32")).inspect(ref.rows);
    ref.rows.forEach((row, i) => {
      const chunks = got[i]?.chunks ?? [];
      expect(chunks.map((c) => c.text)).toEqual(row.chunks.map((c) => c.text));
      row.chunks.forEach((c, k) => {
        expect(chunks[k]?.ids).toEqual(c.ids);
        expect(chunks[k]?.truncated).toBe(c.truncated);
        c.logits.forEach((l, j) => expect(chunks[k]?.logits[j]).toBeCloseTo(l, 4));
      });
    });
    // The fixture exercises chunking (a document in two chunks, the second scoring higher) and the cut (2,048 tokens).
    const two = ref.rows.find((r) => r.chunks.length === 2);
    expect(two && two.chunks[1] && two.chunks[0] && two.chunks[1].supported > two.chunks[0].supported).toBe(true);
    expect(ref.rows.some((r) => r.chunks.some((c) => c.truncated > 0 && c.ids.length === 2048))).toBe(true);
  });

  it("gives each pair the max P(supported) over its chunks, the rest neutral, and never a contradiction", async () => {
    const ref = reference(MINICHECK);
    const results = await (await engine(MINICHECK, "fp32")).classify(ref.rows);
    ref.rows.forEach((row, i) => {
      const r = results[i];
      expect(r?.entailment).toBeCloseTo(row.entailment, 4);
      expect(r?.neutral).toBeCloseTo(row.neutral, 4);
      expect(r?.contradiction).toBe(0);
      if (row.chunks.length > 1) expect(r?.notes).toContain(`premise read in ${row.chunks.length} chunks; best: chunk ${row.chunks.findIndex((c) => c.supported === Math.max(...row.chunks.map((x) => x.supported))) + 1}`);
      const cut = row.chunks.reduce((n, c) => n + c.truncated, 0);
      expect(r?.truncatedTokens).toBe(cut > 0 ? cut : undefined);
    });
  });

  it("runs the int8 encoder and decoder pair when asked, and says which graphs it runs", async () => {
    const ref = reference(MINICHECK);
    // One chunk per run: dynamic quantisation scales activations over the whole batch, and numpy's int8 reference ran each chunk alone.
    const e = await engine(MINICHECK, "int8", 1);
    expect(e.info.graphs).toEqual({ encoder: "onnx/encoder_model_quantized.onnx", decoder: "onnx/decoder_model_quantized.onnx" });
    expect(e.info.variant.precision).toBe("int8");
    const got = await e.inspect(ref.rows);
    ref.rows.forEach((row, i) => row.chunks.forEach((c, k) => {
      // A rounding step apart at most here and there: within 0.05 of numpy's int8 reference, on logits of order 1.
      c.int8_logits?.forEach((l, j) => expect(Math.abs((got[i]?.chunks[k]?.logits[j] ?? NaN) - l)).toBeLessThan(0.05));
    }));
    const fp32 = await (await engine(MINICHECK, "fp32")).inspect(ref.rows.slice(0, 1));
    expect(got[0]?.chunks[0]?.logits).not.toEqual(fp32[0]?.chunks[0]?.logits);
  });

  it("refuses a directory whose decoder graph is missing, naming it", async () => {
    const dir = copyOf(MINICHECK);
    unlinkSync(join(dir, "onnx", "decoder_model.onnx"));
    unlinkSync(join(dir, "onnx", "decoder_model_quantized.onnx"));
    await expect(engine(dir)).rejects.toThrow("onnx/encoder_model.onnx has no onnx/decoder_model.onnx");
  });

  it("refuses a decoder whose logits are not [batch, 1, vocabulary], naming the shape it returned", async () => {
    const dir = copyOf(MINICHECK);
    copyFileSync(join(RECIPES, "bad-seq2seq", "decoder_model.onnx"), join(dir, "onnx", "decoder_model.onnx"));
    const e = await engine(dir, "fp32");
    await expect(e.classify([{ premise: "The tower is in Paris.", hypothesis: "It is in Paris." }])).rejects.toThrow(/returned logits of shape \[1, 320\], expected \[1, 1, vocabulary\]/);
  });

  it("refuses a graph that is not a decoder, naming the inputs it lacks", async () => {
    const dir = copyOf(MINICHECK);
    copyFileSync(join(HHEM, "onnx", "model.onnx"), join(dir, "onnx", "decoder_model.onnx"));
    await expect(engine(dir, "fp32")).rejects.toThrow(/is not a seq2seq decoder: it has no encoder_attention_mask, encoder_hidden_states input/);
  });
});

describe("seq2seq graph pairs", () => {
  const cpu = { arch: "x64", flags: ["avx2"] };
  const files = (paths: string[]): Array<[string, number]> => paths.map((p) => [p, 1]);
  it("pairs encoder and decoder graphs by suffix, fp32 and int8, passing over the cached decoders", () => {
    const layout = files(["onnx/encoder_model.onnx", "onnx/decoder_model.onnx", "onnx/decoder_model_merged.onnx", "onnx/decoder_with_past_model.onnx", "onnx/encoder_model_quantized.onnx", "onnx/decoder_model_quantized.onnx", "onnx/decoder_model_merged_quantized.onnx"]);
    const auto = chooseSeq2SeqGraphs(layout, "auto", cpu, "repo");
    expect([auto.encoder.graph.path, auto.decoder]).toEqual(["onnx/encoder_model_quantized.onnx", "onnx/decoder_model_quantized.onnx"]);
    const fp32 = chooseSeq2SeqGraphs(layout, "fp32", cpu, "repo");
    expect([fp32.encoder.graph.path, fp32.decoder]).toEqual(["onnx/encoder_model.onnx", "onnx/decoder_model.onnx"]);
    const named = chooseSeq2SeqGraphs(files(["encoder_model.onnx", "decoder_model.onnx", "encoder_model_int8.onnx", "decoder_model_int8.onnx"]), "decoder_model_int8.onnx", cpu, "repo");
    expect([named.encoder.graph.path, named.decoder]).toEqual(["encoder_model_int8.onnx", "decoder_model_int8.onnx"]);
  });

  it("does not offer an int8 encoder whose int8 decoder is missing", () => {
    const layout = files(["onnx/encoder_model.onnx", "onnx/decoder_model.onnx", "onnx/encoder_model_quantized.onnx"]);
    expect(chooseSeq2SeqGraphs(layout, "auto", cpu, "repo").decoder).toBe("onnx/decoder_model.onnx");
    expect(() => chooseSeq2SeqGraphs(layout, "int8", cpu, "repo")).toThrow(/has no int8 graph/);
  });
});

describe("HHEM-2.1-Open fixture (T5 token classifier read at position 0, tokenizer borrowed from flan-t5-base)", () => {
  it("builds HHEM's prompt with the premise and hypothesis", () => {
    // The HHEM-2.1-Open model card (vectara/hallucination_evaluation_model), its prompt:
    //   prompt = "<pad> Determine if the hypothesis is true given the premise?\n\nPremise: {text1}\n\nHypothesis: {text2}"
    if (HHEM_RECIPE.input.kind !== "text") throw new Error("HHEM reads one text");
    expect(fillTemplate(HHEM_RECIPE.input.template, "I am in California", "I am in United States.", "</s>")).toBe("<pad> Determine if the hypothesis is true given the premise?\n\nPremise: I am in California\n\nHypothesis: I am in United States.");
    expect(reference(HHEM).template).toBe(HHEM_RECIPE.input.template);
  });

  it("ships no tokenizer, as the repository it stands for ships none", () => {
    expect(() => readFileSync(join(HHEM, "tokenizer.json"))).toThrow();
    expect(HHEM_RECIPE.tokenizerFrom).toBe("google/flan-t5-base");
  });

  it("reads position 0 of logits [batch, sequence, 2] as the numpy reference, with the borrowed tokenizer's ids", async () => {
    const ref = reference(HHEM);
    const text = createRecipeTextEncoder(readJsonFile(join(BORROWED, "tokenizer.json")), tokenSettings(readJsonFile(join(BORROWED, "tokenizer_config.json"))), HHEM_RECIPE, 512);
    const ort = await loadOnnxRuntime();
    const session = await ort.InferenceSession.create(join(HHEM, "onnx", "model.onnx"));
    try {
      for (const row of ref.rows) {
        const [chunk] = text.chunks(row.premise, row.hypothesis);
        const want = row.chunks[0] as Chunk;
        expect(chunk?.text).toBe(want.text);
        expect(chunk?.ids).toEqual(want.ids);
        expect(chunk?.ids[0]).toBe(0); // the prompt's leading <pad>: the position the head is read at
        const ids = BigInt64Array.from(want.ids.map(BigInt));
        const out = (await session.run({ input_ids: new ort.Tensor("int64", ids, [1, ids.length]), attention_mask: new ort.Tensor("int64", ids.map(() => 1n), [1, ids.length]) })).logits;
        expect(out?.dims).toEqual([1, want.ids.length, 2]);
        const data = out?.data as Float32Array;
        want.logits.forEach((l, j) => expect(data[j]).toBeCloseTo(l, 4));
        expect(supportedProbability([data[0] as number, data[1] as number])).toBeCloseTo(row.supported, 4);
      }
    } finally {
      await session.release();
    }
  });
});
