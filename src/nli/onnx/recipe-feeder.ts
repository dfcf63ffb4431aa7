/**
 * How a recipe feeds a model: a pair's premise chunked as the recipe chunks it (chunking.ts), and
 * each chunk encoded with the hypothesis — through the tokenizer's pair template (`pair` recipes,
 * cut longest first) or the recipe's text template (text-encoder.ts, premise cut). What the NLI
 * engine, the relevance engine and the seq2seq engine share.
 */
import type { OnnxRecipe } from "../recipes/types.ts";
import { chunkPremise } from "./chunking.ts";
import type { EncodedPair } from "./encoder.ts";
import { createPairEncoder, loadTokenizer, padIdOf } from "./encoder.ts";
import { createTextEncoder } from "./text-encoder.ts";

/** One model input: an encoded chunk of the premise with the hypothesis; `text` for text recipes. */
export interface EncodedChunk extends EncodedPair {
  readonly text?: string;
}

export interface RecipeFeeder {
  readonly padId: number;
  readonly maxLength: number;
  /** The model inputs for one pair: one per chunk of its premise, in the premise's order. */
  feed(premise: string, hypothesis: string): EncodedChunk[];
}

export interface RecipeFeederOptions {
  readonly maxLength: number;
  /** Tokens the hypothesis keeps when a `pair` recipe's pair is cut. */
  readonly minHypothesisTokens: number;
}

type Json = Record<string, unknown>;

/** The feeder for `recipe` over a model's tokenizer (tokenizer.json and its settings, tokens as strings). */
export function createRecipeFeeder(recipe: OnnxRecipe, tokenizerJson: Json, tokenizerSettings: Json, options: RecipeFeederOptions): RecipeFeeder {
  const { input, chunking } = recipe;
  if (input.kind === "pair") {
    const encoder = createPairEncoder(tokenizerJson, tokenizerSettings, options);
    const tokenizer = chunking?.unit === "tokens" ? loadTokenizer(tokenizerJson, tokenizerSettings) : undefined;
    const countTokens = (text: string): number => tokenizer?.encode(text, { add_special_tokens: false }).ids.length ?? 0;
    return {
      padId: encoder.padId,
      maxLength: encoder.maxLength,
      feed: (premise, hypothesis) => chunkPremise(premise, chunking, countTokens).map((chunk) => encoder.encode(chunk, hypothesis)),
    };
  }
  const tokenizer = loadTokenizer(tokenizerJson, tokenizerSettings);
  const eos = typeof tokenizerSettings.eos_token === "string" ? tokenizerSettings.eos_token : undefined;
  const encoder = createTextEncoder(tokenizer, { template: input.template, eos, maxLength: options.maxLength, recipe: recipe.name });
  return {
    padId: padIdOf(tokenizer, tokenizerJson, tokenizerSettings),
    maxLength: options.maxLength,
    feed: (premise, hypothesis) => chunkPremise(premise, chunking, encoder.countTokens).map((chunk) => encoder.encode(chunk, hypothesis)),
  };
}
