import { copyFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { OnnxEngine } from "../../src/nli/onnx/engine.ts";
import { createOnnxEngine, describeOnnxModel } from "../../src/nli/onnx/engine.ts";
import { chooseSeq2SeqGraphs } from "../../src/nli/onnx/seq2seq-files.ts";
import { fillTemplate } from "../../src/nli/onnx/text-encoder.ts";
import { HHEM_RECIPE, MINICHECK_FLAN_T5_RECIPE } from "../../src/nli/recipes/index.ts";
import { runCli } from "../helpers/cli.ts";

const RECIPES = fileURLToPath(new URL("../fixtures/models/recipes/", import.meta.url));
const MINICHECK = join(RECIPES, "minicheck-flan-t5");
const HHEM = join(RECIPES, "hhem");
const BORROWED = join(RECIPES, "flan-t5-base-tokenizer");

interface Chunk { text: string; ids: number[]; truncated: number; logits: number[]; supported: number; int8_logits?: number[] }
interface Row { premise: string; hypothesis: string; chunks: Chunk[]; supported: number; entailment: number; neutral: number; contradiction: number }
interface Reference { recipe: string; template: string; rows: Row[] }
const reference = (dir: string): Reference => JSON.parse(readFileSync(join(dir, "reference.json"), "utf8")) as Reference;

const engines: OnnxEngine[] = [];
const temps: string[] = [];
/** The fixture is not a hub cache path and T5ForConditionalGeneration names no family: the recipe is named, as a user of an own export names it. */
async function engine(dir: string, variant?: string, maxBatch = 4): Promise<OnnxEngine> {
  const e = await createOnnxEngine({ dir, recipe: "minicheck-flan-t5", threads: 1, maxBatch, ...(variant ? { variant } : {}) });
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
    expect(fillTemplate(MINICHECK_FLAN_T5_RECIPE.input.template, { premise: "The tower is in Paris.", hypothesis: "It is in France.", eos: "</s>" })).toBe("predict: The tower is in Paris.</s>It is in France.");
    expect(reference(MINICHECK).template).toBe(MINICHECK_FLAN_T5_RECIPE.input.template);
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
      const best = row.chunks.findIndex((c) => c.supported === Math.max(...row.chunks.map((x) => x.supported))) + 1;
      if (row.chunks.length > 1) expect(r?.notes?.join("\n")).toContain(`premise read in ${row.chunks.length} chunks; chunk ${best} decides`);
      const cut = row.chunks.reduce((n, c) => n + c.truncated, 0);
      expect(r?.truncatedTokens).toBe(cut > 0 ? cut : undefined);
    });
  });

  it("runs the int8 encoder and decoder pair when asked, and says which graphs it runs", async () => {
    const ref = reference(MINICHECK);
    // One chunk per run: dynamic quantisation scales activations over the whole batch, and numpy's int8 reference ran each chunk alone.
    const e = await engine(MINICHECK, "int8", 1);
    expect([e.info.graph, e.info.decoder]).toEqual(["onnx/encoder_model_quantized.onnx", "onnx/decoder_model_quantized.onnx"]);
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

/** The HHEM fixture with the tokenizer files `model pull` borrows from google/flan-t5-base beside its graph. */
function hhemWithTokenizer(): string {
  const dir = copyOf(HHEM);
  for (const f of ["tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"]) copyFileSync(join(BORROWED, f), join(dir, f));
  return dir;
}

describe("HHEM-2.1-Open (T5 token classifier read at position 0, tokenizer borrowed from flan-t5-base)", () => {
  it("builds HHEM's prompt with the premise and hypothesis", () => {
    // The HHEM-2.1-Open model card (vectara/hallucination_evaluation_model), its prompt:
    //   prompt = "<pad> Determine if the hypothesis is true given the premise?\n\nPremise: {text1}\n\nHypothesis: {text2}"
    if (HHEM_RECIPE.input.kind !== "text") throw new Error("HHEM reads one text");
    expect(fillTemplate(HHEM_RECIPE.input.template, { premise: "I am in California", hypothesis: "I am in United States." })).toBe("<pad> Determine if the hypothesis is true given the premise?\n\nPremise: I am in California\n\nHypothesis: I am in United States.");
    expect(reference(HHEM).template).toBe(HHEM_RECIPE.input.template);
  });

  it("ships no tokenizer, as the repository it stands for ships none, and is refused without one, naming the file", () => {
    expect(existsSync(join(HHEM, "tokenizer.json"))).toBe(false);
    expect(HHEM_RECIPE.tokenizerFrom).toBe("google/flan-t5-base");
    expect(() => describeOnnxModel({ dir: HHEM })).toThrow("has no tokenizer.json");
  });

  it("is recognised by config.json and read at position 0 of logits [batch, sequence, 2] as the numpy reference", async () => {
    const ref = reference(HHEM);
    const e = await createOnnxEngine({ dir: hhemWithTokenizer(), threads: 1, maxBatch: 4 });
    engines.push(e);
    expect(e.info.recipe).toMatchObject({ name: "hhem", why: "config.json architectures HHEMv2ForSequenceClassification", output: "token0" });
    const got = await e.inspect(ref.rows);
    ref.rows.forEach((row, i) => {
      const [chunk] = got[i]?.chunks ?? [];
      const want = row.chunks[0] as Chunk;
      expect(chunk?.text).toBe(want.text);
      expect(chunk?.ids).toEqual(want.ids);
      expect(chunk?.ids[0]).toBe(0); // the prompt's leading <pad>: the position the head is read at
      want.logits.forEach((l, j) => expect(chunk?.logits[j]).toBeCloseTo(l, 4));
    });
    const results = await e.classify(ref.rows);
    ref.rows.forEach((row, i) => {
      expect(results[i]?.entailment).toBeCloseTo(row.entailment, 4);
      expect(results[i]?.contradiction).toBe(0);
    });
  });
});

/** `groundwatch nli` rows for the reference pairs, through --backend onnx --model DIR. */
async function nliRows(dir: string, rows: readonly Row[], extra: string[] = []): Promise<Array<Record<string, number>>> {
  const stdin = rows.map((r, i) => JSON.stringify({ id: i, premise: r.premise, hypothesis: r.hypothesis })).join("\n");
  const run = await runCli(["nli", "--input", "-", "--backend", "onnx", "--model", dir, ...extra], { stdin });
  expect(run.stderr).toContain(`${rows.length} classified, 0 failed`);
  expect(run.code).toBe(0);
  return run.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, number>);
}

describe("the T5 families through the command line (groundwatch nli --backend onnx --model DIR)", () => {
  it("scores MiniCheck-Flan-T5 with --recipe minicheck-flan-t5 as the numpy reference", async () => {
    const ref = reference(MINICHECK);
    const rows = ref.rows.slice(0, 4);
    const out = await nliRows(MINICHECK, rows, ["--recipe", "minicheck-flan-t5", "--variant", "fp32"]);
    rows.forEach((row, i) => {
      expect(out[i]?.entailment).toBeCloseTo(row.entailment, 4);
      expect(out[i]?.contradiction).toBe(0);
    });
  });

  it.each([
    ["MiniCheck-Flan-T5 (--recipe minicheck-flan-t5)", MINICHECK, 1, ["--recipe", "minicheck-flan-t5", "--variant", "fp32"]],
    ["HHEM (recognised)", HHEM, 0, []],
  ] as const)("groundwatch score gives %s's one-sentence claim the reference P(supported) and names the recipe in the backend version", async (_, fixture, index, extra) => {
    const row = reference(fixture).rows[index] as Row;
    const dir = fixture === HHEM ? hhemWithTokenizer() : fixture;
    const run = await runCli(["score", "--input", "-", "--backend", "onnx", "--model", dir, ...extra], { stdin: `${JSON.stringify({ id: 1, context: row.premise, answer: row.hypothesis })}\n` });
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as { claims: Array<{ score: number; contradiction: number }>; backend: { version: string } };
    expect(out.claims).toHaveLength(1);
    expect(out.claims[0]?.score).toBeCloseTo(row.supported, 4);
    expect(out.claims[0]?.contradiction).toBe(0);
    expect(out.backend.version).toMatch(new RegExp(` recipe ${fixture === HHEM ? "hhem" : "minicheck-flan-t5"}$`));
  });

  it("scores HHEM, recognised without --recipe, as the numpy reference", async () => {
    const ref = reference(HHEM);
    const out = await nliRows(hhemWithTokenizer(), ref.rows);
    ref.rows.forEach((row, i) => expect(out[i]?.entailment).toBeCloseTo(row.entailment, 4));
  });
});
