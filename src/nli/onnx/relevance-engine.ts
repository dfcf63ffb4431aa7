/**
 * A relevance cross-encoder (cross-encoder/ms-marco-MiniLM-L-6-v2, BAAI/bge-reranker-base and the
 * like): one logit per (query, passage) pair, read as sigmoid(logit). Not an NLI model: its graph
 * must have exactly one output logit per pair, and an NLI graph given in its place is refused.
 */
import { join } from "node:path";
import type { RelevancePair } from "../../core/backend.ts";
import { RELEVANCE_RECIPE } from "../recipes/onnx.ts";
import type { EncodedPair } from "./encoder.ts";
import type { InferenceStats, OnnxEngineDeps, OnnxEngineOptions } from "./engine.ts";
import { readJsonFile } from "./model-dir.ts";
import type { GraphDescription } from "./model-read.ts";
import { describeGraph, floatValues, readModelDir } from "./model-read.ts";
import { createRecipeFeeder } from "./recipe-feeder.ts";
import type { OnnxTensor } from "./runtime.ts";
import { loadOnnxRuntime } from "./runtime.ts";
import { inLengthOrder, openPairSession, runPairBatch } from "./session.ts";
import { isPlainObject } from "../../core/plain-object.ts";

/** What the loaded relevance model is, for doctor, `relevanceScorer` and result provenance. */
export interface RelevanceModelInfo extends GraphDescription {
  readonly maxLength: number;
  /** The graph's inputs, as the runtime reads them. */
  readonly inputs: readonly string[];
}

export interface RelevanceEngine {
  readonly info: RelevanceModelInfo;
  /** session.run calls and pairs run since the engine was created (the load probe included). */
  stats(): InferenceStats;
  /** sigmoid(logit) per pair, in order. */
  score(pairs: readonly RelevancePair[]): Promise<number[]>;
  /** Raw logits and the encoded inputs, in input order (for checks against reference outputs). */
  logits(pairs: readonly RelevancePair[]): Promise<{ logits: number[]; encoded: EncodedPair[] }>;
  close(): Promise<void>;
}

export function sigmoid(x: number): number {
  return x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
}

/** What a relevance model is called in messages: its directory. */
const named = (dir: string): string => `relevance model ${dir}`;

/**
 * The number of labels config.json declares (id2label, label2id or num_labels), when it declares
 * any: a relevance cross-encoder declares one (ms-marco's and bge's {"0": "LABEL_0"}).
 */
export function declaredLabels(config: Record<string, unknown>): number | undefined {
  const table = [config.id2label, config.label2id].find(isPlainObject);
  if (table) return Object.keys(table).length;
  const n = Number(config.num_labels);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/** Whether a model directory's config.json declares one label (a relevance cross-encoder, not an NLI model); false when it cannot be read. */
export function declaresOneLabel(dir: string): boolean {
  try {
    return declaredLabels(readJsonFile(join(dir, "config.json"))) === 1;
  } catch {
    return false;
  }
}

/** The logits of a batch of `rows` pairs from an output of shape [rows, 1] or [rows]; any other shape is refused, naming it. */
export function singleLogits(out: OnnxTensor | undefined, rows: number, where: string): number[] {
  const dims = out?.dims ?? [];
  const ok = out !== undefined && dims[0] === rows && (dims.length === 1 || (dims.length === 2 && dims[1] === 1));
  if (!ok) {
    throw new Error(
      `onnx backend: ${where} returned an output of shape [${dims.join(", ")}] for ${rows} pair(s); a relevance cross-encoder has exactly one output logit per pair ([${rows}, 1] or [${rows}]) — an NLI model (one logit per label) is not a relevance model`,
    );
  }
  return Array.from(floatValues(out));
}

/**
 * Loads a relevance cross-encoder on this thread: the graph chosen as for NLI models (variants.ts),
 * pairs encoded query first, passage second, cut as NLI pairs are (longest first; the passage keeps
 * `minHypothesisTokens`), in length-sorted batches. Refused at load, naming the model and what it
 * has: a config.json declaring other than one label, or a graph that answers a probe pair with
 * other than one logit.
 */
export async function createRelevanceEngine(options: OnnxEngineOptions, deps: OnnxEngineDeps = {}): Promise<RelevanceEngine> {
  const { files, config, tokenizerJson, tokenizerSettings, maxLength } = readModelDir(options, RELEVANCE_RECIPE);
  const labels = declaredLabels(config);
  if (labels !== undefined && labels !== 1) {
    const shown = JSON.stringify(config.id2label ?? config.label2id ?? { num_labels: config.num_labels });
    throw new Error(`onnx backend: ${named(files.dir)}: config.json declares ${labels} labels (${shown}); a relevance cross-encoder has exactly one output logit per pair (an NLI model cannot be read as relevance)`);
  }
  // How a relevance cross-encoder is fed: RELEVANCE_RECIPE (the pair template, cut longest first), as every family's feeding is read from its recipe.
  const feeder = createRecipeFeeder(RELEVANCE_RECIPE, tokenizerJson, tokenizerSettings, { maxLength, minHypothesisTokens: options.minHypothesisTokens ?? 64 });
  const encode = (query: string, passage: string): EncodedPair => feeder.feed(query, passage)[0] as EncodedPair;
  const ort = deps.runtime ?? (await loadOnnxRuntime(deps.importOnnxRuntime));
  const s = await openPairSession(ort, files.graph, options.threads);
  const maxBatch = options.maxBatch ?? 32;
  const where = `${named(files.dir)} (${files.graph})`;
  let runs = 0;
  let ran = 0;
  const runBatch = async (batch: readonly EncodedPair[]): Promise<number[]> => {
    runs++;
    ran += batch.length;
    return singleLogits(await runPairBatch(ort, s, batch, feeder.padId), batch.length, where);
  };
  try {
    // The graph's output shape is only known by running it: one probe pair, at load.
    await runBatch([encode("query", "passage")]);
  } catch (error) {
    await s.session.release();
    throw error;
  }
  const logits = async (pairs: readonly RelevancePair[]): Promise<{ logits: number[]; encoded: EncodedPair[] }> => {
    const encoded = pairs.map((p) => encode(p.query, p.passage));
    return { logits: await inLengthOrder(encoded, maxBatch, runBatch), encoded };
  };
  return {
    info: { ...describeGraph(files), maxLength, inputs: s.session.inputNames },
    stats: () => ({ runs, pairs: ran }),
    logits,
    async score(pairs: readonly RelevancePair[]): Promise<number[]> {
      return (await logits(pairs)).logits.map(sigmoid);
    },
    async close(): Promise<void> {
      await s.session.release();
    },
  };
}
