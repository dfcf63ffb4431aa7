/**
 * The token-classification engine (LettuceDetect, TinyLettuce), on this thread: each answer read
 * with its passages as the detector was trained to read them (span-prompt.ts), every answer token's
 * probability of being unsupported, and its characters in the answer (token-offsets.ts).
 *
 * Feeding: segment A is the prompt, segment B the answer, joined by the tokenizer's pair template
 * (ModernBERT: [CLS] A [SEP] B [SEP]). Only the prompt is cut to fit (truncation "only_first", its
 * end); when passages do not fit together they are grouped (passage-groups.ts), one run per group,
 * and each answer token keeps its highest probability over the groups (the reference's max).
 * An answer longer than the length less the special tokens alone has its end cut (counted in
 * truncatedTokens; its tokens past the cut are not scored, so not listed) — the reference refuses it.
 * Reading: logits [batch, sequence, labels], softmax, the unsupported class's probability
 * (span-labels.ts). Rows of every answer and group are run in length-sorted padded batches.
 */
import type { Tokenizer } from "@huggingface/tokenizers";
import type { ScoredToken, SpanDetection, SpanInput } from "../../core/backend.ts";
import type { EncodedPair } from "./encoder.ts";
import { loadTokenizer, padIdOf } from "./encoder.ts";
import type { InferenceStats, OnnxEngineDeps, OnnxEngineOptions } from "./engine-types.ts";
import type { GraphDescription } from "./model-read.ts";
import { describeGraph, floatValues, readModelDir } from "./model-read.ts";
import { groupPassages } from "./passage-groups.ts";
import type { OnnxRuntime } from "./runtime.ts";
import { loadOnnxRuntime } from "./runtime.ts";
import { inLengthOrder, openPairSession, runPairBatch } from "./session.ts";
import type { SpanLabels } from "./span-labels.ts";
import { spanLabels } from "./span-labels.ts";
import { spanPrompt, spanPromptLanguage } from "./span-prompt.ts";
import { createTokenAligner } from "./token-offsets.ts";

/** The reference's default length (TransformerDetector max_length); `maxLength` raises it to the model's own (ModernBERT: 8,192). */
export const REFERENCE_MAX_LENGTH = 4096;

export interface TokenEngineOptions extends OnnxEngineOptions {
  /** The prompt's language (span-prompt.ts); default en. */
  readonly language?: string;
}

/** What the loaded span model is, for `groundwatch model info` and result provenance. */
export interface SpanModelInfo extends GraphDescription {
  readonly maxLength: number;
  readonly labels: SpanLabels;
  readonly language: string;
  /** The graph's inputs, as the runtime reads them. */
  readonly inputs: readonly string[];
}

export interface TokenEngine {
  readonly info: SpanModelInfo;
  /** session.run calls and model inputs (answer × passage group) run since the engine was created (the load probe included). */
  stats(): InferenceStats;
  detect(inputs: readonly SpanInput[]): Promise<SpanDetection[]>;
  close(): Promise<void>;
}

/** One model input: an answer with one group of passages, and where the answer's tokens sit in it. */
interface SpanRow extends EncodedPair {
  readonly answerStart: number;
  readonly answerLength: number;
}

/** Where the pair template puts A and B: the special tokens before, between and after, found by encoding a probe pair. */
interface PairLayout {
  readonly prefix: readonly number[];
  readonly middle: readonly number[];
  readonly suffix: readonly number[];
  /** Type ids of segment A's side (prefix, A, middle) and B's side (B, suffix). */
  readonly typeA: number;
  readonly typeB: number;
}

function indexOfRun(hay: readonly number[], needle: readonly number[], from: number): number {
  for (let i = from; i + needle.length <= hay.length; i++) if (needle.every((id, k) => hay[i + k] === id)) return i;
  return -1;
}

function pairLayout(tokenizer: Tokenizer): PairLayout {
  const a = [...tokenizer.encode("a", { add_special_tokens: false }).ids];
  const b = [...tokenizer.encode("b", { add_special_tokens: false }).ids];
  const full = tokenizer.encode("a", { text_pair: "b", add_special_tokens: true });
  const ids = [...full.ids];
  const ia = indexOfRun(ids, a, 0);
  const ib = ia < 0 ? -1 : indexOfRun(ids, b, ia + a.length);
  if (ia < 0 || ib < 0) throw new Error("onnx span detector: the tokenizer's pair template does not hold its two segments in order");
  const types = full.token_type_ids ?? [];
  return { prefix: ids.slice(0, ia), middle: ids.slice(ia + a.length, ib), suffix: ids.slice(ib + b.length), typeA: types[ia] ?? 0, typeB: types[ib] ?? 0 };
}

/** The unsupported class's softmax probability at each of `count` positions from `start` of row `r` of logits [rows, width, labels]. */
function rowProbabilities(values: Float32Array, r: number, width: number, labels: number, unsupported: number, start: number, count: number): number[] {
  const out = new Array<number>(count);
  for (let k = 0; k < count; k++) {
    const base = (r * width + start + k) * labels;
    let max = -Infinity;
    for (let l = 0; l < labels; l++) max = Math.max(max, values[base + l] as number);
    let sum = 0;
    for (let l = 0; l < labels; l++) sum += Math.exp((values[base + l] as number) - max);
    out[k] = Math.exp((values[base + unsupported] as number) - max) / sum;
  }
  return out;
}

/** Loads a token-classification model directory on this thread (see the file comment). */
export async function createTokenEngine(options: TokenEngineOptions, deps: OnnxEngineDeps = {}): Promise<TokenEngine> {
  const language = options.language ?? "en";
  const lang = spanPromptLanguage(language);
  const { files, config, tokenizerJson, tokenizerSettings, maxLength: modelLength } = readModelDir(options);
  const maxLength = options.maxLength !== undefined ? modelLength : Math.min(REFERENCE_MAX_LENGTH, modelLength);
  const labels = spanLabels(config, files.dir);
  const tokenizer = loadTokenizer(tokenizerJson, tokenizerSettings);
  const layout = pairLayout(tokenizer);
  const specials = layout.prefix.length + layout.middle.length + layout.suffix.length;
  if (maxLength - specials < 1) throw new Error(`onnx span detector: maximum length ${maxLength} leaves no room after ${specials} special tokens`);
  const padId = padIdOf(tokenizer, tokenizerJson, tokenizerSettings);
  const aligner = createTokenAligner(tokenizerJson);
  const ort: OnnxRuntime = deps.runtime ?? (await loadOnnxRuntime(deps.importOnnxRuntime));
  const s = await openPairSession(ort, files.graph, options.threads);
  const maxBatch = Math.max(1, options.maxBatch ?? 8);
  const where = `span model ${files.dir} (${files.graph})`;
  const count = (text: string): number => tokenizer.encode(text, { add_special_tokens: false }).ids.length;
  let runs = 0;
  let ran = 0;

  const row = (prompt: readonly number[], answer: readonly number[]): { row: SpanRow; truncated: number } => {
    const answerRoom = maxLength - specials;
    const kept = answer.length > answerRoom ? answer.slice(0, answerRoom) : answer;
    const keep = Math.max(0, answerRoom - kept.length);
    const a = prompt.length > keep ? prompt.slice(0, keep) : prompt;
    const sideA = [...layout.prefix, ...a, ...layout.middle];
    const ids = [...sideA, ...kept, ...layout.suffix];
    const typeIds = [...new Array<number>(sideA.length).fill(layout.typeA), ...new Array<number>(ids.length - sideA.length).fill(layout.typeB)];
    const truncated = prompt.length - a.length + answer.length - kept.length;
    return { row: { ids, typeIds, truncated, answerStart: sideA.length, answerLength: kept.length }, truncated };
  };

  const runBatch = async (batch: readonly EncodedPair[]): Promise<number[][]> => {
    runs++;
    ran += batch.length;
    const out = await runPairBatch(ort, s, batch, padId);
    const width = Math.max(...batch.map((e) => e.ids.length));
    const dims = out?.dims ?? [];
    const labelCount = dims[2] ?? 0;
    if (!out || dims.length !== 3 || dims[0] !== batch.length || dims[1] !== width || labelCount <= labels.unsupported) {
      throw new Error(`onnx span detector: ${where} returned an output of shape [${dims.join(", ")}] for ${batch.length} input(s) of ${width} tokens; a token classifier returns [${batch.length}, ${width}, ${labels.names.length}] (a sequence classifier is not a span detector)`);
    }
    const values = floatValues(out);
    return batch.map((e, r) => {
      const sr = e as SpanRow;
      return rowProbabilities(values, r, width, labelCount, labels.unsupported, sr.answerStart, sr.answerLength);
    });
  };

  try {
    // The graph's output shape is only known by running it: one probe input, at load.
    await runBatch([row([...tokenizer.encode("passage", { add_special_tokens: false }).ids], [...tokenizer.encode("answer", { add_special_tokens: false }).ids]).row]);
  } catch (error) {
    await s.session.release();
    throw error;
  }

  return {
    info: { ...describeGraph(files), maxLength, labels, language, inputs: s.session.inputNames },
    stats: () => ({ runs, pairs: ran }),
    async detect(inputs: readonly SpanInput[]): Promise<SpanDetection[]> {
      const plans = inputs.map((input) => {
        const answer = tokenizer.encode(input.answer, { add_special_tokens: false });
        const answerIds = [...answer.ids];
        const groups = groupPassages(lang, input.passages, input.question, answerIds.length, maxLength, count);
        const built = groups.map((g) => row([...tokenizer.encode(spanPrompt(lang, g, input.question), { add_special_tokens: false }).ids], answerIds));
        return { input, tokens: [...answer.tokens], built };
      });
      const rows = plans.flatMap((p) => p.built.map((b) => b.row));
      const probabilities = await inLengthOrder(rows, maxBatch, runBatch);
      let next = 0;
      return plans.map((plan) => {
        const perGroup = plan.built.map(() => probabilities[next++] as number[]);
        const offsets = aligner.offsets(plan.input.answer, plan.tokens);
        const tokens: ScoredToken[] = [];
        const scored = perGroup[0]?.length ?? 0;
        for (let k = 0; k < scored; k++) {
          const at = offsets[k];
          if (!at) continue;
          let probability = 0;
          for (const g of perGroup) probability = Math.max(probability, g[k] as number);
          tokens.push({ start: at[0], end: at[1], probability });
        }
        const truncated = plan.built.reduce((n, b) => n + b.truncated, 0);
        return { tokens, runs: plan.built.length, ...(truncated > 0 ? { truncatedTokens: truncated } : {}) };
      });
    },
    async close(): Promise<void> {
      await s.session.release();
    },
  };
}
