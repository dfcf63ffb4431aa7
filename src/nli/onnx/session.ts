/** One onnxruntime session over a cross-encoder graph, and batches of encoded pairs fed to it: what the NLI and relevance engines share. */
import { throughNativeGates } from "../../workers/native-gate.ts";
import type { EncodedPair } from "./encoder.ts";
import type { OnnxRuntime, OnnxSession, OnnxTensor } from "./runtime.ts";

/** A loaded graph and how to feed it. */
export interface PairSession {
  readonly session: OnnxSession;
  /** The graph file, for messages. */
  readonly graph: string;
  /** Whether the graph takes token_type_ids. */
  readonly useTypes: boolean;
  /** The output read: `logits` when the graph names one, else its first. */
  readonly outputName: string;
}

/**
 * Loads `graph` on the CPU provider (all optimisations; `threads` intra-op threads when given) and
 * checks that its inputs are ones a pair encoder supplies (input_ids, attention_mask, optionally
 * token_type_ids) and that it has an output.
 */
export async function openPairSession(ort: OnnxRuntime, graph: string, threads?: number): Promise<PairSession> {
  let session: OnnxSession;
  try {
    session = await throughNativeGates(() => ort.InferenceSession.create(graph, {
      executionProviders: ["cpu"],
      graphOptimizationLevel: "all",
      ...(threads ? { intraOpNumThreads: threads, interOpNumThreads: 1 } : {}),
    }));
  } catch (error) {
    throw new Error(`onnx backend: cannot load ${graph}: ${(error as Error).message}`);
  }
  for (const required of ["input_ids", "attention_mask"]) {
    if (!session.inputNames.includes(required)) throw new Error(`onnx backend: ${graph} has no ${required} input (inputs: ${session.inputNames.join(", ")})`);
  }
  const known = new Set(["input_ids", "attention_mask", "token_type_ids"]);
  const unknown = session.inputNames.filter((n) => !known.has(n));
  if (unknown.length > 0) throw new Error(`onnx backend: ${graph} needs inputs this backend cannot supply: ${unknown.join(", ")}`);
  const outputName = session.outputNames.includes("logits") ? "logits" : session.outputNames[0];
  if (!outputName) throw new Error(`onnx backend: ${graph} has no outputs`);
  return { session, graph, useTypes: session.inputNames.includes("token_type_ids"), outputName };
}

/** Runs one batch, each row padded to the longest with `padId`; the output tensor, unchecked (undefined when the graph returned none). */
export async function runPairBatch(ort: OnnxRuntime, s: PairSession, batch: readonly EncodedPair[], padId: number): Promise<OnnxTensor | undefined> {
  const width = Math.max(...batch.map((e) => e.ids.length));
  const ids = new BigInt64Array(batch.length * width).fill(BigInt(padId));
  const mask = new BigInt64Array(batch.length * width);
  const types = new BigInt64Array(batch.length * width);
  batch.forEach((e, r) => {
    e.ids.forEach((id, c) => {
      ids[r * width + c] = BigInt(id);
      mask[r * width + c] = 1n;
      types[r * width + c] = BigInt(e.typeIds[c] ?? 0);
    });
  });
  const dims = [batch.length, width];
  const feeds: Record<string, OnnxTensor> = { input_ids: new ort.Tensor("int64", ids, dims), attention_mask: new ort.Tensor("int64", mask, dims) };
  if (s.useTypes) feeds.token_type_ids = new ort.Tensor("int64", types, dims);
  // Through this thread's gates: a thread is never ended while a run is in flight on it (workers/native-gate.ts).
  return (await throughNativeGates(() => s.session.run(feeds)))[s.outputName];
}

/**
 * Runs `encoded` in length-sorted batches of at most `maxBatch` (sorting by length keeps padding
 * small) and returns `run`'s rows in input order.
 */
export async function inLengthOrder<T>(encoded: readonly EncodedPair[], maxBatch: number, run: (batch: readonly EncodedPair[]) => Promise<readonly T[]>): Promise<T[]> {
  const order = encoded.map((e, i) => ({ i, n: e.ids.length })).sort((x, y) => x.n - y.n);
  const rows = new Array<T>(encoded.length);
  for (let start = 0; start < order.length; start += maxBatch) {
    const chunk = order.slice(start, start + maxBatch);
    const out = await run(chunk.map(({ i }) => encoded[i] as EncodedPair));
    chunk.forEach(({ i }, k) => (rows[i] = out[k] as T));
  }
  return rows;
}
