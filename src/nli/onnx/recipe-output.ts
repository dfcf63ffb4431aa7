/**
 * How a recipe reads a model's answer: the logits of each row where the recipe says (a pooled
 * [batch, labels] output, or a token classifier's [batch, sequence, labels] at position 0), and how
 * a pair's chunks become one result (the label map; for a binary detector, the largest P(supported)
 * over the chunks, its "not supported" mass as neutral, never a contradiction).
 */
import type { NliResult } from "../../core/backend.ts";
import type { RecipeOutput } from "../recipes/types.ts";
import type { LabelMap } from "./model-dir.ts";
import { floatValues } from "./model-read.ts";
import type { OnnxTensor } from "./runtime.ts";

export function softmax(row: Float32Array | readonly number[]): number[] {
  const max = Math.max(...row);
  const exps = Array.from(row, (x) => Math.exp(x - max));
  const sum = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / sum);
}

/** Turns one row of logits into class probabilities through the label map. */
export function probabilitiesFromLogits(row: Float32Array | readonly number[], labels: LabelMap): { entailment: number; neutral: number; contradiction: number } {
  const p = softmax(row);
  if (labels.kind === "three") return { entailment: p[labels.entailment] ?? 0, neutral: p[labels.neutral] ?? 0, contradiction: p[labels.contradiction] ?? 0 };
  // A binary detector cannot see a contradiction: all of "not supported" is neutral.
  if (labels.kind === "binary") {
    const supported = p[labels.supported] ?? 0;
    return { entailment: supported, neutral: 1 - supported, contradiction: 0 };
  }
  // A two-label model cannot tell contradiction from missing evidence: all of "not entailed" is neutral.
  return { entailment: p[labels.entailment] ?? 0, neutral: p[labels.notEntailment] ?? 0, contradiction: 0 };
}

/**
 * The logits of each of `rows` inputs from `out`, read where `output` says: [rows, labels] for a
 * pooled output; [rows, sequence, labels] at position 0 for `token0`. Any other shape is refused,
 * naming it and what was expected; `where` says which graph returned which output ("model.onnx returned logits").
 */
export function readLogitRows(out: OnnxTensor | undefined, rows: number, labels: number, output: RecipeOutput, where: string): number[][] {
  const dims = out?.dims ?? [];
  if (output.kind === "pooled") {
    if (!out || dims.length !== 2 || dims[0] !== rows || dims[1] !== labels) {
      throw new Error(`onnx backend: ${where} of shape [${dims.join(", ")}], expected [${rows}, ${labels}] for the ${labels} labels in config.json`);
    }
    const data = floatValues(out);
    return Array.from({ length: rows }, (_, r) => Array.from(data.slice(r * labels, (r + 1) * labels)));
  }
  if (output.kind === "token0") {
    if (!out || dims.length !== 3 || dims[0] !== rows || dims[2] !== labels) {
      throw new Error(`onnx backend: ${where} of shape [${dims.join(", ")}], expected [${rows}, sequence, ${labels}]: a token classifier read at position 0, with the ${labels} labels in config.json`);
    }
    const data = floatValues(out);
    const stride = Number(dims[1]) * labels;
    return Array.from({ length: rows }, (_, r) => Array.from(data.slice(r * stride, r * stride + labels)));
  }
  throw new Error(`onnx backend: ${where}: a decoder-step recipe runs on the seq2seq engine, not on a sequence classifier`);
}

/** One input's logits and the tokens cut from it. */
export interface ChunkLogits {
  readonly logits: readonly number[];
  readonly truncated: number;
}

/** How likely each chunk says "supported" (or "entailed"), in order. */
function chunkScores(chunks: readonly ChunkLogits[], labels: LabelMap): number[] {
  return chunks.map((c) => probabilitiesFromLogits(c.logits, labels).entailment);
}

/** The chunk that decides a pair: the one with the largest P(supported) (the first of equals). */
export function bestChunk(chunks: readonly ChunkLogits[], labels: LabelMap): number {
  const scores = chunkScores(chunks, labels);
  return scores.reduce((best, s, i) => (s > (scores[best] ?? -Infinity) ? i : best), 0);
}

/**
 * One pair's result from its chunks' logits: the best chunk's probabilities (max over chunks),
 * with the tokens cut from every chunk, and notes naming the cut and, over one chunk, the chunk count
 * and the deciding chunk. An NLI pair (one chunk) reads as it always has.
 */
export function pairResult(chunks: readonly ChunkLogits[], labels: LabelMap, maxLength: number): NliResult {
  const best = bestChunk(chunks, labels);
  const probs = probabilitiesFromLogits(chunks[best]?.logits ?? [], labels);
  const truncated = chunks.reduce((n, c) => n + c.truncated, 0);
  const notes: string[] = [];
  if (truncated > 0) notes.push(labels.kind === "binary" ? `premise cut by ${truncated} tokens to fit ${maxLength}` : `pair truncated by ${truncated} tokens to fit ${maxLength}`);
  if (chunks.length > 1) notes.push(`premise read in ${chunks.length} chunks; chunk ${best + 1} decides (P(supported) ${probs.entailment.toFixed(3)}, the largest)`);
  return notes.length > 0 || truncated > 0 ? { ...probs, ...(truncated > 0 ? { truncatedTokens: truncated } : {}), notes } : probs;
}
