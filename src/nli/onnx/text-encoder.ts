/**
 * A `text` recipe's input (recipes/types.ts): the template with {premise}, {hypothesis} and {eos}
 * filled in, tokenised whole with the tokenizer's single-text post-processor (its special tokens
 * around it; special tokens written in the text, such as `</s>` or `<pad>`, are read as themselves).
 * When it is too long, the premise's trailing words are removed — the most words kept such that it
 * fits, found by binary search on the word count; the template and the hypothesis are never cut.
 */
import type { Tokenizer } from "@huggingface/tokenizers";
import type { EncodedPair } from "./encoder.ts";

/** One model input built from a template: its text, ids (type ids all 0) and the tokens cut to fit. */
export interface EncodedText extends EncodedPair {
  readonly text: string;
}

export interface TextEncoder {
  /** The template filled with `premise` and `hypothesis`, cut to fit the maximum length. */
  encode(premise: string, hypothesis: string): EncodedText;
  /** The tokenizer's ids for `text` without special tokens (chunking's unit "tokens"). */
  countTokens(text: string): number;
}

export interface TextEncoderOptions {
  /** The recipe's template. */
  readonly template: string;
  /** The tokenizer's eos_token, for {eos}. */
  readonly eos?: string | undefined;
  readonly maxLength: number;
  /** The recipe, for messages. */
  readonly recipe: string;
}

const SLOT = /\{(premise|hypothesis|eos)\}/g;

/** The template with its slots filled in one pass (a premise holding "{hypothesis}" stays as written). */
export function fillTemplate(template: string, values: { readonly premise: string; readonly hypothesis: string; readonly eos?: string | undefined }): string {
  return template.replace(SLOT, (_, slot: "premise" | "hypothesis" | "eos") => values[slot] ?? "");
}

/** How many special tokens the single-text post-processor puts after the text (kept when a too-long hypothesis forces a cut of the end). */
function suffixLength(tokenizer: Tokenizer): number {
  const bare: number[] = [...tokenizer.encode("x", { add_special_tokens: false }).ids];
  const full: number[] = [...tokenizer.encode("x", { add_special_tokens: true }).ids];
  for (let at = 0; at + bare.length <= full.length; at++) {
    if (bare.every((id, i) => full[at + i] === id)) return full.length - at - bare.length;
  }
  return 0;
}

/** Where each whitespace-separated word of `text` ends. */
function wordEnds(text: string): number[] {
  return Array.from(text.matchAll(/\S+/g), (m) => m.index + m[0].length);
}

/** A template encoder over `tokenizer` (see the file comment). */
export function createTextEncoder(tokenizer: Tokenizer, options: TextEncoderOptions): TextEncoder {
  const { template, maxLength } = options;
  if (template.includes("{eos}")) {
    if (!options.eos) throw new Error(`onnx backend: recipe ${options.recipe} puts the tokenizer's eos_token between premise and hypothesis, but tokenizer_config.json (or special_tokens_map.json) names no eos_token`);
    if (tokenizer.token_to_id(options.eos) === undefined) throw new Error(`onnx backend: recipe ${options.recipe}: the tokenizer's eos_token ${JSON.stringify(options.eos)} is not in its vocabulary`);
  }
  const suffix = suffixLength(tokenizer);
  const ids = (text: string): number[] => [...tokenizer.encode(text, { add_special_tokens: true }).ids];
  const build = (premise: string, hypothesis: string): { text: string; ids: number[] } => {
    const text = fillTemplate(template, { premise, hypothesis, eos: options.eos });
    return { text, ids: ids(text) };
  };
  const done = (b: { text: string; ids: number[] }, truncated: number): EncodedText => ({ text: b.text, ids: b.ids, typeIds: new Array<number>(b.ids.length).fill(0), truncated });
  return {
    countTokens: (text) => tokenizer.encode(text, { add_special_tokens: false }).ids.length,
    encode(premise: string, hypothesis: string): EncodedText {
      const whole = build(premise, hypothesis);
      if (whole.ids.length <= maxLength) return done(whole, 0);
      const ends = wordEnds(premise);
      const keeping = (k: number): { text: string; ids: number[] } => build(k === 0 ? "" : premise.slice(0, ends[k - 1]), hypothesis);
      let best = keeping(0);
      if (best.ids.length > maxLength) {
        // The template and hypothesis alone are too long: their end is cut, the closing special tokens kept.
        const cut = [...best.ids.slice(0, maxLength - suffix), ...best.ids.slice(best.ids.length - suffix)];
        return done({ text: best.text, ids: cut }, whole.ids.length - cut.length);
      }
      // Every word is at least one token, so no more than maxLength words can fit.
      let [lo, hi] = [0, Math.min(ends.length, maxLength)];
      while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2);
        const tried = keeping(mid);
        if (tried.ids.length <= maxLength) {
          [lo, best] = [mid, tried];
        } else hi = mid - 1;
      }
      return done(best, whole.ids.length - best.ids.length);
    },
  };
}
