/**
 * A model directory read from its files, without onnxruntime: config.json, the tokenizer and its
 * settings, the graph chosen, and the maximum length a recipe reads it at. What the NLI and
 * relevance engines, and `groundwatch model info`, share.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import type { OnnxRecipe } from "../recipes/types.ts";
import type { ModelFiles, OnnxVariant } from "./model-dir.ts";
import { locateModelFiles, readJsonFile } from "./model-dir.ts";
import type { OnnxTensor } from "./runtime.ts";
import type { CpuFeatures, GraphVariant } from "./variants.ts";
import { isPlainObject } from "../../core/plain-object.ts";

/** Which model directory to read and how (the engine options readModelDir takes). */
export interface ModelDirOptions {
  /** Model directory (Hugging Face layout). */
  readonly dir: string;
  /** auto (default), fp32, int8, fp16, q4, quantized, or a graph's file name. */
  readonly variant?: OnnxVariant;
  /** The CPU the graph is chosen for (default: this machine's, read from /proc/cpuinfo). */
  readonly cpu?: CpuFeatures;
  /** Cap on the model's maximum sequence length. */
  readonly maxLength?: number;
}

/** The chosen graph of a model directory: path, content hash, kind and why, and every graph offered. */
export interface GraphDescription {
  readonly dir: string;
  readonly graph: string;
  /** Short content hash of the graph: the model version results carry. */
  readonly graphSha256: string;
  /** The chosen graph's kind and why it was chosen. */
  readonly variant: { readonly precision: GraphVariant["precision"]; readonly description: string; readonly reason: string };
  /** Every graph the directory holds, with its size. */
  readonly graphs: readonly GraphVariant[];
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

/** Model types whose attention positions are relative: they read past config.json's max_position_embeddings. */
const RELATIVE_TYPES = ["t5", "mt5", "umt5", "longt5", "hhemv2config", "hhemv2"];
/** Model types whose position ids start after the padding index: they read max_position_embeddings − 2 tokens. */
const OFFSET_TYPES = ["roberta", "xlm-roberta", "camembert", "longformer"];

/** Whether a model's positions are relative (T5; DeBERTa-v2/v3 without absolute position embeddings), from config.json. */
export function relativePositions(config: Record<string, unknown>): boolean {
  const type = String(config.model_type ?? "").toLowerCase();
  const architectures = Array.isArray(config.architectures) ? config.architectures.map(String) : [];
  if (RELATIVE_TYPES.includes(type) || architectures.some((a) => /^(?:T5|MT5|UMT5|LongT5|HHEMv2)/.test(a))) return true;
  const deberta = type === "deberta-v2" || type === "deberta" || architectures.some((a) => a.startsWith("Deberta"));
  return deberta && config.relative_attention === true && config.position_biased_input === false;
}

function maxLengthOf(files: ModelFiles, config: Record<string, unknown>, tokenizerConfig: Record<string, unknown>, cap: number | undefined, recipe: OnnxRecipe | undefined): number {
  const fromTokenizer = Number(tokenizerConfig.model_max_length);
  const fromConfig = Number(config.max_position_embeddings);
  const offset = OFFSET_TYPES.includes(String(config.model_type ?? "").toLowerCase());
  // RoBERTa-style models reserve two positions (514 → 512); huge model_max_length values mean "unset".
  const positions = Number.isFinite(fromConfig) && fromConfig > 0 ? (offset ? fromConfig - 2 : fromConfig === 514 ? 512 : fromConfig) : Infinity;
  if (recipe?.maxLength !== undefined) {
    // The reference code's length: past the config's for relative positions, never past absolute ones.
    return Math.min(relativePositions(config) ? recipe.maxLength : Math.min(recipe.maxLength, positions), cap ?? Infinity);
  }
  const tokenizer = Number.isFinite(fromTokenizer) && fromTokenizer > 0 && fromTokenizer < 1e6 ? fromTokenizer : Infinity;
  const length = Math.min(positions, tokenizer, cap ?? Infinity);
  if (!Number.isFinite(length)) throw new Error(`onnx backend: ${files.dir}: no maximum length in config.json or tokenizer_config.json; pass maxLength`);
  return length;
}

function graphSha256(graph: string): string {
  return createHash("sha256").update(readFileSync(graph)).digest("hex").slice(0, 12);
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

/** A model directory's files and config.json, before a recipe is chosen for it. */
export interface ModelDirFiles {
  readonly files: ModelFiles;
  readonly config: Record<string, unknown>;
}

/** Finds a model directory's files (the graph chosen by variant rules, variants.ts) and reads config.json. */
export function readModelFiles(options: ModelDirOptions): ModelDirFiles {
  const files = locateModelFiles(options.dir, options.variant, options.cpu);
  return { files, config: readJsonFile(files.config) };
}

/**
 * Reads a model directory's config, tokenizer and maximum length (the recipe's, as maxLengthOf
 * allows it; without one, config.json's and the tokenizer's), and chooses its graph.
 */
export function readModelDir(options: ModelDirOptions, recipe?: OnnxRecipe, found: ModelDirFiles = readModelFiles(options)): ModelDirContents {
  const { files, config } = found;
  const tokenizerConfig = files.tokenizerConfig ? readJsonFile(files.tokenizerConfig) : {};
  const special = files.specialTokensMap ? readJsonFile(files.specialTokensMap) : {};
  const tokenizerJson = readJsonFile(files.tokenizer);
  const maxLength = maxLengthOf(files, config, tokenizerConfig, options.maxLength, recipe);
  return { files, config, tokenizerJson, tokenizerSettings: tokenSettings({ ...special, ...tokenizerConfig }), maxLength };
}

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
