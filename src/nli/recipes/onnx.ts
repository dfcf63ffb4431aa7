/**
 * The detector families groundwatch runs on the ONNX tier, in one table. Each entry's template,
 * label order, maximum length and chunking follow the public reference code named in its
 * `reference` (the tests quote those lines); nothing here is tuned by groundwatch.
 */
import type { OnnxRecipe } from "./types.ts";

/** A generic NLI cross-encoder: the tokenizer's pair template, labels by name (what groundwatch ran before recipes). */
export const NLI_RECIPE: OnnxRecipe = {
  name: "nli",
  description: "NLI cross-encoder (entailment/neutral/contradiction or entailment/not_entailment, labels read by name)",
  input: { kind: "pair" },
  cut: "longest-first",
  output: { kind: "pooled" },
  labels: { kind: "nli" },
  recognise: { repos: [] },
  reference: "config.json id2label; tokenizer.json post-processor",
};

/**
 * A relevance cross-encoder (ms-marco MiniLM, bge-reranker): (question, passage) through the pair
 * template, one logit per pair read as its sigmoid. Not an NLI recipe: relevance-engine.ts reads it,
 * and it is never recognised for an NLI model.
 */
export const RELEVANCE_RECIPE: OnnxRecipe = {
  name: "relevance",
  description: "relevance cross-encoder (one logit per (question, passage) pair, read as its sigmoid)",
  input: { kind: "pair" },
  cut: "longest-first",
  output: { kind: "pooled" },
  labels: { kind: "relevance" },
  recognise: { repos: [] },
  reference: "sentence-transformers CrossEncoder: num_labels 1, sigmoid activation",
};

/** Label names a binary detector's config.json may give its two columns (compared lower-cased, "_" for spaces and "-"). */
const SUPPORTED = ["supported", "support", "consistent", "factual", "grounded", "entailment", "entailed", "yes", "true"];
const UNSUPPORTED = ["unsupported", "not_supported", "no_support", "hallucinated", "hallucination", "inconsistent", "not_consistent", "not_factual", "ungrounded", "not_entailment", "non_entailment", "no", "false"];
const BINARY_ALIASES = { supported: SUPPORTED, unsupported: UNSUPPORTED } as const;

/** FactCG-DeBERTa-v3-Large (derenlei/FactCG): one instruction-formatted text, 2 labels, column 1 = supported. */
export const FACTCG_RECIPE: OnnxRecipe = {
  name: "factcg",
  description: "FactCG (DeBERTa-v3 sequence classifier over one instruction text; column 1 = supported; 550-word-token chunks, max over chunks)",
  input: {
    kind: "text",
    template: '{premise}\n\nChoose your answer: based on the paragraph above can we conclude that "{hypothesis}"?\n\nOPTIONS:\n- Yes\n- No\nI think the answer is ',
  },
  cut: "premise",
  maxLength: 2048,
  chunking: { unit: "word-tokens", size: 550, joiner: "\n", combine: "max" },
  output: { kind: "pooled" },
  labels: { kind: "binary", supported: 1, aliases: BINARY_ALIASES },
  recognise: { repos: [/factcg/i], modelTypes: ["deberta-v2"] },
  reference:
    "derenlei/FactCG factcg/utils.py:1 (INSTRUCTION_TEMPLATE); factcg/inference.py:193-199 (template filled, max_length 2048, truncation only_first), :97-141 (chunking_src: nltk sentences packed to 550 word tokens, joined by \\n), :168-169 (softmax, column 1), :89-92 (max over chunks)",
};

/** MiniCheck-RoBERTa-Large (Liyan06/MiniCheck): `doc</s>claim` as one text, 2 labels, column 1 = supported. */
export const MINICHECK_ROBERTA_RECIPE: OnnxRecipe = {
  name: "minicheck-roberta",
  description: "MiniCheck-RoBERTa (sequence classifier over doc</s>claim as one text; column 1 = supported; 400-token chunks, max over chunks)",
  input: { kind: "text", template: "{premise}{eos}{hypothesis}" },
  cut: "premise",
  maxLength: 512,
  chunking: { unit: "tokens", size: 400, joiner: " ", combine: "max" },
  output: { kind: "pooled" },
  labels: { kind: "binary", supported: 1, aliases: BINARY_ALIASES },
  recognise: { repos: [/minicheck.*roberta/i], modelTypes: ["roberta"] },
  reference:
    "Liyan06/MiniCheck minicheck/inference.py:233 (tokenizer.eos_token.join([one_doc, one_claim])), :47-49 (max 512), :122-137 (sentences packed to 400 tokens, joined by ' '; minicheck.py:117-120), :211-218 (softmax, column 1, max over chunks)",
};

/** MiniCheck-DeBERTa-v3-Large (Liyan06/MiniCheck): `doc[SEP]claim` as one text, 2 labels, column 1 = supported. */
export const MINICHECK_DEBERTA_RECIPE: OnnxRecipe = {
  name: "minicheck-deberta",
  description: "MiniCheck-DeBERTa-v3 (sequence classifier over doc[SEP]claim as one text; column 1 = supported; 400-token chunks, max over chunks)",
  input: { kind: "text", template: "{premise}{eos}{hypothesis}" },
  cut: "premise",
  maxLength: 2048,
  chunking: { unit: "tokens", size: 400, joiner: " ", combine: "max" },
  output: { kind: "pooled" },
  labels: { kind: "binary", supported: 1, aliases: BINARY_ALIASES },
  recognise: { repos: [/minicheck.*deberta/i], modelTypes: ["deberta-v2"] },
  reference:
    "Liyan06/MiniCheck minicheck/inference.py:233 (tokenizer.eos_token.join([one_doc, one_claim])), :51-53 (max 2048), :122-137 (sentences packed to 400 tokens, joined by ' '; minicheck.py:117-122), :211-218 (softmax, column 1, max over chunks)",
};

/** MiniCheck-Flan-T5-Large (Liyan06/MiniCheck): seq2seq, one decoder step, softmax over vocabulary ids 3 and 209. */
export const MINICHECK_FLAN_T5_RECIPE: OnnxRecipe = {
  name: "minicheck-flan-t5",
  description: "MiniCheck-Flan-T5 (seq2seq: one decoder step over 'predict: doc</s>claim'; softmax over token ids 3 and 209, 209 = supported; 500-word chunks, max over chunks)",
  input: { kind: "text", template: "predict: {premise}{eos}{hypothesis}" },
  cut: "premise",
  maxLength: 2048,
  chunking: { unit: "words", size: 500, joiner: " ", combine: "max" },
  output: { kind: "decoder-step", decoderStartId: 0, supportedId: 209, unsupportedId: 3 },
  labels: { kind: "binary", supported: 1, aliases: BINARY_ALIASES },
  recognise: { repos: [/minicheck.*(?:flan|t5)/i], modelTypes: ["t5"] },
  reference:
    "Liyan06/MiniCheck minicheck/inference.py:233 and :241-242 ('predict: ' + eos_token.join([doc, claim])), :43 (max 2048), :108-121 (sentences packed to 500 whitespace words, joined by ' '; minicheck.py:121-122), :199-205 (decoder_input_ids zeros, softmax over logits[:, [3, 209]]), :217-218 (column 1, max over chunks)",
};

/** HHEM-2.1-Open (vectara/hallucination_evaluation_model): T5 encoder with a token head read at position 0. */
export const HHEM_RECIPE: OnnxRecipe = {
  name: "hhem",
  description: "HHEM-2.1-Open (T5 encoder + token classifier read at position 0 over a fixed Premise/Hypothesis prompt; column 1 = consistent)",
  input: { kind: "text", template: "<pad> Determine if the hypothesis is true given the premise?\n\nPremise: {premise}\n\nHypothesis: {hypothesis}" },
  cut: "premise",
  // The model card times "a 2k-token input"; its code does not truncate. T5's positions are relative.
  maxLength: 2048,
  output: { kind: "token0" },
  labels: { kind: "binary", supported: 1, aliases: BINARY_ALIASES },
  tokenizerFrom: "google/flan-t5-base",
  recognise: {
    repos: [/hallucination[-_]evaluation[-_]model/i, /hhem/i],
    architectures: ["HHEMv2ForSequenceClassification"],
    modelTypes: ["HHEMv2Config", "HHEMv2", "t5"],
  },
  reference:
    "vectara/hallucination_evaluation_model (Hugging Face) model card and config.json `prompt`: prompt.format(text1=premise, text2=hypothesis), tokenizer google/flan-t5-base, softmax(logits[:, 0, :])[:, 1] = 'consistent'",
};

/** Every ONNX recipe; recognition tries them in this order, and falls back to NLI_RECIPE. */
export const ONNX_RECIPES: readonly OnnxRecipe[] = [NLI_RECIPE, FACTCG_RECIPE, MINICHECK_ROBERTA_RECIPE, MINICHECK_DEBERTA_RECIPE, MINICHECK_FLAN_T5_RECIPE, HHEM_RECIPE];

/** The recipe named `name`, or undefined. */
export function onnxRecipeNamed(name: string): OnnxRecipe | undefined {
  return ONNX_RECIPES.find((r) => r.name === name);
}
