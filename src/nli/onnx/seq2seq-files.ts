/**
 * Which encoder and decoder graphs of a seq2seq export to run. optimum writes encoder_model.onnx
 * and decoder_model.onnx (and decoder_with_past_model.onnx, decoder_model_merged.onnx, which need
 * the key/value cache groundwatch does not keep); its quantiser and transformers.js add
 * *_quantized.onnx, *_int8.onnx, … beside them. The pair is chosen by the single-graph rules of
 * variants.ts applied to the encoder's name (encoder_model_quantized.onnx chosen as
 * model_quantized.onnx would be), among the encoders whose decoder has the same suffix.
 */
import type { CpuFeatures, GraphVariant, VariantChoice } from "./variants.ts";
import { chooseGraph, classifyGraph } from "./variants.ts";

/** The two graphs of a seq2seq model, chosen together. */
export interface Seq2SeqChoice {
  /** The encoder graph, its kind, and why it was chosen. */
  readonly encoder: VariantChoice;
  /** The decoder graph of the same kind (same suffix), "/"-separated path. */
  readonly decoder: string;
  /** Every encoder/decoder pair offered, by their encoder (paths as the listing names them). */
  readonly pairs: readonly GraphVariant[];
}

const STEMS = /^((?:onnx\/)?)(encoder_model|decoder_model)(_[A-Za-z0-9_]+)?\.onnx$/;

/** True when the graphs are a seq2seq export's: encoder or decoder graphs, and no graph of a known single-graph kind. */
export function isSeq2SeqExport(graphs: readonly GraphVariant[]): boolean {
  return graphs.some((g) => STEMS.test(g.path)) && graphs.every((g) => g.precision === "unknown");
}

/**
 * Chooses the encoder and decoder pair for `request` (auto, fp32, int8, quantized, or the
 * encoder's or decoder's file name) from `files` (path and size). An encoder without its decoder
 * (or the reverse) is not offered; with no whole pair the error names the missing graph.
 */
export function chooseSeq2SeqGraphs(files: Iterable<readonly [string, number | undefined]>, request: string, cpu: CpuFeatures, where: string): Seq2SeqChoice {
  const encoders = new Map<string, number | undefined>();
  const decoders = new Set<string>();
  for (const [path, bytes] of files) {
    const m = STEMS.exec(path);
    if (!m) continue;
    const key = `${m[1] ?? ""}${m[3] ?? ""}`;
    if (m[2] === "encoder_model") encoders.set(key, bytes);
    else decoders.add(key);
  }
  const asModel = (key: string): string => key.replace(/^((?:onnx\/)?)(.*)$/, "$1model$2.onnx");
  const pathOf = (key: string, stem: string): string => key.replace(/^((?:onnx\/)?)(.*)$/, `$1${stem}$2.onnx`);
  const pairs: GraphVariant[] = [];
  const byModelPath = new Map<string, string>();
  for (const [key, bytes] of encoders) {
    if (!decoders.has(key)) continue;
    const g = classifyGraph(asModel(key), bytes);
    if (!g) continue;
    byModelPath.set(g.path, key);
    pairs.push({ ...g, path: pathOf(key, "encoder_model") });
  }
  if (pairs.length === 0) {
    const lonely = [...encoders.keys()].map((k) => `${pathOf(k, "encoder_model")} has no ${pathOf(k, "decoder_model")}`);
    const orphans = [...decoders].filter((k) => !encoders.has(k)).map((k) => `${pathOf(k, "decoder_model")} has no ${pathOf(k, "encoder_model")}`);
    const what = [...lonely, ...orphans];
    throw new Error(`${where} is not a whole seq2seq export: ${what.length > 0 ? what.join("; ") : "no encoder_model.onnx and decoder_model.onnx"} (groundwatch runs an encoder graph and a decoder graph without a key/value cache: optimum's encoder_model.onnx and decoder_model.onnx, or their int8 *_quantized.onnx pair)`);
  }
  // chooseGraph reads model*.onnx names: the encoders are offered under those names, and a named file is mapped alike.
  const named = request.replace(/(encoder|decoder)_model/, "model");
  const asModels = pairs.map((p) => ({ ...p, path: asModel(`${STEMS.exec(p.path)?.[1] ?? ""}${STEMS.exec(p.path)?.[3] ?? ""}`) }));
  const choice = chooseGraph(asModels, named, cpu, where);
  const key = byModelPath.get(choice.graph.path) as string;
  return { encoder: { graph: { ...choice.graph, path: pathOf(key, "encoder_model") }, reason: choice.reason }, decoder: pathOf(key, "decoder_model"), pairs };
}

/** True for a decoder graph that needs a key/value cache (optimum's decoder_model_merged*, decoder_with_past_model*): never run. */
export function isCachedDecoder(path: string): boolean {
  return /^(?:onnx\/)?decoder_(?:model_merged|with_past_model)[A-Za-z0-9_]*\.onnx$/.test(path);
}

/**
 * How `model info` lists a seq2seq export's graph: an encoder or decoder by the kind its suffix
 * names ("encoder, int8 for any CPU (quantized)"); a decoder with a key/value cache (merged, with
 * past) as one groundwatch does not run.
 */
export function seq2seqGraphView(g: GraphVariant): GraphVariant {
  if (isCachedDecoder(g.path)) return { ...g, precision: "unknown", description: "decoder with a key/value cache: not run (groundwatch runs one step of decoder_model*.onnx)" };
  const m = STEMS.exec(g.path);
  const kind = m ? classifyGraph(`model${m[3] ?? ""}.onnx`, g.bytes) : undefined;
  if (!m || !kind) return g;
  return { ...kind, path: g.path, description: `${m[2] === "encoder_model" ? "encoder" : "decoder"}, ${kind.description}` };
}
