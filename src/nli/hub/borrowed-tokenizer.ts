/**
 * Models whose repository ships no tokenizer and borrows another's: HHEM-2.1-Open reads its input
 * with google/flan-t5-base's tokenizer (its config's foundation), which `model pull` fetches into
 * the model's folder beside the graph, recording where it came from in TOKENIZER_SOURCE_FILE so
 * that `model info` can say so.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ONNX_RECIPES } from "../recipes/onnx.ts";
import type { OnnxRecipe } from "../recipes/types.ts";
import { isPlainObject } from "../../core/plain-object.ts";

/** The record of a borrowed tokenizer, in the model's folder. */
export const TOKENIZER_SOURCE_FILE = ".groundwatch-tokenizer.json";

/** The tokenizer files fetched from the repository lent from (tokenizer.json required, the others when present). */
export const BORROWED_TOKENIZER_FILES = ["tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"] as const;

/** The recipes that borrow a tokenizer (`tokenizerFrom`). */
const BORROWING: readonly OnnxRecipe[] = ONNX_RECIPES.filter((r) => r.tokenizerFrom !== undefined);

/** Where a model's tokenizer comes from, and the recipe that says so. */
export interface TokenizerLoan {
  /** The repository lent from: google/flan-t5-base. */
  readonly from: string;
  /** The recipe that names it. */
  readonly recipe: string;
  /** What recognised the model: its repository name or its config.json. */
  readonly because: string;
}

/**
 * The repository whose tokenizer `repo` borrows, recognised by the repository's name or by
 * config.json (architectures, model_type); undefined for a model that borrows none.
 */
export function tokenizerLoan(repo: string, config: Record<string, unknown> | undefined, recipes: readonly OnnxRecipe[] = BORROWING): TokenizerLoan | undefined {
  const name = repo.toLowerCase();
  const architectures = Array.isArray(config?.architectures) ? (config.architectures as unknown[]).filter((a): a is string => typeof a === "string") : [];
  for (const r of recipes) {
    if (!r.tokenizerFrom) continue;
    if (r.recognise.repos.some((re) => re.test(name) || re.test(name.split("/").pop() ?? name))) return { from: r.tokenizerFrom, recipe: r.name, because: `the repository name ${repo}` };
    const arch = architectures.find((a) => r.recognise.architectures?.includes(a));
    if (arch) return { from: r.tokenizerFrom, recipe: r.name, because: `config.json's architectures (${arch})` };
  }
  return undefined;
}

/** The borrowed tokenizer's record in a model folder: the repository and commit it was fetched from; undefined when none. */
export function readTokenizerSource(dir: string): { repo: string; sha: string; recipe: string } | undefined {
  try {
    const raw: unknown = JSON.parse(readFileSync(join(dir, TOKENIZER_SOURCE_FILE), "utf8"));
    if (!isPlainObject(raw)) return undefined;
    const { repo, sha, recipe } = raw as Record<string, unknown>;
    return typeof repo === "string" && typeof sha === "string" && typeof recipe === "string" ? { repo, sha, recipe } : undefined;
  } catch {
    return undefined;
  }
}
