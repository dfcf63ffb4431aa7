/**
 * The two T5 detector families: HHEM-2.1-Open (a T5 encoder with a token-classification head read
 * at position 0) and MiniCheck-Flan-T5 (one decoder step, two label tokens). Each value follows the
 * reference code named in `reference`; the tests quote the lines.
 */
import type { OnnxRecipe } from "./types.ts";

/** Vectara's HHEM-2.1-Open: its prompt, position 0 of logits [batch, sequence, 2], column 1 = consistent; tokenizer from google/flan-t5-base. */
export const HHEM_RECIPE: OnnxRecipe = {
  name: "hhem",
  description: "HHEM-2.1-Open (Vectara): T5 encoder, token-classification head read at position 0 of its prompt; 1 = consistent",
  input: { kind: "text", template: "<pad> Determine if the hypothesis is true given the premise?\n\nPremise: {premise}\n\nHypothesis: {hypothesis}" },
  cut: "premise",
  output: { kind: "token0" },
  labels: { kind: "binary", supported: 1, aliases: { supported: ["consistent"], unsupported: ["hallucinated"] } },
  tokenizerFrom: "google/flan-t5-base",
  recognise: { repos: [/^vectara\/hallucination_evaluation_model$/, /hhem/], architectures: ["HHEMv2ForSequenceClassification"], modelTypes: ["HHEMv2", "HHEMv2Config"] },
  reference: "vectara/hallucination_evaluation_model configuration_hhem_v2.py (prompt, foundation google/flan-t5-base), modeling_hhem_v2.py (logits[:, 0, :], softmax, column 1)",
};

/** MiniCheck-Flan-T5-Large: `predict: {doc}</s>{claim}`, one decoder step from id 0, softmax over ids 3 and 209 (209 = supported); chunks of 500 words, max 2048. */
export const MINICHECK_FLAN_T5_RECIPE: OnnxRecipe = {
  name: "minicheck-flan-t5",
  description: "MiniCheck-Flan-T5 (Tang et al.): seq2seq, one decoder step; softmax over the label tokens 3 (unsupported) and 209 (supported)",
  input: { kind: "text", template: "predict: {premise}{eos}{hypothesis}" },
  cut: "premise",
  maxLength: 2048,
  chunking: { unit: "words", size: 500, combine: "max" },
  output: { kind: "decoder-step", decoderStartId: 0, supportedId: 209, unsupportedId: 3 },
  labels: { kind: "binary", supported: 1, aliases: { supported: [], unsupported: [] } },
  recognise: { repos: [/minicheck-flan-t5/], architectures: ["T5ForConditionalGeneration"], modelTypes: ["t5"] },
  reference: "Liyan06/MiniCheck minicheck/inference.py: 'predict: ' + eos_token.join([doc, claim]); decoder_input_ids zeros; logits[:, [3, 209]]; chunk_size 500 words; max_model_len 2048",
};
