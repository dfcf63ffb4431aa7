import { Tokenizer } from "@huggingface/tokenizers";
import { asPlainObject } from "../../core/plain-object.ts";

/** A tokenised (premise, hypothesis) pair with special tokens, before padding. */
export interface EncodedPair {
  readonly ids: readonly number[];
  readonly typeIds: readonly number[];
  /** Tokens removed to fit the maximum length. */
  readonly truncated: number;
}

export interface PairEncoder {
  encode(premise: string, hypothesis: string): EncodedPair;
  readonly padId: number;
  readonly maxLength: number;
}

interface TemplatePiece {
  readonly kind: "special" | "A" | "B";
  readonly ids: readonly number[];
  readonly typeId: number;
}

type Json = Record<string, unknown>;

/**
 * Reads the pair template from tokenizer.json's post-processor (TemplateProcessing,
 * BertProcessing, RobertaProcessing, or a Sequence holding one of them).
 */
function pairTemplate(tokenizerJson: Json, tokenId: (t: string) => number | undefined): TemplatePiece[] {
  let pp = asPlainObject(tokenizerJson.post_processor);
  if (pp?.type === "Sequence") {
    const inner = (pp.processors as unknown[] | undefined)?.map(asPlainObject).find((p) => ["TemplateProcessing", "BertProcessing", "RobertaProcessing"].includes(String(p?.type)));
    pp = inner;
  }
  const special = (name: string, typeId: number): TemplatePiece => {
    const id = tokenId(name);
    if (id === undefined) throw new Error(`onnx backend: tokenizer.json post-processor names special token ${name}, which the vocabulary lacks`);
    return { kind: "special", ids: [id], typeId };
  };
  switch (pp?.type) {
    case "TemplateProcessing": {
      const specials = asPlainObject(pp.special_tokens) ?? {};
      return ((pp.pair as unknown[]) ?? []).map((item) => {
        const o = asPlainObject(item) ?? {};
        const seq = asPlainObject(o.Sequence);
        if (seq) return { kind: seq.id === "B" ? "B" : "A", ids: [], typeId: Number(seq.type_id ?? 0) };
        const sp = asPlainObject(o.SpecialToken) ?? {};
        const name = String(sp.id);
        const ids = (asPlainObject(specials[name])?.ids as number[] | undefined) ?? [];
        return ids.length > 0 ? { kind: "special", ids, typeId: Number(sp.type_id ?? 0) } : special(name, Number(sp.type_id ?? 0));
      });
    }
    case "BertProcessing": {
      const [sep, cls] = [pp.sep as [string, number], pp.cls as [string, number]];
      return [
        { kind: "special", ids: [cls[1]], typeId: 0 },
        { kind: "A", ids: [], typeId: 0 },
        { kind: "special", ids: [sep[1]], typeId: 0 },
        { kind: "B", ids: [], typeId: 1 },
        { kind: "special", ids: [sep[1]], typeId: 1 },
      ];
    }
    case "RobertaProcessing": {
      const [sep, cls] = [pp.sep as [string, number], pp.cls as [string, number]];
      return [
        { kind: "special", ids: [cls[1]], typeId: 0 },
        { kind: "A", ids: [], typeId: 0 },
        { kind: "special", ids: [sep[1], sep[1]], typeId: 0 },
        { kind: "B", ids: [], typeId: 0 },
        { kind: "special", ids: [sep[1]], typeId: 0 },
      ];
    }
    default:
      throw new Error(`onnx backend: tokenizer.json post-processor ${JSON.stringify(pp?.type ?? null)} is not supported (TemplateProcessing, BertProcessing, RobertaProcessing)`);
  }
}

export interface PairEncoderOptions {
  readonly maxLength: number;
  /** Tokens the hypothesis keeps when the pair must be cut (premises are chunked upstream). */
  readonly minHypothesisTokens: number;
}

/**
 * Wraps @huggingface/tokenizers (which has no truncation or padding) with pair
 * truncation: longest first, except that the hypothesis keeps a minimum.
 */
/** Loads tokenizer.json with its settings (tokenizer_config.json over special_tokens_map.json); a failure names the file. */
export function loadTokenizer(tokenizerJson: Json, tokenizerConfig: Json): Tokenizer {
  try {
    return new Tokenizer(tokenizerJson, tokenizerConfig);
  } catch (error) {
    throw new Error(`onnx backend: tokenizer.json could not be loaded: ${(error as Error).message}`);
  }
}

/** The id rows are padded with: tokenizer.json's padding, else the pad_token setting, else [PAD] or <pad>, else 0. */
export function padIdOf(tokenizer: Tokenizer, tokenizerJson: Json, tokenizerConfig: Json): number {
  const tokenId = (t: string): number | undefined => tokenizer.token_to_id(t) ?? undefined;
  const padding = asPlainObject(tokenizerJson.padding);
  const padToken = String(tokenizerConfig.pad_token ?? "");
  return (typeof padding?.pad_id === "number" ? padding.pad_id : undefined) ?? tokenId(padToken) ?? tokenId("[PAD]") ?? tokenId("<pad>") ?? 0;
}

export function createPairEncoder(tokenizerJson: Json, tokenizerConfig: Json, options: PairEncoderOptions): PairEncoder {
  const tokenizer = loadTokenizer(tokenizerJson, tokenizerConfig);
  const tokenId = (t: string): number | undefined => tokenizer.token_to_id(t) ?? undefined;
  const template = pairTemplate(tokenizerJson, tokenId);
  const specialCount = template.reduce((n, p) => n + p.ids.length, 0);
  const budget = options.maxLength - specialCount;
  if (budget < 2) throw new Error(`onnx backend: maximum length ${options.maxLength} leaves no room for text after ${specialCount} special tokens`);
  const padId = padIdOf(tokenizer, tokenizerJson, tokenizerConfig);
  return {
    padId,
    maxLength: options.maxLength,
    encode(premise: string, hypothesis: string): EncodedPair {
      const a = [...tokenizer.encode(premise, { add_special_tokens: false }).ids];
      const b = [...tokenizer.encode(hypothesis, { add_special_tokens: false }).ids];
      let truncated = 0;
      const minB = Math.min(options.minHypothesisTokens, budget - 1);
      while (a.length + b.length > budget) {
        if (b.length > minB && b.length >= a.length) b.pop();
        else if (a.length > 0) a.pop();
        else b.pop();
        truncated++;
      }
      const ids: number[] = [];
      const typeIds: number[] = [];
      for (const piece of template) {
        const part = piece.kind === "A" ? a : piece.kind === "B" ? b : piece.ids;
        for (const id of part) {
          ids.push(id);
          typeIds.push(piece.typeId);
        }
      }
      return { ids, typeIds, truncated };
    },
  };
}
