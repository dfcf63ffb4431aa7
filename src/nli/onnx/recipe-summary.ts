/** What `groundwatch model info` shows of the recipe a model is read with: the NLI, relevance and seq2seq engines' summary. */
import type { RecipeChoice } from "../recipes/recognise.ts";
import type { RecipeChunking } from "../recipes/types.ts";

/** What `groundwatch model info` shows of a model's recipe. */
export interface RecipeSummary {
  readonly name: string;
  readonly description: string;
  /** Why it was chosen: named, repository name, config.json architectures or labels. */
  readonly why: string;
  /** The text template (`text` recipes), or undefined: the tokenizer's pair template. */
  readonly template?: string;
  /** Where the answer is read: pooled, token0 or decoder-step. */
  readonly output: string;
  readonly chunking?: Pick<RecipeChunking, "unit" | "size" | "joiner">;
  /** The reference code the recipe follows. */
  readonly reference: string;
}

/** The summary of a chosen recipe. */
export function recipeSummary({ recipe, why }: RecipeChoice): RecipeSummary {
  const { chunking } = recipe;
  return {
    name: recipe.name,
    description: recipe.description,
    why,
    ...(recipe.input.kind === "text" ? { template: recipe.input.template } : {}),
    output: recipe.output.kind,
    ...(chunking ? { chunking: { unit: chunking.unit, size: chunking.size, joiner: chunking.joiner } } : {}),
    reference: recipe.reference,
  };
}
