import type { RecipeChoice } from "../recipes/recognise.ts";
import { recogniseRecipe } from "../recipes/recognise.ts";
import type { LabelMap, ModelFiles } from "./model-dir.ts";
import type { ModelDirContents } from "./model-read.ts";
import { describeGraph, readModelDir, readModelFiles } from "./model-read.ts";
import type { OnnxEngine, OnnxEngineDeps, OnnxEngineOptions, OnnxModelDescription } from "./engine-types.ts";
import type { EncodedChunk } from "./recipe-feeder.ts";
import { createRecipeFeeder } from "./recipe-feeder.ts";
import { mapRecipeLabels } from "./recipe-labels.ts";
import { recipeSummary } from "./recipe-summary.ts";
import { createSeq2SeqEngine, describeSeq2SeqModel, isSeq2SeqDir } from "./seq2seq-engine.ts";
import { readLogitRows } from "./recipe-output.ts";
import { chunkedPairMethods } from "./chunked-run.ts";
import { loadOnnxRuntime } from "./runtime.ts";
import { openPairSession, runPairBatch } from "./session.ts";

export type { GraphDescription, ModelDirContents } from "./model-read.ts";
export { describeGraph, floatValues, readModelDir, tokenSettings } from "./model-read.ts";
export { probabilitiesFromLogits } from "./recipe-output.ts";
export type { RecipeSummary } from "./recipe-summary.ts";
export type { InferenceStats, InspectedPair, OnnxEngine, OnnxEngineDeps, OnnxEngineOptions, OnnxModelDescription, OnnxModelInfo } from "./engine-types.ts";

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

function describe(files: ModelFiles, labels: LabelMap, maxLength: number, choice: RecipeChoice): OnnxModelDescription {
  const g = describeGraph(files);
  return { dir: g.dir, graph: g.graph, graphSha256: g.graphSha256, variant: g.variant, graphs: g.graphs, labels, maxLength, recipe: recipeSummary(choice) };
}

/**
 * Reads a model directory's graph, recipe, labels and maximum length from its files, without
 * onnxruntime: what `groundwatch model info` can show when the runtime is not installed.
 */
export function describeOnnxModel(options: Pick<OnnxEngineOptions, "dir" | "variant" | "cpu" | "maxLength" | "recipe">): OnnxModelDescription {
  if (isSeq2SeqDir(options.dir)) return describeSeq2SeqModel(options);
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
  // A seq2seq export (encoder and decoder graphs, no single graph) is read by one decoder step.
  if (isSeq2SeqDir(options.dir)) return createSeq2SeqEngine(options, deps);
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

  const methods = chunkedPairMethods({ feeder, maxBatch, runBatch, labels, maxLength });

  return {
    info: { ...describe(files, labels, maxLength, choice), inputs: s.session.inputNames },
    stats: () => ({ runs, pairs: ran }),
    ...methods,
    async close(): Promise<void> {
      await s.session.release();
    },
  };
}
