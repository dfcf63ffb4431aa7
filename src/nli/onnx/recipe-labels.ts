/**
 * Which output column means what, for a recipe: an NLI model's by name (mapLabels); a binary
 * detector's from its recipe's column when config.json's labels are generic (LABEL_0, LABEL_1), or
 * by name when they are the recipe's aliases (supported/unsupported, consistent/hallucinated, …).
 * Names that are neither are refused, printing them — never read by position.
 */
import type { OnnxRecipe } from "../recipes/types.ts";
import type { LabelMap } from "./model-dir.ts";
import { labelTable, mapLabels, normaliseLabel } from "./model-dir.ts";
import { isPlainObject } from "../../core/plain-object.ts";

/** config.json's labels by column, or undefined when it declares none; `num_labels` alone gives generic names. */
function declaredLabels(config: Record<string, unknown>, source: string): string[] | undefined {
  const table = labelTable(config);
  if (isPlainObject(table)) {
    const labels: string[] = [];
    for (const [k, v] of Object.entries(table as Record<string, unknown>)) {
      const i = Number(k);
      if (!Number.isInteger(i) || i < 0 || i > 1000) throw new Error(`onnx backend: ${source} id2label has a key that is not a column index: ${JSON.stringify(k)}`);
      labels[i] = String(v);
    }
    return Array.from(labels, (l) => l ?? "");
  }
  const n = Number(config.num_labels);
  return Number.isInteger(n) && n > 0 ? Array.from({ length: n }, (_, i) => `LABEL_${i}`) : undefined;
}

/** The label map a recipe reads a model's output with (see the file comment). */
export function mapRecipeLabels(recipe: OnnxRecipe, config: Record<string, unknown>, source: string): LabelMap {
  const spec = recipe.labels;
  if (spec.kind === "nli") return mapLabels(config, source);
  if (spec.kind === "relevance") throw new Error(`onnx backend: recipe ${recipe.name} is a relevance recipe, not an entailment one`);
  const other = 1 - spec.supported;
  if (recipe.output.kind === "decoder-step") {
    // The two columns are the decoder's logits at the label tokens, not config.json's labels.
    const labels = [`token ${recipe.output.unsupportedId} (unsupported)`, `token ${recipe.output.supportedId} (supported)`];
    return { kind: "binary", supported: spec.supported, unsupported: other, labels };
  }
  const labels = declaredLabels(config, source) ?? ["LABEL_0", "LABEL_1"];
  const shown = JSON.stringify(Object.fromEntries(labels.map((l, i) => [i, l])));
  const refuse = (why: string): Error => new Error(`onnx backend: recipe ${recipe.name} reads two columns (${spec.supported} = supported), but ${source} has id2label ${shown}: ${why}`);
  if (labels.length !== 2) throw refuse(`a binary detector has exactly two labels`);
  const names = labels.map(normaliseLabel);
  if (names.every((n) => /^label_\d+$/.test(n))) {
    if (names[0] !== "label_0" || names[1] !== "label_1") throw refuse("generic names out of their column order");
    return { kind: "binary", supported: spec.supported, unsupported: other, labels };
  }
  const find = (aliases: readonly string[]): number[] => names.flatMap((n, i) => (aliases.includes(n) ? [i] : []));
  const [yes, no] = [find(spec.aliases.supported), find(spec.aliases.unsupported)];
  if (yes.length === 1 && no.length === 1 && yes[0] !== no[0]) return { kind: "binary", supported: yes[0] as number, unsupported: no[0] as number, labels };
  throw refuse(`its names must be generic (LABEL_0, LABEL_1) or one of each: supported (${spec.aliases.supported.join(", ")}) and unsupported (${spec.aliases.unsupported.join(", ")})`);
}
