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

// The entries below are filled in by the recipe work of issue 38 (FactCG, MiniCheck, HHEM);
// every value is checked against the reference repository named in `reference`.

/** Every ONNX recipe; recognition tries them in this order, and falls back to NLI_RECIPE. */
export const ONNX_RECIPES: readonly OnnxRecipe[] = [NLI_RECIPE];

/** The recipe named `name`, or undefined. */
export function onnxRecipeNamed(name: string): OnnxRecipe | undefined {
  return ONNX_RECIPES.find((r) => r.name === name);
}
