/** The types of an ONNX engine: its options, what it describes, and what it does; the sequence-classification and seq2seq engines both are one. */
import type { NliPair, NliResult } from "../../core/backend.ts";
import type { EncodedPair } from "./encoder.ts";
import type { LabelMap } from "./model-dir.ts";
import type { GraphDescription, ModelDirOptions } from "./model-read.ts";
import type { RecipeSummary } from "./recipe-summary.ts";
import type { OnnxImporter, OnnxRuntime } from "./runtime.ts";

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

/** What a model directory holds, read from its files alone (no runtime needed). */
export interface OnnxModelDescription extends GraphDescription {
  readonly labels: LabelMap;
  readonly maxLength: number;
  /** The recipe that reads the model, and why it was chosen. */
  readonly recipe: RecipeSummary;
  /** A seq2seq export's decoder graph, run with the encoder `graph` names (seq2seq-engine.ts). */
  readonly decoder?: string;
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
