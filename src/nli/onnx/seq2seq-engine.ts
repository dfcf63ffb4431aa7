/**
 * A seq2seq detector (MiniCheck-Flan-T5) on onnxruntime: the encoder graph over each chunk's recipe
 * text (recipe-feeder.ts), then ONE decoder step from the recipe's start id, reading the logits of
 * its two label tokens as the recipe's two columns; softmax over them gives P(supported), and a
 * pair's result is its best chunk's (recipe-output.ts), as the sequence-classification engine's is.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isConfigError } from "../../config/errors.ts";
import { throughNativeGates } from "../../workers/native-gate.ts";
import type { RecipeChoice } from "../recipes/recognise.ts";
import { recogniseRecipe } from "../recipes/recognise.ts";
import type { EncodedPair } from "./encoder.ts";
import type { OnnxEngine, OnnxEngineDeps, OnnxEngineOptions, OnnxModelDescription } from "./engine-types.ts";
import type { LabelMap } from "./model-dir.ts";
import { localGraphs, readJsonFile } from "./model-dir.ts";
import { floatValues, tokenSettings } from "./model-read.ts";
import { createRecipeFeeder } from "./recipe-feeder.ts";
import { mapRecipeLabels } from "./recipe-labels.ts";
import { chunkedPairMethods } from "./chunked-run.ts";
import { recipeSummary } from "./recipe-summary.ts";
import type { OnnxRuntime, OnnxSession, OnnxTensor } from "./runtime.ts";
import { loadOnnxRuntime } from "./runtime.ts";
import type { Seq2SeqChoice } from "./seq2seq-files.ts";
import { chooseSeq2SeqGraphs, isSeq2SeqExport } from "./seq2seq-files.ts";
import type { CpuFeatures } from "./variants.ts";
import { readCpuFeatures } from "./variants.ts";

type Options = Pick<OnnxEngineOptions, "dir" | "variant" | "cpu" | "maxLength" | "recipe">;

/** True when `dir` holds a seq2seq export: encoder_model*.onnx / decoder_model*.onnx graphs and no single-graph model. */
export function isSeq2SeqDir(dir: string): boolean {
  return isSeq2SeqExport(localGraphs(dir));
}

/** Chooses the graph pair of `dir` for `variant` (a ConfigError on variant when it cannot; a plain Error naming a missing graph). */
export function locateSeq2SeqGraphs(dir: string, variant = "auto", cpu?: CpuFeatures): Seq2SeqChoice {
  const files = localGraphs(dir).map((g) => [g.path, g.bytes] as const);
  try {
    return chooseSeq2SeqGraphs(files, variant, cpu ?? readCpuFeatures(), `model directory ${dir}`);
  } catch (error) {
    if (isConfigError(error)) throw error;
    throw new Error(`onnx backend: ${(error as Error).message}`);
  }
}

/** A seq2seq directory read from its files: graphs, config, recipe, labels, tokenizer, maximum length. */
interface PreparedSeq2Seq {
  readonly graphs: Seq2SeqChoice;
  readonly choice: RecipeChoice;
  readonly step: { readonly decoderStartId: number; readonly supportedId: number; readonly unsupportedId: number };
  readonly labels: LabelMap;
  readonly tokenizerJson: Record<string, unknown>;
  readonly tokenizerSettings: Record<string, unknown>;
  readonly maxLength: number;
}

/**
 * Reads a seq2seq directory and chooses its recipe: one that reads a decoder step (named, or
 * recognised); any other is refused, naming the recipe and why it was chosen.
 */
export function prepareSeq2Seq(options: Options): PreparedSeq2Seq {
  const { dir } = options;
  const graphs = locateSeq2SeqGraphs(dir, options.variant, options.cpu);
  const need = (name: string): string => {
    if (!existsSync(join(dir, name))) throw new Error(`onnx backend: ${dir} has no ${name} (a seq2seq model directory needs config.json, tokenizer.json, and its encoder and decoder graphs)`);
    return join(dir, name);
  };
  const source = need("config.json");
  const config = readJsonFile(source);
  const choice = recogniseRecipe({ name: options.recipe, dir, config, source });
  const { recipe } = choice;
  if (recipe.output.kind !== "decoder-step") {
    throw new Error(`onnx backend: ${dir} is a seq2seq export (${graphs.encoder.graph.path} and ${graphs.decoder}), which recipe ${recipe.name} (${choice.why}) does not read: it reads ${recipe.output.kind}; name a recipe that runs a decoder step (minicheck-flan-t5)`);
  }
  const optional = (name: string): Record<string, unknown> => (existsSync(join(dir, name)) ? readJsonFile(join(dir, name)) : {});
  const tokenizerSettings = tokenSettings({ ...optional("special_tokens_map.json"), ...optional("tokenizer_config.json") });
  const tokenizerJson = readJsonFile(need("tokenizer.json"));
  // T5's positions are relative: the recipe's length (the reference code's), not the tokenizer's 512.
  const fromTokenizer = Number(tokenizerSettings.model_max_length);
  const maxLength = Math.min(recipe.maxLength ?? (Number.isFinite(fromTokenizer) && fromTokenizer > 0 && fromTokenizer < 1e6 ? fromTokenizer : 512), options.maxLength ?? Infinity);
  return { graphs, choice, step: recipe.output, labels: mapRecipeLabels(recipe, config, source), tokenizerJson, tokenizerSettings, maxLength };
}

function describePrepared(dir: string, p: PreparedSeq2Seq, sha: string): OnnxModelDescription {
  const { graph, reason } = p.graphs.encoder;
  return {
    dir,
    graph: graph.path,
    decoder: p.graphs.decoder,
    graphSha256: sha,
    variant: { precision: graph.precision, description: `${graph.description} encoder and decoder`, reason },
    graphs: localGraphs(dir),
    labels: p.labels,
    maxLength: p.maxLength,
    recipe: recipeSummary(p.choice),
  };
}

/** Short content hash of the encoder and decoder together: the model version results carry. */
function pairSha256(dir: string, p: PreparedSeq2Seq): string {
  return createHash("sha256").update(readFileSync(join(dir, p.graphs.encoder.graph.path))).update(readFileSync(join(dir, p.graphs.decoder))).digest("hex").slice(0, 12);
}

/** What a seq2seq directory holds, from its files alone (`model info` without onnxruntime). */
export function describeSeq2SeqModel(options: Options): OnnxModelDescription {
  const p = prepareSeq2Seq(options);
  return describePrepared(options.dir, p, pairSha256(options.dir, p));
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
 * Loads a seq2seq export (encoder + decoder graphs, config.json, tokenizer.json) as an OnnxEngine
 * that scores pairs by one decoder step. Both graphs' inputs and outputs are checked by name at
 * load; decoder logits of another shape than [batch, 1, vocabulary] are refused at the first batch.
 */
export async function createSeq2SeqEngine(options: OnnxEngineOptions, deps: OnnxEngineDeps = {}): Promise<OnnxEngine> {
  const { dir } = options;
  const p = prepareSeq2Seq(options);
  const { step, labels, maxLength } = p;
  const feeder = createRecipeFeeder(p.choice.recipe, p.tokenizerJson, p.tokenizerSettings, { maxLength, minHypothesisTokens: options.minHypothesisTokens ?? 64 });
  const decoderPath = join(dir, p.graphs.decoder);
  const ort = deps.runtime ?? (await loadOnnxRuntime(deps.importOnnxRuntime));
  const encoder = await open(ort, join(dir, p.graphs.encoder.graph.path), options.threads, ["input_ids", "attention_mask"], "last_hidden_state", "seq2seq encoder");
  const decoder = await open(ort, decoderPath, options.threads, ["input_ids", "encoder_attention_mask", "encoder_hidden_states"], "logits", "seq2seq decoder").catch(async (error: unknown) => {
    await encoder.release();
    throw error;
  });
  const maxBatch = options.maxBatch ?? 8;
  let runs = 0;
  let ran = 0;

  /** One batch: the encoder over the padded chunks, one decoder step, each row's two label logits in the label map's columns. */
  const runBatch = async (batch: readonly EncodedPair[]): Promise<number[][]> => {
    runs++;
    ran += batch.length;
    const width = Math.max(...batch.map((e) => e.ids.length));
    const ids = new BigInt64Array(batch.length * width).fill(BigInt(feeder.padId));
    const mask = new BigInt64Array(batch.length * width);
    batch.forEach((e, r) =>
      e.ids.forEach((id, c) => {
        ids[r * width + c] = BigInt(id);
        mask[r * width + c] = 1n;
      }),
    );
    const attention = new ort.Tensor("int64", mask, [batch.length, width]);
    const hidden = (await throughNativeGates(() => encoder.run({ input_ids: new ort.Tensor("int64", ids, [batch.length, width]), attention_mask: attention }))).last_hidden_state as OnnxTensor;
    const start = new ort.Tensor("int64", new BigInt64Array(batch.length).fill(BigInt(step.decoderStartId)), [batch.length, 1]);
    const out = (await throughNativeGates(() => decoder.run({ input_ids: start, encoder_attention_mask: attention, encoder_hidden_states: hidden }))).logits;
    const vocab = out?.dims[2] ?? 0;
    if (!out || out.dims.length !== 3 || out.dims[0] !== batch.length || out.dims[1] !== 1 || vocab <= Math.max(step.supportedId, step.unsupportedId)) {
      throw new Error(`onnx backend: ${decoderPath} returned logits of shape [${out?.dims.join(", ") ?? ""}], expected [${batch.length}, 1, vocabulary] with a vocabulary holding the label ids ${step.unsupportedId} and ${step.supportedId}`);
    }
    const data = floatValues(out);
    if (labels.kind !== "binary") throw new Error(`onnx backend: recipe ${p.choice.recipe.name} reads a decoder step with ${labels.kind} labels; a decoder step reads two label tokens`);
    return batch.map((_, r) => {
      const row = [0, 0];
      row[labels.supported] = data[r * vocab + step.supportedId] as number;
      row[labels.unsupported] = data[r * vocab + step.unsupportedId] as number;
      return row;
    });
  };

  const methods = chunkedPairMethods({ feeder, maxBatch, runBatch, labels, maxLength });

  return {
    info: { ...describePrepared(dir, p, pairSha256(dir, p)), inputs: encoder.inputNames },
    stats: () => ({ runs, pairs: ran }),
    ...methods,
    async close(): Promise<void> {
      await encoder.release();
      await decoder.release();
    },
  };
}
