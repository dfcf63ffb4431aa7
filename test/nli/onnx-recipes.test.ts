/**
 * How each recipe feeds and reads a model: the exact text its template builds (each compared with the
 * reference code's line), the text encoder's premise cut, chunking, binary label mapping, the
 * position-0 reader, max over chunks, and the recipe's maximum length against a model's positions.
 * Models are the random-weight fixtures in test/fixtures/models, copied and given a detector's config.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { Tokenizer } from "@huggingface/tokenizers";
import { chunkPremise, countWordTokens, countWords, packSentences, splitSentences } from "../../src/nli/onnx/chunking.ts";
import { createOnnxEngine } from "../../src/nli/onnx/engine.ts";
import { loadTokenizer } from "../../src/nli/onnx/encoder.ts";
import { readModelDir } from "../../src/nli/onnx/model-read.ts";
import { mapRecipeLabels } from "../../src/nli/onnx/recipe-labels.ts";
import { pairResult, readLogitRows, softmax } from "../../src/nli/onnx/recipe-output.ts";
import type { OnnxRuntime, OnnxSession, OnnxTensor } from "../../src/nli/onnx/runtime.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";
import { createTextEncoder, fillTemplate } from "../../src/nli/onnx/text-encoder.ts";
import { FACTCG_RECIPE, HHEM_RECIPE, MINICHECK_DEBERTA_RECIPE, MINICHECK_FLAN_T5_RECIPE, MINICHECK_ROBERTA_RECIPE, NLI_RECIPE } from "../../src/nli/recipes/index.ts";

const MODELS = fileURLToPath(new URL("../fixtures/models/", import.meta.url));
const TWO_LABEL = join(MODELS, "two-label");
const GENERIC = { "0": "LABEL_0", "1": "LABEL_1" };

const temps: string[] = [];
afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

/** A copy of the two-label fixture (a BERT graph with two outputs, 64 positions) with `config` over its config.json, at `sub` under a temp dir. */
function detectorDir(config: Record<string, unknown>, options: { sub?: string; tokenizerConfig?: Record<string, unknown> } = {}): string {
  const root = mkdtempSync(join(tmpdir(), "gw-recipe-"));
  temps.push(root);
  const dir = join(root, options.sub ?? "model");
  mkdirSync(dir, { recursive: true });
  cpSync(TWO_LABEL, dir, { recursive: true });
  const base = JSON.parse(readFileSync(join(TWO_LABEL, "config.json"), "utf8")) as Record<string, unknown>;
  writeFileSync(join(dir, "config.json"), JSON.stringify({ ...base, label2id: undefined, ...config }));
  const tc = JSON.parse(readFileSync(join(TWO_LABEL, "tokenizer_config.json"), "utf8")) as Record<string, unknown>;
  writeFileSync(join(dir, "tokenizer_config.json"), JSON.stringify({ ...tc, eos_token: "[SEP]", ...options.tokenizerConfig }));
  return dir;
}

const tokenizerJson = (): Record<string, unknown> => JSON.parse(readFileSync(join(TWO_LABEL, "tokenizer.json"), "utf8")) as Record<string, unknown>;
const bareIds = (t: Tokenizer, text: string): number[] => [...t.encode(text, { add_special_tokens: false }).ids];
const [CLS, SEP] = [2, 3];

describe("recipe templates: the exact text each builds for a premise and a hypothesis", () => {
  const pair = { premise: "The museum opens at nine.", hypothesis: "The museum opens in the morning." };

  it("FactCG fills INSTRUCTION_TEMPLATE", () => {
    // derenlei/FactCG factcg/utils.py:1: INSTRUCTION_TEMPLATE = prompt = "{text_a}\n\nChoose your answer: based on the paragraph above can we conclude that \"{text_b}\"?\n\nOPTIONS:\n- Yes\n- No\nI think the answer is "
    expect(FACTCG_RECIPE.input.kind === "text" && fillTemplate(FACTCG_RECIPE.input.template, pair)).toBe(
      'The museum opens at nine.\n\nChoose your answer: based on the paragraph above can we conclude that "The museum opens in the morning."?\n\nOPTIONS:\n- Yes\n- No\nI think the answer is ',
    );
  });

  it.each([
    [MINICHECK_ROBERTA_RECIPE, "</s>", "The museum opens at nine.</s>The museum opens in the morning."],
    [MINICHECK_DEBERTA_RECIPE, "[SEP]", "The museum opens at nine.[SEP]The museum opens in the morning."],
  ])("$name joins document and claim with the tokenizer's eos_token", (recipe, eos, text) => {
    // Liyan06/MiniCheck minicheck/inference.py:233: original_text = [self.tokenizer.eos_token.join([one_doc, one_claim]) for one_doc, one_claim in zip(doc, claim)]
    expect(recipe.input.kind === "text" && fillTemplate(recipe.input.template, { ...pair, eos })).toBe(text);
  });

  it("MiniCheck-Flan-T5 prefixes predict: to doc</s>claim", () => {
    // Liyan06/MiniCheck minicheck/inference.py:241: ['predict: ' + text for text in mini_batch],
    expect(MINICHECK_FLAN_T5_RECIPE.input.kind === "text" && fillTemplate(MINICHECK_FLAN_T5_RECIPE.input.template, { ...pair, eos: "</s>" })).toBe("predict: The museum opens at nine.</s>The museum opens in the morning.");
  });

  it("HHEM fills its Premise/Hypothesis prompt after a leading <pad>", () => {
    // vectara/hallucination_evaluation_model model card: prompt = "<pad> Determine if the hypothesis is true given the premise?\n\nPremise: {text1}\n\nHypothesis: {text2}"
    expect(HHEM_RECIPE.input.kind === "text" && fillTemplate(HHEM_RECIPE.input.template, pair)).toBe(
      "<pad> Determine if the hypothesis is true given the premise?\n\nPremise: The museum opens at nine.\n\nHypothesis: The museum opens in the morning.",
    );
  });

  it("fills every slot in one pass: a premise holding {hypothesis} stays as written", () => {
    expect(fillTemplate("{premise}|{hypothesis}", { premise: "a {hypothesis} b", hypothesis: "h" })).toBe("a {hypothesis} b|h");
  });

  it("names the reference code each recipe follows, and the NLI recipe keeps the pair template", () => {
    for (const r of [FACTCG_RECIPE, MINICHECK_ROBERTA_RECIPE, MINICHECK_DEBERTA_RECIPE, MINICHECK_FLAN_T5_RECIPE]) expect(r.reference).toMatch(/\.py:\d+/);
    expect(NLI_RECIPE.input.kind).toBe("pair");
  });
});

describe("the text encoder", () => {
  const tokenizer = loadTokenizer(tokenizerJson(), { do_lower_case: true });
  const premise = "the tower was built in 1889 in paris, the capital of france.";
  const hypothesis = "the tower is in paris.";

  it("tokenises the filled template whole with the single-text post-processor, reading [SEP] in the text as the token", () => {
    const e = createTextEncoder(tokenizer, { template: "{premise}{eos}{hypothesis}", eos: "[SEP]", maxLength: 64, recipe: "t" });
    const out = e.encode(premise, hypothesis);
    expect(out.ids).toEqual([CLS, ...bareIds(tokenizer, premise), SEP, ...bareIds(tokenizer, hypothesis), SEP]);
    expect(out.typeIds.every((t) => t === 0)).toBe(true);
    expect(out.truncated).toBe(0);
    expect(out.text).toBe(`${premise}[SEP]${hypothesis}`);
  });

  it("cuts the premise's trailing words, keeping the most that fit (binary search), never the hypothesis", () => {
    const maxLength = 16;
    const e = createTextEncoder(tokenizer, { template: "{premise}{eos}{hypothesis}", eos: "[SEP]", maxLength, recipe: "t" });
    const whole = createTextEncoder(tokenizer, { template: "{premise}{eos}{hypothesis}", eos: "[SEP]", maxLength: 1000, recipe: "t" }).encode(premise, hypothesis);
    const out = e.encode(premise, hypothesis);
    expect(out.ids.length).toBeLessThanOrEqual(maxLength);
    expect(out.ids.slice(-(bareIds(tokenizer, hypothesis).length + 2))).toEqual([SEP, ...bareIds(tokenizer, hypothesis), SEP]);
    const kept = out.text.slice(0, out.text.indexOf("[SEP]"));
    const words = premise.split(" ");
    const k = kept.split(" ").length;
    expect(kept).toBe(words.slice(0, k).join(" "));
    // One more word would not fit.
    expect([CLS, ...bareIds(tokenizer, words.slice(0, k + 1).join(" ")), SEP, ...bareIds(tokenizer, hypothesis), SEP].length).toBeGreaterThan(maxLength);
    expect(out.truncated).toBe(whole.ids.length - out.ids.length);
  });

  it("cuts the end when the template and hypothesis alone do not fit, keeping the closing special token", () => {
    const e = createTextEncoder(tokenizer, { template: "{premise}{eos}{hypothesis}", eos: "[SEP]", maxLength: 6, recipe: "t" });
    const out = e.encode(premise, hypothesis);
    expect(out.ids).toHaveLength(6);
    expect(out.ids.at(-1)).toBe(SEP);
    expect(out.truncated).toBeGreaterThan(0);
  });

  it("encodes a long premise a logarithmic number of times, not once per word", () => {
    let calls = 0;
    const counting = new Proxy(tokenizer, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver) as unknown;
        if (prop === "encode" && typeof v === "function") return (...args: unknown[]) => (calls++, (v as (...a: unknown[]) => unknown).apply(target, args));
        return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const e = createTextEncoder(counting, { template: "{premise}{eos}{hypothesis}", eos: "[SEP]", maxLength: 32, recipe: "t" });
    calls = 0;
    const out = e.encode(Array.from({ length: 5000 }, () => "the tower").join(" "), hypothesis);
    expect(out.ids.length).toBeLessThanOrEqual(32);
    // The whole text, the premise-less text, and a binary search over at most maxLength words.
    expect(calls).toBeLessThanOrEqual(2 + Math.ceil(Math.log2(33)));
  });

  it("encodes and cuts a premise in time linear in its length", () => {
    const e = createTextEncoder(tokenizer, { template: "{premise}{eos}{hypothesis}", eos: "[SEP]", maxLength: 32, recipe: "t" });
    expectLinear("text encoder cut", measureGrowth((n) => Array.from({ length: n }, (_, i) => (i % 2 ? "tower" : "the")).join(" "), (p) => e.encode(p, hypothesis), { n: 150, maxN: 300 }));
  });

  it("refuses a template with {eos} when the tokenizer names no eos_token", () => {
    expect(() => createTextEncoder(tokenizer, { template: "{premise}{eos}{hypothesis}", maxLength: 64, recipe: "minicheck-roberta" })).toThrow(/recipe minicheck-roberta .* names no eos_token/);
  });
});

describe("chunking", () => {
  it("splits sentences at line breaks and at whitespace after . ! ?, not inside 3.5 or at a bare full stop", () => {
    expect(splitSentences("It costs 3.5 euros. Open!  Closed?\nNo refund\n\n  for adults.")).toEqual(["It costs 3.5 euros.", "Open!", "Closed?", "No refund", "for adults."]);
  });

  it("counts words by whitespace and word tokens with punctuation apart (FactCG's nltk-like unit)", () => {
    expect(countWords("It's 3.5 euros, no refund.")).toBe(5);
    // It ' s 3 . 5 euros , no refund .
    expect(countWordTokens("It's 3.5 euros, no refund.")).toBe(11);
  });

  it("packs sentences greedily while the chunk stays within size, each sentence counted once, none empty", () => {
    const counted: string[] = [];
    const count = (s: string): number => (counted.push(s), s.length);
    const sentences = ["aaa", "bbb", "cc", "dddddddd", "e"];
    expect(packSentences(sentences, 6, count, " ")).toEqual(["aaa bbb", "cc", "dddddddd", "e"]);
    expect(counted).toEqual(sentences);
    expect(packSentences(["a", "b", "c"], 2, () => 1, "\n")).toEqual(["a\nb", "c"]);
  });

  it("counts MiniCheck's unit in the model tokenizer's ids and MiniCheck-Flan-T5's in words", () => {
    const premise = "The tower opens. The museum opens at nine. Refunds take five days.";
    expect(chunkPremise(premise, MINICHECK_ROBERTA_RECIPE.chunking, (s) => (s === "The museum opens at nine." ? 400 : 3))).toEqual(["The tower opens.", "The museum opens at nine.", "Refunds take five days."]);
    expect(chunkPremise(premise, { ...MINICHECK_FLAN_T5_RECIPE.chunking!, size: 8 }, () => 0)).toEqual(["The tower opens. The museum opens at nine.", "Refunds take five days."]);
  });

  it("keeps a premise without chunking, or without a sentence, whole", () => {
    expect(chunkPremise("a. b.", undefined, () => 1)).toEqual(["a. b."]);
    expect(chunkPremise("   ", FACTCG_RECIPE.chunking, () => 1)).toEqual(["   "]);
  });

  it("chunks in time linear in the premise, however its sentences and spaces fall", () => {
    const adversarial = (n: number): string => Array.from({ length: n }, (_, i) => (i % 3 === 0 ? "word. " : i % 3 === 1 ? "\n\n\n" : "a.b.c!?   ")).join("");
    expectLinear("chunkPremise (word tokens)", measureGrowth(adversarial, (text) => chunkPremise(text, FACTCG_RECIPE.chunking, () => 1), { n: 300, maxN: 1200 }));
  });
});

describe("binary label mapping", () => {
  const source = "/m/config.json";
  it("reads FactCG's supported column from LABEL_1 when config.json's labels are generic", () => {
    expect(mapRecipeLabels(FACTCG_RECIPE, { id2label: GENERIC }, source)).toMatchObject({ kind: "binary", supported: 1, unsupported: 0 });
  });

  it("maps named labels by name, not position: consistent/hallucinated and supported/unsupported in any order", () => {
    expect(mapRecipeLabels(HHEM_RECIPE, { id2label: { "0": "hallucinated", "1": "consistent" } }, source)).toMatchObject({ supported: 1, unsupported: 0 });
    expect(mapRecipeLabels(FACTCG_RECIPE, { id2label: { "0": "Supported", "1": "Unsupported" } }, source)).toMatchObject({ supported: 0, unsupported: 1 });
  });

  it("refuses names it does not know, more than two labels, and generic labels out of order, printing them", () => {
    expect(() => mapRecipeLabels(FACTCG_RECIPE, { id2label: { "0": "spam", "1": "ham" } }, source)).toThrow(/recipe factcg reads two columns .* id2label \{"0":"spam","1":"ham"\}/);
    expect(() => mapRecipeLabels(FACTCG_RECIPE, { id2label: { "0": "a", "1": "b", "2": "c" } }, source)).toThrow(/exactly two labels/);
    expect(() => mapRecipeLabels(FACTCG_RECIPE, { id2label: { "0": "LABEL_1", "1": "LABEL_0" } }, source)).toThrow(/out of their column order/);
  });

  it("reads MiniCheck-Flan-T5's two columns as the decoder's logits at tokens 3 and 209", () => {
    // Liyan06/MiniCheck minicheck/inference.py:203-204: # 3 for no support and 209 for support; label_logits = logits[:, torch.tensor([3, 209])]
    expect(mapRecipeLabels(MINICHECK_FLAN_T5_RECIPE, {}, source)).toEqual({ kind: "binary", supported: 1, unsupported: 0, labels: ["token 3 (unsupported)", "token 209 (supported)"] });
  });
});

const tensor = (dims: number[], data: number[]): OnnxTensor => ({ dims, data: Float32Array.from(data), type: "float32" });

describe("reading the output", () => {
  it("reads a token classifier's logits at position 0 ([batch, sequence, labels])", () => {
    // Two rows of three positions of two labels: position 0 holds (r, -r).
    const out = tensor([2, 3, 2], [1, -1, 9, 9, 9, 9, 2, -2, 9, 9, 9, 9]);
    expect(readLogitRows(out, 2, 2, { kind: "token0" }, "g returned logits")).toEqual([[1, -1], [2, -2]]);
  });

  it("refuses a pooled output where the recipe reads token 0, and the reverse, naming the shapes", () => {
    expect(() => readLogitRows(tensor([2, 2], [0, 0, 0, 0]), 2, 2, { kind: "token0" }, "g returned logits")).toThrow(/g returned logits of shape \[2, 2\], expected \[2, sequence, 2\]/);
    expect(() => readLogitRows(tensor([2, 3, 2], new Array<number>(12).fill(0)), 2, 2, { kind: "pooled" }, "g returned logits")).toThrow(/of shape \[2, 3, 2\], expected \[2, 2\]/);
  });

  it("takes the largest P(supported) over a pair's chunks, reads the rest as neutral, never a contradiction, and says which chunk decided", () => {
    const labels = { kind: "binary" as const, supported: 1, unsupported: 0, labels: ["LABEL_0", "LABEL_1"] };
    const result = pairResult([{ logits: [2, -1], truncated: 0 }, { logits: [-1, 1.5], truncated: 3 }, { logits: [0, 0], truncated: 0 }], labels, 512);
    const p = softmax([-1, 1.5])[1] ?? NaN;
    expect(result.entailment).toBeCloseTo(p, 12);
    expect(result.neutral).toBeCloseTo(1 - p, 12);
    expect(result.contradiction).toBe(0);
    expect(result.truncatedTokens).toBe(3);
    expect(result.notes).toEqual(["premise cut by 3 tokens to fit 512", `premise read in 3 chunks; chunk 2 decides (P(supported) ${p.toFixed(3)}, the largest)`]);
  });

  it("reads a one-chunk NLI pair as before: probabilities by label, no notes", () => {
    const labels = { kind: "three" as const, entailment: 0, neutral: 1, contradiction: 2, labels: ["entailment", "neutral", "contradiction"] };
    const [e, n, c] = softmax([1, 0, -1]);
    expect(pairResult([{ logits: [1, 0, -1], truncated: 0 }], labels, 512)).toEqual({ entailment: e, neutral: n, contradiction: c });
  });
});

describe("the maximum length a recipe reads at", () => {
  const relative = { architectures: ["DebertaV2ForSequenceClassification"], model_type: "deberta-v2", relative_attention: true, position_biased_input: false, max_position_embeddings: 512, id2label: GENERIC };
  it("raises config.json's 512 to the recipe's 2048 for a relative-position encoder (DeBERTa-v3), under a cap when given", () => {
    const dir = detectorDir(relative);
    expect(readModelDir({ dir }, FACTCG_RECIPE).maxLength).toBe(2048);
    expect(readModelDir({ dir, maxLength: 100 }, FACTCG_RECIPE).maxLength).toBe(100);
    expect(readModelDir({ dir }).maxLength).toBe(32);
  });

  it("never reads past an absolute-position model's positions: RoBERTa's max_position_embeddings − 2", () => {
    const dir = detectorDir({ architectures: ["RobertaForSequenceClassification"], model_type: "roberta", max_position_embeddings: 66, id2label: GENERIC });
    expect(readModelDir({ dir }, MINICHECK_ROBERTA_RECIPE).maxLength).toBe(64);
    expect(readModelDir({ dir }, MINICHECK_DEBERTA_RECIPE).maxLength).toBe(64);
  });
});

/**
 * A runtime standing in for a detector graph: it answers [batch, 2] (`pooled`) or [batch, sequence, 2]
 * with 99 past position 0 (`token0`); a row's logits are (0, score(its ids)).
 */
function fakeRuntime(output: "pooled" | "token0", score: (ids: number[]) => number): OnnxRuntime {
  class Tensor implements OnnxTensor {
    readonly type = "int64";
    constructor(
      _type: string,
      readonly data: BigInt64Array,
      readonly dims: readonly number[],
    ) {}
  }
  const session: OnnxSession = {
    inputNames: ["input_ids", "attention_mask"],
    outputNames: ["logits"],
    run: (feeds) => {
      const ids = feeds.input_ids as OnnxTensor & { data: BigInt64Array };
      const [b = 0, seq = 0] = ids.dims;
      const stride = output === "pooled" ? 2 : seq * 2;
      const data = new Float32Array(b * stride).fill(99);
      for (let r = 0; r < b; r++) {
        data[r * stride] = 0;
        data[r * stride + 1] = score(Array.from(ids.data.slice(r * seq, (r + 1) * seq), Number));
      }
      return Promise.resolve({ logits: { dims: output === "pooled" ? [b, 2] : [b, seq, 2], data, type: "float32" } });
    },
    release: () => Promise.resolve(),
  };
  return { InferenceSession: { create: () => Promise.resolve(session) }, Tensor: Tensor as unknown as OnnxRuntime["Tensor"] };
}

describe("the engine under a recipe", () => {
  const premise = "the tower was built in 1889 in paris, the capital of france.";
  const hypothesis = "the tower is in paris.";
  const tokenizer = loadTokenizer(tokenizerJson(), { do_lower_case: true });
  const REFUND = tokenizer.token_to_id("refund") ?? -1;
  /** A stand-in detector that finds support where the premise mentions a refund. */
  const refunds = (ids: number[]): number => ids.filter((id) => id === REFUND).length * 3 - 1;
  const deberta = { architectures: ["DebertaV2ForSequenceClassification"], model_type: "deberta-v2", relative_attention: true, position_biased_input: false, id2label: GENERIC };
  const template = (FACTCG_RECIPE.input as { template: string }).template;

  it("feeds FactCG's template tokenised whole and reads column 1 as P(supported): entailment P, neutral 1 − P, contradiction 0", async () => {
    const engine = await createOnnxEngine({ dir: detectorDir(deberta), recipe: "factcg" }, { runtime: fakeRuntime("pooled", refunds) });
    try {
      expect(engine.info.recipe).toMatchObject({ name: "factcg", why: expect.stringMatching(/named/) as unknown, template, output: "pooled", chunking: { unit: "word-tokens", size: 550, joiner: "\n" } });
      expect(engine.info.labels).toMatchObject({ kind: "binary", supported: 1 });
      expect(engine.info.maxLength).toBe(2048);
      const pair = { premise: "no refund for adults.", hypothesis: "adults take no refund." };
      const [inspected] = await engine.inspect([pair]);
      const text = fillTemplate(template, pair);
      expect(inspected?.chunks).toHaveLength(1);
      expect(inspected?.chunks[0]?.text).toBe(text);
      expect(inspected?.chunks[0]?.ids).toEqual([...tokenizer.encode(text, { add_special_tokens: true }).ids]);
      expect(inspected?.chunks[0]?.logits).toEqual([0, 5]);
      const [result] = await engine.classify([pair]);
      const p = softmax([0, 5])[1] ?? NaN;
      expect(result).toEqual({ entailment: p, neutral: 1 - p, contradiction: 0 });
    } finally {
      await engine.close();
    }
  });

  it("chunks a long premise as FactCG does (550 word tokens, joined by new lines) and answers with the best chunk", async () => {
    const engine = await createOnnxEngine({ dir: detectorDir(deberta), recipe: "factcg" }, { runtime: fakeRuntime("pooled", refunds) });
    try {
      // 100 sentences of 6 word tokens: 91 fit in the first chunk of 550, 9 in the second, which alone mentions a refund.
      const long = Array.from({ length: 100 }, (_, i) => (i === 95 ? "no refund for adults , ever ." : "the tower is in paris .")).join(" ");
      const [inspected] = await engine.inspect([{ premise: long, hypothesis }]);
      expect(inspected?.chunks).toHaveLength(2);
      expect(inspected?.chunks[1]?.text?.startsWith("the tower is in paris .\nthe tower is in paris .\n")).toBe(true);
      expect(inspected?.chunks.map((c) => c.logits)).toEqual([[0, -1], [0, 2]]);
      const [result] = await engine.classify([{ premise: long, hypothesis }]);
      expect(result?.entailment).toBeCloseTo(softmax([0, 2])[1] ?? NaN, 12);
      expect(result?.notes).toEqual([`premise read in 2 chunks; chunk 2 decides (P(supported) ${(softmax([0, 2])[1] ?? NaN).toFixed(3)}, the largest)`]);
      expect((await engine.logits([{ premise: long, hypothesis }])).logits).toEqual([[0, 2]]);
    } finally {
      await engine.close();
    }
  });

  it("recognises MiniCheck-RoBERTa from its hub cache path, reads at most max_position_embeddings − 2 tokens, and runs the graph", async () => {
    const dir = detectorDir({ architectures: ["RobertaForSequenceClassification"], model_type: "roberta", max_position_embeddings: 64, id2label: GENERIC }, { sub: "models--lytang--MiniCheck-RoBERTa-Large/snapshots/abc" });
    const engine = await createOnnxEngine({ dir, threads: 1 });
    try {
      expect(engine.info.recipe).toMatchObject({ name: "minicheck-roberta", why: "hub cache path lytang/MiniCheck-RoBERTa-Large" });
      expect(engine.info.maxLength).toBe(62);
      const [inspected] = await engine.inspect([{ premise, hypothesis }]);
      expect(inspected?.chunks[0]?.text).toBe(`${premise}[SEP]${hypothesis}`);
      expect(inspected?.chunks[0]?.ids).toEqual([CLS, ...bareIds(tokenizer, premise), SEP, ...bareIds(tokenizer, hypothesis), SEP]);
      const [result] = await engine.classify([{ premise, hypothesis }]);
      expect(result?.entailment).toBeCloseTo(softmax(inspected?.chunks[0]?.logits ?? [])[1] ?? NaN, 6);
      expect(result?.contradiction).toBe(0);
    } finally {
      await engine.close();
    }
  });

  it("refuses a binary model with generic labels and no recognisable name, naming --recipe", async () => {
    await expect(createOnnxEngine({ dir: detectorDir(deberta), threads: 1 })).rejects.toThrow(/--recipe factcg, GROUNDWATCH_RECIPE=factcg/);
  });

  it("reads HHEM's token-classifier output at position 0, its labels by name", async () => {
    const dir = detectorDir({ architectures: ["HHEMv2ForSequenceClassification"], model_type: "HHEMv2Config", id2label: { "0": "consistent", "1": "hallucinated" } });
    const engine = await createOnnxEngine({ dir }, { runtime: fakeRuntime("token0", refunds) });
    try {
      expect(engine.info.recipe).toMatchObject({ name: "hhem", output: "token0", why: "config.json architectures HHEMv2ForSequenceClassification" });
      expect(engine.info.labels).toMatchObject({ supported: 0, unsupported: 1 });
      const [inspected] = await engine.inspect([{ premise: "no refund.", hypothesis }]);
      expect(inspected?.chunks[0]?.logits).toEqual([0, 2]);
      const [result] = await engine.classify([{ premise: "no refund.", hypothesis }]);
      // Column 0 is "consistent" here: P(supported) = softmax([0, 2])[0].
      expect(result?.entailment).toBeCloseTo(softmax([0, 2])[0] ?? NaN, 12);
    } finally {
      await engine.close();
    }
  });

  it("leaves a decoder-step recipe to the seq2seq engine, saying so", async () => {
    await expect(createOnnxEngine({ dir: detectorDir({ model_type: "t5" }), recipe: "minicheck-flan-t5" }, { runtime: fakeRuntime("pooled", refunds) })).rejects.toThrow(/recipe minicheck-flan-t5 .* runs one decoder step of a seq2seq model/);
  });
});
