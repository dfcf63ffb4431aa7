/**
 * Premise chunking for recipes that chunk (recipes/types.ts RecipeChunking): the premise is split
 * into sentences by a simple linear rule, and the sentences are packed greedily, in order, into
 * chunks of at most `size` units, as the reference code packs them (MiniCheck, FactCG). Every step
 * is one pass over the text.
 */
import type { RecipeChunking } from "../recipes/types.ts";

/** Sentence boundaries: line breaks, and whitespace after ".", "!" or "?". */
const BOUNDARY = /(?:\r?\n)+|(?<=[.!?])\s+/;

/** The premise's sentences: split at line breaks and at whitespace after . ! ?, trimmed, empty ones dropped. */
export function splitSentences(text: string): string[] {
  return text.split(BOUNDARY).map((s) => s.trim()).filter((s) => s !== "");
}

/** Whitespace-separated words. */
export function countWords(text: string): number {
  return text.match(/\S+/g)?.length ?? 0;
}

/**
 * Word tokens, groundwatch's approximation of nltk.word_tokenize (FactCG's unit): runs of letters,
 * digits and "_", and every other non-space character on its own.
 */
export function countWordTokens(text: string): number {
  return text.match(/[\p{L}\p{N}_]+|[^\p{L}\p{N}_\s]/gu)?.length ?? 0;
}

/**
 * Packs sentences greedily, in order: a sentence joins the current chunk while the chunk's size plus
 * its own stays at most `size`; else the chunk is emitted and the sentence starts the next. A
 * sentence larger than `size` is a chunk of its own (cut to fit later); no chunk is empty.
 */
export function packSentences(sentences: readonly string[], size: number, count: (sentence: string) => number, joiner: string): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let used = 0;
  for (const sentence of sentences) {
    const n = count(sentence);
    if (current.length > 0 && used + n > size) {
      chunks.push(current.join(joiner));
      current = [];
      used = 0;
    }
    current.push(sentence);
    used += n;
  }
  if (current.length > 0) chunks.push(current.join(joiner));
  return chunks;
}

/**
 * The premise's chunks under `chunking` (`countTokens` counts the model tokenizer's ids, for unit
 * "tokens"); without chunking, or for a premise with no sentence, the premise alone.
 */
export function chunkPremise(premise: string, chunking: RecipeChunking | undefined, countTokens: (text: string) => number): string[] {
  if (!chunking) return [premise];
  const count = chunking.unit === "words" ? countWords : chunking.unit === "word-tokens" ? countWordTokens : countTokens;
  const chunks = packSentences(splitSentences(premise), chunking.size, count, chunking.joiner);
  return chunks.length > 0 ? chunks : [premise];
}
