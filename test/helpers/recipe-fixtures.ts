/**
 * The recipe fixtures under test/fixtures/models/recipes/ (scripts/onnx_recipe_fixtures.py):
 * random-weight DeBERTa-v3 and RoBERTa sequence classifiers with numpy references of each whole
 * recipe, one chunk at a time.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The fixture directories, named as the recipes they exercise. */
export const RECIPE_FIXTURES = ["factcg", "minicheck-deberta", "minicheck-roberta"] as const;
export type RecipeFixture = (typeof RECIPE_FIXTURES)[number];

/** One chunk of a pair: the full input text the recipe builds, its token ids and numpy's logits. */
export interface ReferenceChunk {
  readonly text: string;
  readonly ids: readonly number[];
  /** Premise tokens removed to fit the maximum length. */
  readonly truncated: number;
  readonly logits: readonly number[];
  /** numpy's logits for the dynamically quantised int8 graph, where the fixture has one. */
  readonly logits_int8?: readonly number[];
}

export interface ReferenceRow {
  readonly premise: string;
  readonly hypothesis: string;
  readonly chunks: readonly ReferenceChunk[];
  readonly best_chunk: number;
  readonly supported: number;
  readonly supported_int8?: number;
  readonly entailment: number;
  readonly neutral: number;
  readonly contradiction: number;
}

export interface RecipeReference {
  readonly recipe: string;
  readonly template: string;
  readonly eos: string;
  readonly max_length: number;
  readonly chunking: { readonly unit: string; readonly size: number; readonly joiner: string };
  /** Graph files by precision, relative to the fixture directory. */
  readonly graphs: Readonly<Record<string, string>>;
  readonly rows: readonly ReferenceRow[];
}

/** The directory of a recipe fixture. */
export function recipeFixtureDir(name: RecipeFixture): string {
  return fileURLToPath(new URL(`../fixtures/models/recipes/${name}/`, import.meta.url));
}

export function readRecipeReference(name: RecipeFixture): RecipeReference {
  return JSON.parse(readFileSync(`${recipeFixtureDir(name)}reference.json`, "utf8")) as RecipeReference;
}

/** How close a graph's logits must come to numpy's. */
export const RECIPE_TOLERANCE = 1e-4;
