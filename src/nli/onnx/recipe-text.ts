/**
 * A `text` recipe's input, as the recipes agree it (src/nli/recipes/types.ts): the template filled
 * with the premise, the hypothesis and the tokenizer's eos token, tokenised whole with the
 * tokenizer's single-text template; the premise split into sentences and packed into chunks; a
 * chunk too long for the maximum length loses its trailing words (the hypothesis never does).
 * The seq2seq engine's copy of the rule: the recipe work's shared text encoder supersedes it.
 */
import { Tokenizer } from "@huggingface/tokenizers";
import type { OnnxRecipe } from "../recipes/types.ts";

/** One chunk of a pair, as the model reads it. */
export interface TextChunk {
  /** The whole input text: the template with this chunk of the premise and the hypothesis. */
  readonly text: string;
  /** Its token ids, special tokens included. */
  readonly ids: readonly number[];
  /** Tokens removed (trailing words of the premise) to fit the maximum length. */
  readonly truncated: number;
}

export interface RecipeTextEncoder {
  /** The chunks a (premise, hypothesis) pair is read in, in premise order. */
  chunks(premise: string, hypothesis: string): TextChunk[];
  readonly padId: number;
  readonly maxLength: number;
}

/** Sentences of a text: split at line breaks and at whitespace after . ! or ?; empty ones dropped. */
export function sentencesOf(text: string): string[] {
  return text.split(/\n+/).flatMap((line) => line.split(/(?<=[.!?])\s+/)).map((s) => s.trim()).filter((s) => s.length > 0);
}

/**
 * Packs sentences greedily, in order: a sentence joins the current chunk while the chunk's size
 * plus its own stays within `size`, else the chunk is closed and the sentence starts the next.
 */
export function packChunks(sentences: readonly string[], size: number, count: (s: string) => number, joiner: string): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let used = 0;
  for (const s of sentences) {
    const n = count(s);
    if (current.length > 0 && used + n > size) {
      chunks.push(current.join(joiner));
      current = [];
      used = 0;
    }
    current.push(s);
    used += n;
  }
  if (current.length > 0) chunks.push(current.join(joiner));
  return chunks;
}

/** The template with its {premise}, {hypothesis} and {eos} slots filled. */
export function fillTemplate(template: string, premise: string, hypothesis: string, eos: string): string {
  return template.replace(/\{(premise|hypothesis|eos)\}/g, (_, slot: string) => (slot === "premise" ? premise : slot === "hypothesis" ? hypothesis : eos));
}

const words = (s: string): string[] => s.split(/\s+/).filter((w) => w.length > 0);

/**
 * An encoder for a `text` recipe over tokenizer.json. `settings` is tokenizer_config.json over
 * special_tokens_map.json (eos_token and pad_token read from it).
 */
export function createRecipeTextEncoder(tokenizerJson: Record<string, unknown>, settings: Record<string, unknown>, recipe: OnnxRecipe, maxLength: number): RecipeTextEncoder {
  if (recipe.input.kind !== "text") throw new Error(`onnx backend: recipe ${recipe.name} feeds the tokenizer's pair template; this engine reads text recipes only`);
  const { template } = recipe.input;
  let tokenizer: Tokenizer;
  try {
    tokenizer = new Tokenizer(tokenizerJson, settings);
  } catch (error) {
    throw new Error(`onnx backend: tokenizer.json could not be loaded: ${(error as Error).message}`);
  }
  const eos = typeof settings.eos_token === "string" ? settings.eos_token : undefined;
  if (template.includes("{eos}") && (eos === undefined || tokenizer.token_to_id(eos) === undefined)) {
    throw new Error(`onnx backend: recipe ${recipe.name}'s template needs the tokenizer's eos token, which tokenizer_config.json does not name (eos_token) or the vocabulary lacks`);
  }
  const padToken = typeof settings.pad_token === "string" ? settings.pad_token : "<pad>";
  const padId = tokenizer.token_to_id(padToken) ?? 0;
  const encode = (text: string): number[] => [...tokenizer.encode(text).ids];
  const chunking = recipe.chunking;
  const count = (s: string): number => {
    if (chunking?.unit === "tokens") return tokenizer.encode(s, { add_special_tokens: false }).ids.length;
    return words(s).length;
  };

  const fit = (premise: string, hypothesis: string): TextChunk => {
    const text = fillTemplate(template, premise, hypothesis, eos ?? "");
    const ids = encode(text);
    if (ids.length <= maxLength) return { text, ids, truncated: 0 };
    // The most leading words of the premise whose text fits (binary search on the word count).
    const w = words(premise);
    let lo = 0;
    let hi = w.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (encode(fillTemplate(template, w.slice(0, mid).join(" "), hypothesis, eos ?? "")).length <= maxLength) lo = mid;
      else hi = mid - 1;
    }
    const cut = fillTemplate(template, w.slice(0, lo).join(" "), hypothesis, eos ?? "");
    const cutIds = encode(cut);
    return { text: cut, ids: cutIds, truncated: ids.length - cutIds.length };
  };

  return {
    padId,
    maxLength,
    chunks(premise: string, hypothesis: string): TextChunk[] {
      if (!chunking) return [fit(premise, hypothesis)];
      const pieces = packChunks(sentencesOf(premise), chunking.size, count, " ");
      return (pieces.length > 0 ? pieces : [premise]).map((p) => fit(p, hypothesis));
    },
  };
}
