import type { NliPair, NliResult } from "../../core/backend.ts";
import type { RecipeChoice } from "../recipes/recognise.ts";
import { recogniseRecipe } from "../recipes/recognise.ts";
import type { RecipeChunking } from "../recipes/types.ts";
import type { EncodedPair } from "./encoder.ts";
import type { LabelMap, ModelFiles } from "./model-dir.ts";
import type { GraphDescription, ModelDirContents, ModelDirOptions } from "./model-read.ts";
import { describeGraph, readModelDir, readModelFiles } from "./model-read.ts";
import type { EncodedChunk } from "./recipe-feeder.ts";
import { createRecipeFeeder } from "./recipe-feeder.ts";
import { mapRecipeLabels } from "./recipe-labels.ts";
import { bestChunk, pairResult, readLogitRows } from "./recipe-output.ts";
import type { OnnxImporter, OnnxRuntime } from "./runtime.ts";
import { loadOnnxRuntime } from "./runtime.ts";
import { inLengthOrder, openPairSession, runPairBatch } from "./session.ts";

export type { GraphDescription, ModelDirContents } from "./model-read.ts";
export { describeGraph, floatValues, readModelDir, tokenSettings } from "./model-read.ts";
export { probabilitiesFromLogits } from "./recipe-output.ts";

export interface OnnxEngineOptions extends ModelDirOptions {
  /** onnxruntime intra-op threads per session. */
  readonly threads?: number;
  /** Most pairs in one inference call. */
  readonly maxBatch?: number;
  /** Tokens the hypothesis keeps when a pair is truncated. */
  readonly minHypothesisTokens?: number;
  /**
   * The recipe that feeds and reads the model (recipes/onnx.ts: nli, factcg, minicheck-roberta, …), by
   * name; default: recognised from the repository name and config.json (recipes/recognise.ts).
   */
  readonly recipe?: string;
}

/** What `groundwatch model info` shows of a model's recipe. */
export interface RecipeSummary {
  readonly name: string;
  readonly description: string;
  /** Why it was chosen: named, repository name, config.json architectures or labels. */
  readonly why: string;
  /** The text template (`text` recipes), or undefined: the tokenizer's pair template. */
  readonly template?: string;
  /** Where the answer is read: pooled, token0 or decoder-step. */
  readonly output: string;
  readonly chunking?: Pick<RecipeChunking, "unit" | "size" | "joiner">;
  /** The reference code the recipe follows. */
  readonly reference: string;
}

/** What a model directory holds, read from its files alone (no runtime needed). */
export interface OnnxModelDescription extends GraphDescription {
  readonly labels: LabelMap;
  readonly maxLength: number;
  /** The recipe that reads the model, and why it was chosen. */
  readonly recipe: RecipeSummary;
}

/** What the loaded model is, for `groundwatch model info` and result provenance. */
export interface OnnxModelInfo extends OnnxModelDescription {
  /** The graph's inputs, as the runtime reads them. */
  readonly inputs: readonly string[];
}

/** How an engine gets onnxruntime-node. */
export interface OnnxEngineDeps {
  /** An already loaded runtime (default: `loadOnnxRuntime(importOnnxRuntime)`). */
  readonly runtime?: OnnxRuntime;
  /** Imports onnxruntime-node when no runtime is given (default: the real import); injected in tests. */
  readonly importOnnxRuntime?: OnnxImporter;
}

/** Inference done so far: session.run calls and the model inputs (pairs, or chunks of pairs) they ran. */
export interface InferenceStats {
  readonly runs: number;
  readonly pairs: number;
}

/** One pair as the model read it: each chunk's input and logits, in the premise's order. */
export interface InspectedPair {
  readonly chunks: ReadonlyArray<{ readonly text?: string; readonly ids: number[]; readonly logits: number[] }>;
}

export interface OnnxEngine {
  readonly info: OnnxModelInfo;
  /** session.run calls and pairs run since the engine was created. */
  stats(): InferenceStats;
  classify(pairs: readonly NliPair[]): Promise<NliResult[]>;
  /** Raw logits and the encoded inputs, in input order: per pair, its deciding chunk's (an NLI pair has one). */
  logits(pairs: readonly NliPair[]): Promise<{ logits: number[][]; encoded: EncodedPair[] }>;
  /** Per pair, every chunk's input and logits (for checks against reference outputs chunk by chunk). */
  inspect(pairs: readonly NliPair[]): Promise<InspectedPair[]>;
  close(): Promise<void>;
}

/** A model directory read for an engine: its files, the recipe chosen and why, and the label map it reads with. */
interface PreparedModel extends ModelDirContents {
  readonly choice: RecipeChoice;
  readonly labels: LabelMap;
}

function prepare(options: Pick<OnnxEngineOptions, "dir" | "variant" | "cpu" | "maxLength" | "recipe">): PreparedModel {
  const found = readModelFiles(options);
  const choice = recogniseRecipe({ name: options.recipe, dir: found.files.dir, config: found.config, source: found.files.config });
  const contents = readModelDir(options, choice.recipe, found);
  return { ...contents, choice, labels: mapRecipeLabels(choice.recipe, contents.config, contents.files.config) };
}

function summary({ recipe, why }: RecipeChoice): RecipeSummary {
  const { chunking } = recipe;
  return {
    name: recipe.name,
    description: recipe.description,
    why,
    ...(recipe.input.kind === "text" ? { template: recipe.input.template } : {}),
    output: recipe.output.kind,
    ...(chunking ? { chunking: { unit: chunking.unit, size: chunking.size, joiner: chunking.joiner } } : {}),
    reference: recipe.reference,
  };
}

function describe(files: ModelFiles, labels: LabelMap, maxLength: number, choice: RecipeChoice): OnnxModelDescription {
  const g = describeGraph(files);
  return { dir: g.dir, graph: g.graph, graphSha256: g.graphSha256, variant: g.variant, graphs: g.graphs, labels, maxLength, recipe: summary(choice) };
}

/**
 * Reads a model directory's graph, recipe, labels and maximum length from its files, without
 * onnxruntime: what `groundwatch model info` can show when the runtime is not installed.
 */
export function describeOnnxModel(options: Pick<OnnxEngineOptions, "dir" | "variant" | "cpu" | "maxLength" | "recipe">): OnnxModelDescription {
  const p = prepare(options);
  return describe(p.files, p.labels, p.maxLength, p.choice);
}

/**
 * Loads a model directory into an onnxruntime session on this thread and classifies pairs as its
 * recipe says (recipe-feeder.ts, recipe-output.ts): each pair's premise chunks in length-sorted
 * batches, each padded only to its longest row; a pair's result is its best chunk's.
 * onnxruntime-node is loaded here, lazily (`deps.runtime` skips that).
 */
export async function createOnnxEngine(options: OnnxEngineOptions, deps: OnnxEngineDeps = {}): Promise<OnnxEngine> {
  const { files, tokenizerJson, tokenizerSettings, maxLength, choice, labels } = prepare(options);
  const { recipe } = choice;
  if (recipe.output.kind === "decoder-step") {
    throw new Error(`onnx backend: ${files.dir}: recipe ${recipe.name} (${choice.why}) runs one decoder step of a seq2seq model, which the sequence-classification engine does not run`);
  }
  const feeder = createRecipeFeeder(recipe, tokenizerJson, tokenizerSettings, { maxLength, minHypothesisTokens: options.minHypothesisTokens ?? 64 });
  const ort = deps.runtime ?? (await loadOnnxRuntime(deps.importOnnxRuntime));
  const s = await openPairSession(ort, files.graph, options.threads);
  const nLabels = labels.labels.length;
  const maxBatch = options.maxBatch ?? 32;
  let runs = 0;
  let ran = 0;

  const runBatch = async (batch: readonly EncodedChunk[]): Promise<number[][]> => {
    runs++;
    ran += batch.length;
    const out = await runPairBatch(ort, s, batch, feeder.padId);
    return readLogitRows(out, batch.length, nLabels, recipe.output, `${files.graph} returned ${s.outputName}`);
  };

  /** Every pair's chunks with their logits, all chunks of all pairs run together. */
  const run = async (pairs: readonly NliPair[]): Promise<Array<Array<{ input: EncodedChunk; logits: number[] }>>> => {
    const fed = pairs.map((p) => feeder.feed(p.premise, p.hypothesis));
    const rows = await inLengthOrder(fed.flat(), maxBatch, runBatch);
    let next = 0;
    return fed.map((chunks) => chunks.map((input) => ({ input, logits: rows[next++] ?? [] })));
  };
  const chunkLogits = (chunks: ReadonlyArray<{ input: EncodedChunk; logits: number[] }>): Array<{ logits: number[]; truncated: number }> => chunks.map((c) => ({ logits: c.logits, truncated: c.input.truncated }));

  return {
    info: { ...describe(files, labels, maxLength, choice), inputs: s.session.inputNames },
    stats: () => ({ runs, pairs: ran }),
    async logits(pairs: readonly NliPair[]): Promise<{ logits: number[][]; encoded: EncodedPair[] }> {
      const decided = (await run(pairs)).map((chunks) => chunks[bestChunk(chunkLogits(chunks), labels)] ?? { input: { ids: [], typeIds: [], truncated: 0 }, logits: [] });
      return { logits: decided.map((c) => c.logits), encoded: decided.map((c) => c.input) };
    },
    async inspect(pairs: readonly NliPair[]): Promise<InspectedPair[]> {
      return (await run(pairs)).map((chunks) => ({ chunks: chunks.map(({ input, logits }) => ({ ...(input.text !== undefined ? { text: input.text } : {}), ids: [...input.ids], logits })) }));
    },
    async classify(pairs: readonly NliPair[]): Promise<NliResult[]> {
      return (await run(pairs)).map((chunks) => pairResult(chunkLogits(chunks), labels, maxLength));
    },
    async close(): Promise<void> {
      await s.session.release();
    },
  };
}
