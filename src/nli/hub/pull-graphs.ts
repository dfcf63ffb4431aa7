/**
 * Which graph files `model pull` fetches: the one graph variants.ts chooses, or for a seq2seq
 * export (encoder_model*.onnx and decoder_model*.onnx, no single-graph model) the encoder and
 * decoder of one kind, chosen together (seq2seq-files.ts).
 */
import { chooseSeq2SeqGraphs, isSeq2SeqExport } from "../onnx/seq2seq-files.ts";
import type { CpuFeatures, GraphVariant, VariantChoice } from "../onnx/variants.ts";
import { chooseGraph } from "../onnx/variants.ts";

/** The graphs to fetch and why. */
export interface GraphPlan {
  /** The graph chosen (a seq2seq export's encoder) and why. */
  readonly choice: VariantChoice;
  /** Every graph file to fetch, "/"-separated: one, or the encoder and its decoder. */
  readonly paths: readonly string[];
  /** A seq2seq export's decoder graph, fetched with the encoder. */
  readonly decoder?: string;
}

/** Chooses what to fetch for `variant` (errors as chooseGraph's; an incomplete seq2seq pair is a plain Error naming the missing graph). */
export function planGraphs(graphs: readonly GraphVariant[], variant: string, cpu: CpuFeatures, where: string): GraphPlan {
  if (!isSeq2SeqExport(graphs)) {
    const choice = chooseGraph(graphs, variant, cpu, where);
    return { choice, paths: [choice.graph.path] };
  }
  const pair = chooseSeq2SeqGraphs(graphs.map((g) => [g.path, g.bytes] as const), variant, cpu, where);
  return { choice: pair.encoder, paths: [pair.encoder.graph.path, pair.decoder], decoder: pair.decoder };
}
