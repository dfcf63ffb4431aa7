/**
 * Which recipe reads a model directory, and why: a recipe the user names; else one whose
 * repository pattern matches the model's repository name (its hub cache path, the record `model
 * pull --dir` leaves, or config.json's `_name_or_path`); else one whose architecture config.json names; else the NLI recipe when
 * config.json's labels map as NLI labels. Anything else is refused, naming what is missing and how
 * to name a recipe — a model is never read by position.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SCORE_ENV_NAMES } from "../../config/env.ts";
import { ConfigError } from "../../config/errors.ts";
import { isPlainObject } from "../../core/plain-object.ts";
import { LISTING_FILE, isRepoId } from "../hub/cache.ts";
import { mapLabels } from "../onnx/model-dir.ts";
import { NLI_RECIPE, ONNX_RECIPES } from "./onnx.ts";
import type { OnnxRecipe } from "./types.ts";

/** A recipe and why it was chosen (shown by `groundwatch model info`). */
export interface RecipeChoice {
  readonly recipe: OnnxRecipe;
  /** In words: "named by --recipe", "repository name lytang/MiniCheck-RoBERTa-Large", … */
  readonly why: string;
}

export interface RecogniseOptions {
  /** A recipe the user named (--recipe, the environment, `recipe` in the config file); an unknown name is a ConfigError on `recipe`. */
  readonly name?: string | undefined;
  /** The model directory: a hub cache snapshot path (…/models--owner--name/snapshots/…) names its repository. */
  readonly dir: string;
  /** The repository id the model was given as, when it was given as one. */
  readonly repo?: string | undefined;
  /** config.json. */
  readonly config: Record<string, unknown>;
  /** config.json's path, for messages. */
  readonly source: string;
  /** The recipes to choose from (default ONNX_RECIPES). */
  readonly recipes?: readonly OnnxRecipe[];
}

/** The names of the recipes, for messages. */
const namesOf = (recipes: readonly OnnxRecipe[]): string => recipes.map((r) => r.name).join(", ");

/** How a user names a recipe, for messages. */
const HOW_TO_NAME = (example: string): string => `--recipe ${example}, ${SCORE_ENV_NAMES.recipe}=${example}, or "recipe": "${example}" in the config file's scoring section`;

/** The repository `groundwatch model pull` recorded in a directory it pulled into (LISTING_FILE), or undefined. */
function pulledRepo(dir: string): string | undefined {
  try {
    const repo = (JSON.parse(readFileSync(join(dir, LISTING_FILE), "utf8")) as { repo?: unknown }).repo;
    return typeof repo === "string" && isRepoId(repo) ? repo : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The repository names a model directory carries, each with where it was read: the repo id it was
 * given as, a hub cache path (models--owner--name), the repository `model pull` recorded in it, and
 * config.json's `_name_or_path`.
 */
export function repoNamesOf(dir: string, config: Record<string, unknown>, repo?: string): Array<{ readonly name: string; readonly from: string }> {
  const names: Array<{ name: string; from: string }> = [];
  if (repo) names.push({ name: repo, from: "repository" });
  for (const part of dir.split(/[\\/]+/)) {
    const m = /^models--([^/]+?)--(.+)$/.exec(part);
    if (m) names.push({ name: `${m[1]}/${m[2]}`, from: "hub cache path" });
  }
  const pulled = pulledRepo(dir);
  if (pulled) names.push({ name: pulled, from: "pulled from" });
  const named = config._name_or_path;
  if (typeof named === "string" && named.trim() !== "") names.push({ name: named.trim(), from: "config.json _name_or_path" });
  return names;
}

/** A recipe's model types allow config.json's model_type (or say nothing, or config.json names none). */
function typeFits(recipe: OnnxRecipe, config: Record<string, unknown>): boolean {
  const types = recipe.recognise.modelTypes;
  const type = typeof config.model_type === "string" ? config.model_type.toLowerCase() : undefined;
  return types === undefined || type === undefined || types.some((t) => t.toLowerCase() === type);
}

/** config.json's labels, shown as id2label (or the inverse of label2id), or undefined. */
function labelsShown(config: Record<string, unknown>): { shown: string; names: string[] } | undefined {
  const table = isPlainObject(config.id2label) ? config.id2label : isPlainObject(config.label2id) ? Object.fromEntries(Object.entries(config.label2id as Record<string, unknown>).map(([k, v]) => [String(v), k])) : undefined;
  if (!table) return undefined;
  return { shown: JSON.stringify(table), names: Object.values(table as Record<string, unknown>).map(String) };
}

/**
 * Chooses the recipe for a model (see the file comment). Throws a ConfigError on `recipe` for an
 * unknown name, and an Error naming what is missing for a model no recipe fits.
 */
export function recogniseRecipe(options: RecogniseOptions): RecipeChoice {
  const recipes = options.recipes ?? ONNX_RECIPES;
  if (options.name !== undefined) {
    const named = recipes.find((r) => r.name === options.name);
    if (!named) throw new ConfigError("recipe", options.name, `not an ONNX recipe; the recipes are ${namesOf(recipes)}`);
    return { recipe: named, why: `named (--recipe, ${SCORE_ENV_NAMES.recipe} or the config file's recipe)` };
  }
  const { config } = options;
  const names = repoNamesOf(options.dir, config, options.repo);
  for (const { name, from } of names) {
    const recipe = recipes.find((r) => r.recognise.repos.some((p) => p.test(name)) && typeFits(r, config));
    if (recipe) return { recipe, why: `${from} ${name}` };
  }
  const architectures = Array.isArray(config.architectures) ? config.architectures.map(String) : [];
  for (const recipe of recipes) {
    const arch = architectures.find((a) => recipe.recognise.architectures?.includes(a));
    if (arch) return { recipe, why: `config.json architectures ${arch}` };
  }
  const modelType = typeof config.model_type === "string" ? config.model_type : undefined;
  try {
    mapLabels(config, options.source);
    return { recipe: NLI_RECIPE, why: "config.json id2label names NLI labels" };
  } catch (error) {
    throw refusal(options, names, architectures, modelType, recipes, error as Error);
  }
}

/** The refusal for a model no recipe fits: what was looked at, what is missing, and how to name a recipe. */
function refusal(options: RecogniseOptions, names: ReadonlyArray<{ name: string; from: string }>, architectures: readonly string[], modelType: string | undefined, recipes: readonly OnnxRecipe[], labelError: Error): Error {
  const labels = labelsShown(options.config);
  const looked = [
    `repository name: ${names.length > 0 ? names.map((n) => `${n.name} (${n.from})`).join(", ") : "none (not a hub cache path or a pulled directory, no _name_or_path in config.json)"}`,
    `config.json architectures ${architectures.length > 0 ? architectures.join(", ") : "none"}, model_type ${modelType ?? "none"}`,
  ].join("; ");
  const known = namesOf(recipes.filter((r) => r.name !== NLI_RECIPE.name));
  // The example named is one whose family fits the model's type (a RoBERTa model is not FactCG's), else a placeholder.
  const fitting = recipes.filter((r) => r.name !== NLI_RECIPE.name && modelType !== undefined && (r.recognise.modelTypes ?? []).includes(modelType));
  const example = fitting[0]?.name ?? "NAME";
  const which = fitting.length > 1 ? ` (for model_type ${modelType}: ${namesOf(fitting)})` : "";
  if (labels && labels.names.length === 2 && labels.names.every((l) => /^label_\d+$/i.test(l.trim()))) {
    return new Error(
      `onnx backend: ${options.dir}: no recipe says how to read this model: config.json's id2label ${labels.shown} is a binary detector's generic labels, which do not say which column means supported, and nothing names its family (${looked}). Name its recipe: ${HOW_TO_NAME(example)}${which} (recipes: ${known})`,
    );
  }
  return new Error(`${labelError.message}. If this is a detector groundwatch has a recipe for (${known}), name it: ${HOW_TO_NAME("NAME")} (${looked})`);
}
