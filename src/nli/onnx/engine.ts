import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import type { NliPair, NliResult } from "../../core/backend.ts";
import type { EncodedPair, PairEncoder } from "./encoder.ts";
import { createPairEncoder } from "./encoder.ts";
import type { LabelMap, ModelFiles, OnnxVariant } from "./model-dir.ts";
import { locateModelFiles, mapLabels, readJsonFile } from "./model-dir.ts";
import type { OnnxImporter, OnnxRuntime, OnnxTensor } from "./runtime.ts";
import { loadOnnxRuntime } from "./runtime.ts";
import { inLengthOrder, openPairSession, runPairBatch } from "./session.ts";
import type { CpuFeatures, GraphVariant } from "./variants.ts";
import { isPlainObject } from "../../core/plain-object.ts";

export interface OnnxEngineOptions {
  /** Model directory (Hugging Face layout). */
  readonly dir: string;
  /** auto (default), fp32, int8, fp16, q4, quantized, or a graph's file name. */
  readonly variant?: OnnxVariant;
  /** The CPU the graph is chosen for (default: this machine's, read from /proc/cpuinfo). */
  readonly cpu?: CpuFeatures;
  /** onnxruntime intra-op threads per session. */
  readonly threads?: number;
  /** Most pairs in one inference call. */
  readonly maxBatch?: number;
  /** Cap on the model's maximum sequence length. */
  readonly maxLength?: number;
  /** Tokens the hypothesis keeps when a pair is truncated. */
  readonly minHypothesisTokens?: number;
}

/** What a model directory holds, read from its files alone (no runtime needed). */
export interface OnnxModelDescription {
  readonly dir: string;
  readonly graph: string;
  /** Short content hash of the graph: the model version results carry. */
  readonly graphSha256: string;
  readonly labels: LabelMap;
  readonly maxLength: number;
  /** The chosen graph's kind and why it was chosen. */
  readonly variant: { readonly precision: GraphVariant["precision"]; readonly description: string; readonly reason: string };
  /** Every graph the directory holds, with its size. */
  readonly graphs: readonly GraphVariant[];
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

/** Inference done so far: session.run calls and the pairs they ran. */
export interface InferenceStats {
  readonly runs: number;
  readonly pairs: number;
}

export interface OnnxEngine {
  readonly info: OnnxModelInfo;
  /** session.run calls and pairs run since the engine was created. */
  stats(): InferenceStats;
  classify(pairs: readonly NliPair[]): Promise<NliResult[]>;
  /** Raw logits and the encoded inputs, in input order (for checks against reference outputs). */
  logits(pairs: readonly NliPair[]): Promise<{ logits: number[][]; encoded: EncodedPair[] }>;
  close(): Promise<void>;
}

function softmax(row: Float32Array | number[]): number[] {
  const max = Math.max(...row);
  const exps = Array.from(row, (x) => Math.exp(x - max));
  const sum = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / sum);
}

/** Turns one row of logits into class probabilities through the label map. */
export function probabilitiesFromLogits(row: Float32Array | number[], labels: LabelMap): { entailment: number; neutral: number; contradiction: number } {
  const p = softmax(row);
  if (labels.kind === "three") return { entailment: p[labels.entailment] ?? 0, neutral: p[labels.neutral] ?? 0, contradiction: p[labels.contradiction] ?? 0 };
  // A two-label model cannot tell contradiction from missing evidence: all of "not entailed" is neutral.
  return { entailment: p[labels.entailment] ?? 0, neutral: p[labels.notEntailment] ?? 0, contradiction: 0 };
}

function maxLengthOf(files: ModelFiles, config: Record<string, unknown>, tokenizerConfig: Record<string, unknown>, cap?: number): number {
  const fromTokenizer = Number(tokenizerConfig.model_max_length);
  const fromConfig = Number(config.max_position_embeddings);
  // RoBERTa-style models reserve two positions (514 → 512); huge model_max_length values mean "unset".
  const positions = Number.isFinite(fromConfig) && fromConfig > 0 ? (fromConfig === 514 ? 512 : fromConfig) : Infinity;
  const tokenizer = Number.isFinite(fromTokenizer) && fromTokenizer > 0 && fromTokenizer < 1e6 ? fromTokenizer : Infinity;
  const length = Math.min(positions, tokenizer, cap ?? Infinity);
  if (!Number.isFinite(length)) throw new Error(`onnx backend: ${files.dir}: no maximum length in config.json or tokenizer_config.json; pass maxLength`);
  return length;
}

function graphSha256(graph: string): string {
  return createHash("sha256").update(readFileSync(graph)).digest("hex").slice(0, 12);
}

/** What a cross-encoder directory holds, read from its files: the NLI engine maps its labels, the relevance engine counts them. */
export interface ModelDirContents {
  readonly files: ModelFiles;
  /** config.json. */
  readonly config: Record<string, unknown>;
  readonly tokenizerJson: Record<string, unknown>;
  /** tokenizer_config.json over special_tokens_map.json. */
  readonly tokenizerSettings: Record<string, unknown>;
  readonly maxLength: number;
}

/**
 * Token settings with each token as a string: tokenizer_config.json and
 * special_tokens_map.json may write a token as {"content": "[PAD]", …} (an AddedToken).
 */
export function tokenSettings(settings: Record<string, unknown>): Record<string, unknown> {
  const content = (v: unknown): unknown => (isPlainObject(v) && typeof v.content === "string" ? v.content : v);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(settings)) {
    if (k.endsWith("_token")) out[k] = content(v);
    else if (k === "additional_special_tokens" && Array.isArray(v)) out[k] = v.map(content).filter((t) => typeof t === "string");
    else out[k] = v;
  }
  return out;
}

/** Reads a model directory's config, tokenizer and maximum length, and chooses its graph (variant rules in variants.ts). */
export function readModelDir(options: Pick<OnnxEngineOptions, "dir" | "variant" | "cpu" | "maxLength">): ModelDirContents {
  const files = locateModelFiles(options.dir, options.variant, options.cpu);
  const config = readJsonFile(files.config);
  const tokenizerConfig = files.tokenizerConfig ? readJsonFile(files.tokenizerConfig) : {};
  const special = files.specialTokensMap ? readJsonFile(files.specialTokensMap) : {};
  const tokenizerJson = readJsonFile(files.tokenizer);
  const maxLength = maxLengthOf(files, config, tokenizerConfig, options.maxLength);
  return { files, config, tokenizerJson, tokenizerSettings: tokenSettings({ ...special, ...tokenizerConfig }), maxLength };
}

/** The chosen graph of a model directory: path, content hash, kind and why, and every graph offered. */
export type GraphDescription = Pick<OnnxModelDescription, "dir" | "graph" | "graphSha256" | "variant" | "graphs">;

export function describeGraph(files: ModelFiles): GraphDescription {
  const { graph, reason } = files.choice;
  return {
    dir: files.dir,
    graph: relative(files.dir, files.graph),
    graphSha256: graphSha256(files.graph),
    variant: { precision: graph.precision, description: graph.description, reason },
    graphs: files.graphs,
  };
}

function describe(files: ModelFiles, labels: LabelMap, maxLength: number): OnnxModelDescription {
  const g = describeGraph(files);
  return { dir: g.dir, graph: g.graph, graphSha256: g.graphSha256, labels, maxLength, variant: g.variant, graphs: g.graphs };
}

/** A float16 value's bits as a number. */
function halfToFloat(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const frac = bits & 0x3ff;
  if (exp === 0) return sign * 2 ** -14 * (frac / 1024);
  if (exp === 0x1f) return frac ? NaN : sign * Infinity;
  return sign * 2 ** (exp - 15) * (1 + frac / 1024);
}

/** An output tensor's values as float32: fp16 graphs return float16, which onnxruntime-node gives as raw bits. */
export function floatValues(tensor: OnnxTensor): Float32Array {
  const { data } = tensor;
  if (data instanceof Float32Array) return data;
  if (tensor.type === "float16" && data instanceof Uint16Array) return Float32Array.from(data, halfToFloat);
  if (ArrayBuffer.isView(data) && !(data instanceof DataView) && !(data instanceof BigInt64Array) && !(data instanceof BigUint64Array)) return Float32Array.from(data as unknown as ArrayLike<number>);
  throw new Error(`onnx backend: the graph's output is of type ${tensor.type ?? "unknown"}, not a float tensor`);
}

/**
 * Reads a model directory's graph, labels and maximum length from its files, without
 * onnxruntime: what `groundwatch model info` can show when the runtime is not installed.
 */
export function describeOnnxModel(options: Pick<OnnxEngineOptions, "dir" | "variant" | "cpu" | "maxLength">): OnnxModelDescription {
  const { files, config, maxLength } = readModelDir(options);
  return describe(files, mapLabels(config, files.config), maxLength);
}

/**
 * Loads a model directory into an onnxruntime session on this thread and classifies
 * pairs in length-sorted batches, each padded only to its longest row.
 * onnxruntime-node is loaded here, lazily (`deps.runtime` skips that).
 */
export async function createOnnxEngine(options: OnnxEngineOptions, deps: OnnxEngineDeps = {}): Promise<OnnxEngine> {
  const { files, config, tokenizerJson, tokenizerSettings, maxLength } = readModelDir(options);
  const labels = mapLabels(config, files.config);
  const encoder: PairEncoder = createPairEncoder(tokenizerJson, tokenizerSettings, { maxLength, minHypothesisTokens: options.minHypothesisTokens ?? 64 });
  const ort = deps.runtime ?? (await loadOnnxRuntime(deps.importOnnxRuntime));
  const s = await openPairSession(ort, files.graph, options.threads);
  const nLabels = labels.labels.length;
  const maxBatch = options.maxBatch ?? 32;
  let runs = 0;
  let ran = 0;

  const runBatch = async (batch: readonly EncodedPair[]): Promise<number[][]> => {
    runs++;
    ran += batch.length;
    const out = await runPairBatch(ort, s, batch, encoder.padId);
    if (!out || out.dims.length !== 2 || out.dims[0] !== batch.length || out.dims[1] !== nLabels) {
      throw new Error(`onnx backend: ${files.graph} returned ${s.outputName} of shape [${out?.dims.join(", ") ?? ""}], expected [${batch.length}, ${nLabels}] for the ${nLabels} labels in config.json`);
    }
    const data = floatValues(out);
    return batch.map((_, r) => Array.from(data.slice(r * nLabels, (r + 1) * nLabels)));
  };

  const logits = async (pairs: readonly NliPair[]): Promise<{ logits: number[][]; encoded: EncodedPair[] }> => {
    const encoded = pairs.map((p) => encoder.encode(p.premise, p.hypothesis));
    return { logits: await inLengthOrder(encoded, maxBatch, runBatch), encoded };
  };

  return {
    info: { ...describe(files, labels, maxLength), inputs: s.session.inputNames },
    stats: () => ({ runs, pairs: ran }),
    logits,
    async classify(pairs: readonly NliPair[]): Promise<NliResult[]> {
      const { logits: rows, encoded } = await logits(pairs);
      return rows.map((row, i) => {
        const probs = probabilitiesFromLogits(row, labels);
        const truncated = encoded[i]?.truncated ?? 0;
        return truncated > 0 ? { ...probs, truncatedTokens: truncated, notes: [`pair truncated by ${truncated} tokens to fit ${maxLength}`] } : probs;
      });
    },
    async close(): Promise<void> {
      await s.session.release();
    },
  };
}
