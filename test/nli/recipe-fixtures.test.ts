/**
 * The recipe fixtures' graphs against their numpy references, with nothing of the recipe engine
 * in between: each chunk's reference ids go straight into an onnxruntime session, and each
 * chunk's reference text goes through @huggingface/tokenizers. What the engine builds from a
 * (premise, hypothesis) pair is compared with the same references in the engine's own tests.
 */
import { readFileSync } from "node:fs";
import { Tokenizer } from "@huggingface/tokenizers";
import { beforeAll, describe, expect, it } from "vitest";
import type { EncodedPair } from "../../src/nli/onnx/encoder.ts";
import type { OnnxRuntime } from "../../src/nli/onnx/runtime.ts";
import { loadOnnxRuntime } from "../../src/nli/onnx/runtime.ts";
import { openPairSession, runPairBatch } from "../../src/nli/onnx/session.ts";
import type { RecipeFixture, ReferenceChunk } from "../helpers/recipe-fixtures.ts";
import { RECIPE_FIXTURES, RECIPE_TOLERANCE, readRecipeReference, recipeFixtureDir } from "../helpers/recipe-fixtures.ts";

type Json = Record<string, unknown>;
const readJson = (name: RecipeFixture, file: string): Json => JSON.parse(readFileSync(`${recipeFixtureDir(name)}${file}`, "utf8")) as Json;

const asPair = (c: ReferenceChunk): EncodedPair => ({ ids: c.ids, typeIds: c.ids.map(() => 0), truncated: 0 });

/** Each chunk's logits from one batch of `chunks` (rows padded to the longest with the config's pad_token_id). */
async function logitsOf(ort: OnnxRuntime, name: RecipeFixture, graph: string, chunks: readonly ReferenceChunk[]): Promise<number[][]> {
  const session = await openPairSession(ort, `${recipeFixtureDir(name)}${graph}`);
  const padId = Number(readJson(name, "config.json").pad_token_id);
  const out = await runPairBatch(ort, session, chunks.map(asPair), padId);
  if (!out) throw new Error(`${graph} returned no logits`);
  const labels = Number(out.dims[1]);
  const data = Array.from(out.data as Float32Array);
  return chunks.map((_, r) => data.slice(r * labels, (r + 1) * labels));
}

function expectClose(got: readonly number[], want: readonly number[], tolerance: number, what: string): void {
  expect(got.length, what).toBe(want.length);
  got.forEach((v, i) => expect(Math.abs(v - (want[i] as number)), `${what}[${i}]: ${v} against ${want[i]}`).toBeLessThanOrEqual(tolerance));
}

const softmax1 = (logits: readonly number[]): number => {
  const top = Math.max(...logits);
  const e = logits.map((v) => Math.exp(v - top));
  return (e[1] as number) / e.reduce((a, b) => a + b, 0);
};

let ort: OnnxRuntime;
beforeAll(async () => {
  ort = await loadOnnxRuntime();
});

describe.each(RECIPE_FIXTURES)("recipe fixture %s", (name) => {
  const ref = readRecipeReference(name);
  const chunks = ref.rows.flatMap((r) => r.chunks);

  // 2,048-token DeBERTa chunks take a second or more each on a busy shared CPU.
  it("gives numpy's logits for every chunk's ids, one chunk at a time", { timeout: 120_000 }, async () => {
    for (const [k, chunk] of chunks.entries()) {
      const [logits] = await logitsOf(ort, name, ref.graphs.fp32 as string, [chunk]);
      expectClose(logits as number[], chunk.logits, RECIPE_TOLERANCE, `chunk ${k} (${chunk.ids.length} tokens)`);
    }
  });

  it("gives the same logits when the chunks run in one padded batch (padding is masked)", async () => {
    // The chunks under 1,000 tokens (a batch of 2,048-token rows costs seconds a row on a shared CPU); the longest pads the rest by hundreds.
    const batch = chunks.filter((c) => c.ids.length < 1000);
    expect(Math.max(...batch.map((c) => c.ids.length)) - Math.min(...batch.map((c) => c.ids.length))).toBeGreaterThan(200);
    const logits = await logitsOf(ort, name, ref.graphs.fp32 as string, batch);
    batch.forEach((chunk, k) => expectClose(logits[k] as number[], chunk.logits, RECIPE_TOLERANCE, `chunk ${k} padded to the longest`));
  });

  it("tokenises each chunk's input text to the reference ids with @huggingface/tokenizers", () => {
    const tokenizer = new Tokenizer(readJson(name, "tokenizer.json"), readJson(name, "tokenizer_config.json"));
    for (const chunk of chunks) expect(tokenizer.encode(chunk.text).ids).toEqual(chunk.ids);
  });

  it("has a premise long enough for several chunks and one cut to the recipe's maximum length", () => {
    expect(ref.rows.some((r) => r.chunks.length > 1 && r.chunks.every((c) => c.truncated === 0))).toBe(true);
    const cut = chunks.filter((c) => c.truncated > 0);
    expect(cut.length).toBeGreaterThan(0);
    for (const c of cut) {
      expect(c.ids.length).toBeLessThanOrEqual(ref.max_length);
      // The most words that fit: the cut input is within a word's tokens of the maximum.
      expect(c.ids.length).toBeGreaterThan(ref.max_length - 16);
    }
    for (const c of chunks) expect(c.ids.length).toBeLessThanOrEqual(ref.max_length);
  });

  it("reaches past config.json's max_position_embeddings where the positions are relative (DeBERTa)", () => {
    const config = readJson(name, "config.json");
    const longest = Math.max(...chunks.map((c) => c.ids.length));
    if (config.relative_attention === true) {
      // Distances up to 2,047: the log buckets, the edge at max_relative_positions − 1 (511) and the clamp beyond.
      expect(longest).toBeGreaterThan(Number(config.max_position_embeddings));
      expect(config.position_biased_input).toBe(false);
    } else {
      // RoBERTa's positions start after the padding index: 514 embeddings read 512 tokens.
      expect(longest).toBeLessThanOrEqual(Number(config.max_position_embeddings) - 2);
    }
  });

  it("reads P(supported) as softmax column 1, the max over chunks, as entailment with no contradiction", () => {
    for (const row of ref.rows) {
      const probs = row.chunks.map((c) => softmax1(c.logits));
      expect(row.supported).toBeCloseTo(Math.max(...probs), 12);
      expect(row.best_chunk).toBe(probs.indexOf(Math.max(...probs)));
      expect(row.entailment).toBe(row.supported);
      expect(row.neutral).toBeCloseTo(1 - row.supported, 12);
      expect(row.contradiction).toBe(0);
    }
  });

  it("declares two generic labels, as the published configs do", () => {
    expect(readJson(name, "config.json").id2label).toEqual({ 0: "LABEL_0", 1: "LABEL_1" });
  });
});

describe("recipe fixture templates", () => {
  it("builds FactCG's instruction text around the premise and hypothesis", () => {
    // derenlei/FactCG factcg/utils.py line 1:
    // INSTRUCTION_TEMPLATE = prompt = "{text_a}\n\nChoose your answer: based on the paragraph above can we conclude that \"{text_b}\"?\n\nOPTIONS:\n- Yes\n- No\nI think the answer is "
    const row = readRecipeReference("factcg").rows[0];
    expect(row?.chunks[0]?.text).toBe(`${row?.premise}\n\nChoose your answer: based on the paragraph above can we conclude that "${row?.hypothesis}"?\n\nOPTIONS:\n- Yes\n- No\nI think the answer is `);
  });

  it("joins MiniCheck's document and claim with the tokenizer's eos token", () => {
    // Liyan06/MiniCheck minicheck/inference.py:
    // original_text = [self.tokenizer.eos_token.join([one_doc, one_claim]) for one_doc, one_claim in zip(doc, claim)]
    for (const [name, eos] of [["minicheck-roberta", "</s>"], ["minicheck-deberta", "[SEP]"]] as const) {
      const row = readRecipeReference(name).rows[0];
      expect(readJson(name, "tokenizer_config.json").eos_token).toBe(eos);
      expect(row?.chunks[0]?.text).toBe(`${row?.premise}${eos}${row?.hypothesis}`);
    }
  });
});

describe("FactCG's int8 graph (onnx/model_quantized.onnx, optimum's name)", () => {
  it("gives numpy's dynamically quantised logits for every chunk", { timeout: 120_000 }, async () => {
    const ref = readRecipeReference("factcg");
    for (const [k, chunk] of ref.rows.flatMap((r) => r.chunks).entries()) {
      const [logits] = await logitsOf(ort, "factcg", ref.graphs.int8 as string, [chunk]);
      expectClose(logits as number[], chunk.logits_int8 as number[], RECIPE_TOLERANCE, `int8 chunk ${k}`);
    }
  });
});
