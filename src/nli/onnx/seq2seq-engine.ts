/**
 * A seq2seq detector (MiniCheck-Flan-T5) on onnxruntime: the encoder graph over the recipe's text,
 * then ONE decoder step from the recipe's start id, reading the logits of its two label tokens;
 * softmax over the two gives P(supported), and a pair's is the max over its premise's chunks.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { NliPair, NliResult } from "../../core/backend.ts";
import { isConfigError } from "../../config/errors.ts";
import { throughNativeGates } from "../../workers/native-gate.ts";
import type { OnnxRecipe } from "../recipes/types.ts";
import type { EncodedPair } from "./encoder.ts";
import type { InferenceStats, OnnxEngineDeps } from "./engine.ts";
import { floatValues, tokenSettings } from "./engine.ts";
import { readJsonFile } from "./model-dir.ts";
import { createRecipeTextEncoder } from "./recipe-text.ts";
import type { OnnxRuntime, OnnxSession, OnnxTensor } from "./runtime.ts";
import { loadOnnxRuntime } from "./runtime.ts";
import { inLengthOrder } from "./session.ts";
import type { Seq2SeqChoice } from "./seq2seq-files.ts";
import { chooseSeq2SeqGraphs } from "./seq2seq-files.ts";
import { localGraphs } from "./model-dir.ts";
import type { CpuFeatures } from "./variants.ts";
import { readCpuFeatures } from "./variants.ts";

export interface Seq2SeqEngineOptions {
  /** Model directory: config.json, tokenizer.json, and the encoder and decoder graphs (in onnx/ or at the root). */
  readonly dir: string;
  /** The recipe: a `text` input and a `decoder-step` output. */
  readonly recipe: OnnxRecipe;
  /** auto (default), fp32, int8, quantized, or the encoder's or decoder's file name. */
  readonly variant?: string;
  /** The CPU the graphs are chosen for (default: this machine's). */
  readonly cpu?: CpuFeatures;
  /** onnxruntime intra-op threads per session. */
  readonly threads?: number;
  /** Most chunks in one inference call. */
  readonly maxBatch?: number;
  /** Cap on the recipe's maximum length, in tokens. */
  readonly maxLength?: number;
}

/** What a seq2seq model directory holds, for `model info` and result provenance. */
export interface Seq2SeqModelInfo {
  readonly dir: string;
  readonly recipe: string;
  /** The encoder and decoder graphs run, relative to `dir`. */
  readonly graphs: { readonly encoder: string; readonly decoder: string };
  /** Short content hash of the two graphs together: the model version results carry. */
  readonly graphSha256: string;
  readonly variant: { readonly precision: string; readonly description: string; readonly reason: string };
  readonly maxLength: number;
  readonly decoderStartId: number;
  readonly labelIds: { readonly supported: number; readonly unsupported: number };
}

/** One chunk as the model read it: its ids, and the two label logits [unsupported, supported]. */
export interface InspectedChunk {
  readonly text: string;
  readonly ids: readonly number[];
  readonly truncated: number;
  readonly logits: readonly number[];
}

export interface Seq2SeqEngine {
  readonly info: Seq2SeqModelInfo;
  stats(): InferenceStats;
  classify(pairs: readonly NliPair[]): Promise<NliResult[]>;
  /** Each pair's chunks with their ids and label logits, in input order (for checks against reference outputs). */
  inspect(pairs: readonly NliPair[]): Promise<Array<{ chunks: InspectedChunk[] }>>;
  close(): Promise<void>;
}

function decoderStep(recipe: OnnxRecipe): { decoderStartId: number; supportedId: number; unsupportedId: number } {
  if (recipe.output.kind !== "decoder-step") throw new Error(`onnx backend: recipe ${recipe.name} is read at ${recipe.output.kind}, not by a decoder step: the seq2seq engine runs decoder-step recipes only`);
  return recipe.output;
}

/** Chooses the graph pair of `dir` for `variant` (a ConfigError on variant when it cannot). */
export function locateSeq2SeqGraphs(dir: string, variant = "auto", cpu?: CpuFeatures): Seq2SeqChoice {
  const files = localGraphs(dir).map((g) => [g.path, g.bytes] as const);
  try {
    return chooseSeq2SeqGraphs(files, variant, cpu ?? readCpuFeatures(), `model directory ${dir}`);
  } catch (error) {
    if (isConfigError(error)) throw error;
    throw new Error(`onnx backend: ${(error as Error).message}`);
  }
}

async function open(ort: OnnxRuntime, graph: string, threads: number | undefined, inputs: readonly string[], output: string, role: string): Promise<OnnxSession> {
  let session: OnnxSession;
  try {
    session = await throughNativeGates(() => ort.InferenceSession.create(graph, { executionProviders: ["cpu"], graphOptimizationLevel: "all", ...(threads ? { intraOpNumThreads: threads, interOpNumThreads: 1 } : {}) }));
  } catch (error) {
    throw new Error(`onnx backend: cannot load ${graph}: ${(error as Error).message}`);
  }
  const missing = inputs.filter((n) => !session.inputNames.includes(n));
  if (missing.length > 0) throw new Error(`onnx backend: ${graph} is not a ${role}: it has no ${missing.join(", ")} input (inputs: ${session.inputNames.join(", ")})`);
  const unknown = session.inputNames.filter((n) => !inputs.includes(n));
  if (unknown.length > 0) throw new Error(`onnx backend: ${graph} needs inputs the seq2seq engine does not supply: ${unknown.join(", ")} (a decoder with a key/value cache; groundwatch runs decoder_model.onnx, which has none)`);
  if (!session.outputNames.includes(output)) throw new Error(`onnx backend: ${graph} is not a ${role}: it has no ${output} output (outputs: ${session.outputNames.join(", ")})`);
  return session;
}

/**
 * Loads a seq2seq export (encoder + decoder graphs, config.json, tokenizer.json) and scores pairs
 * by one decoder step. The graphs' inputs and outputs are checked by name at load; a decoder
 * output of another shape than [batch, 1, vocab] is refused at the first batch.
 */
export async function createSeq2SeqEngine(options: Seq2SeqEngineOptions, deps: OnnxEngineDeps = {}): Promise<Seq2SeqEngine> {
  const { dir, recipe } = options;
  const step = decoderStep(recipe);
  const choice = locateSeq2SeqGraphs(dir, options.variant, options.cpu);
  for (const name of ["config.json", "tokenizer.json"]) {
    if (!existsSync(join(dir, name))) throw new Error(`onnx backend: ${dir} has no ${name} (a seq2seq model directory needs config.json, tokenizer.json, and its encoder and decoder graphs)`);
  }
  const settings = tokenSettings({
    ...(existsSync(join(dir, "special_tokens_map.json")) ? readJsonFile(join(dir, "special_tokens_map.json")) : {}),
    ...(existsSync(join(dir, "tokenizer_config.json")) ? readJsonFile(join(dir, "tokenizer_config.json")) : {}),
  });
  const maxLength = Math.min(recipe.maxLength ?? Number(settings.model_max_length ?? 512), options.maxLength ?? Infinity);
  const text = createRecipeTextEncoder(readJsonFile(join(dir, "tokenizer.json")), settings, recipe, maxLength);
  const encoderPath = join(dir, choice.encoder.graph.path);
  const decoderPath = join(dir, choice.decoder);
  const ort = deps.runtime ?? (await loadOnnxRuntime(deps.importOnnxRuntime));
  const encoder = await open(ort, encoderPath, options.threads, ["input_ids", "attention_mask"], "last_hidden_state", "seq2seq encoder");
  const decoder = await open(ort, decoderPath, options.threads, ["input_ids", "encoder_attention_mask", "encoder_hidden_states"], "logits", "seq2seq decoder");
  const maxBatch = options.maxBatch ?? 8;
  let runs = 0;
  let ran = 0;

  const runBatch = async (batch: readonly EncodedPair[]): Promise<number[][]> => {
    runs++;
    ran += batch.length;
    const width = Math.max(...batch.map((e) => e.ids.length));
    const ids = new BigInt64Array(batch.length * width).fill(BigInt(text.padId));
    const mask = new BigInt64Array(batch.length * width);
    batch.forEach((e, r) => e.ids.forEach((id, c) => {
      ids[r * width + c] = BigInt(id);
      mask[r * width + c] = 1n;
    }));
    const attention = new ort.Tensor("int64", mask, [batch.length, width]);
    const hidden = (await throughNativeGates(() => encoder.run({ input_ids: new ort.Tensor("int64", ids, [batch.length, width]), attention_mask: attention }))).last_hidden_state as OnnxTensor;
    const start = new ort.Tensor("int64", new BigInt64Array(batch.length).fill(BigInt(step.decoderStartId)), [batch.length, 1]);
    const out = (await throughNativeGates(() => decoder.run({ input_ids: start, encoder_attention_mask: attention, encoder_hidden_states: hidden }))).logits;
    const vocab = out?.dims[2] ?? 0;
    if (!out || out.dims.length !== 3 || out.dims[0] !== batch.length || out.dims[1] !== 1 || vocab <= Math.max(step.supportedId, step.unsupportedId)) {
      throw new Error(`onnx backend: ${decoderPath} returned logits of shape [${out?.dims.join(", ") ?? ""}], expected [${batch.length}, 1, vocabulary] with a vocabulary holding the label ids ${step.unsupportedId} and ${step.supportedId}`);
    }
    const data = floatValues(out);
    return batch.map((_, r) => [data[r * vocab + step.unsupportedId] as number, data[r * vocab + step.supportedId] as number]);
  };

  const inspect = async (pairs: readonly NliPair[]): Promise<Array<{ chunks: InspectedChunk[] }>> => {
    const perPair = pairs.map((p) => text.chunks(p.premise, p.hypothesis));
    const flat = perPair.flat();
    const logits = await inLengthOrder(flat.map((c) => ({ ids: c.ids, typeIds: [], truncated: c.truncated })), maxBatch, runBatch);
    let k = 0;
    return perPair.map((chunks) => ({ chunks: chunks.map((c) => ({ text: c.text, ids: c.ids, truncated: c.truncated, logits: logits[k++] as number[] })) }));
  };

  const hash = createHash("sha256").update(readFileSync(encoderPath)).update(readFileSync(decoderPath)).digest("hex").slice(0, 12);
  const { graph, reason } = choice.encoder;
  return {
    info: {
      dir,
      recipe: recipe.name,
      graphs: { encoder: choice.encoder.graph.path, decoder: choice.decoder },
      graphSha256: hash,
      variant: { precision: graph.precision, description: graph.description, reason },
      maxLength,
      decoderStartId: step.decoderStartId,
      labelIds: { supported: step.supportedId, unsupported: step.unsupportedId },
    },
    stats: () => ({ runs, pairs: ran }),
    inspect,
    async classify(pairs: readonly NliPair[]): Promise<NliResult[]> {
      const inspected = await inspect(pairs);
      return inspected.map(({ chunks }) => supportedResult(chunks));
    },
    async close(): Promise<void> {
      await encoder.release();
      await decoder.release();
    },
  };
}

/** P(supported) of two label logits [unsupported, supported]. */
export function supportedProbability(logits: readonly number[]): number {
  const [u = 0, s = 0] = logits;
  const m = Math.max(u, s);
  const eu = Math.exp(u - m);
  const es = Math.exp(s - m);
  return es / (eu + es);
}

/** A binary detector's result from its chunks: the max P(supported), the rest neutral, never a contradiction. */
export function supportedResult(chunks: readonly InspectedChunk[]): NliResult {
  const probs = chunks.map((c) => supportedProbability(c.logits));
  const p = Math.max(...probs);
  const best = probs.indexOf(p);
  const truncated = chunks.reduce((n, c) => n + c.truncated, 0);
  const notes: string[] = [];
  if (chunks.length > 1) notes.push(`premise read in ${chunks.length} chunks; best: chunk ${best + 1}`);
  if (truncated > 0) notes.push(`premise cut by ${truncated} tokens to fit`);
  return { entailment: p, neutral: 1 - p, contradiction: 0, ...(truncated > 0 ? { truncatedTokens: truncated } : {}), ...(notes.length > 0 ? { notes } : {}) };
}
