import { parentPort } from "node:worker_threads";
import type { NliPair, NliResult, RelevancePair, SpanDetection, SpanInput } from "../../core/backend.ts";
import { workerPayload } from "../../workers/native-gate.ts";
import { serveWorker } from "../../workers/serve-worker.ts";
import type { InferenceStats, OnnxEngineOptions, OnnxModelInfo } from "./engine.ts";
import { createOnnxEngine } from "./engine.ts";
import type { RelevanceModelInfo } from "./relevance-engine.ts";
import { createRelevanceEngine } from "./relevance-engine.ts";
import type { SpanModelInfo, TokenEngineOptions } from "./token-engine.ts";
import { createTokenEngine } from "./token-engine.ts";

/** What a worker loads: an NLI model (default), with head "relevance" a relevance cross-encoder, with head "spans" a token-classification span detector. */
export interface OnnxWorkerData extends OnnxEngineOptions, Pick<TokenEngineOptions, "language"> {
  readonly head?: "nli" | "relevance" | "spans";
}

/** Requests to an inference worker: classify pairs (NLI), score relevance pairs (relevance), describe the loaded model, or count its inference (stats). */
export type OnnxWorkerRequest = { readonly kind: "classify"; readonly pairs: readonly NliPair[] } | { readonly kind: "relevance"; readonly pairs: readonly RelevancePair[] } | { readonly kind: "spans"; readonly inputs: readonly SpanInput[] } | { readonly kind: "info" } | { readonly kind: "stats" };

/** What a worker answers. */
export type OnnxWorkerReply = NliResult[] | number[] | SpanDetection[] | OnnxModelInfo | RelevanceModelInfo | SpanModelInfo | InferenceStats;

if (!parentPort) throw new Error("onnx worker: must run in a worker thread");
// No top-level await: the same module also compiles to CommonJS.
void serveWorker<OnnxWorkerRequest, OnnxWorkerReply>(parentPort, async () => {
  const data = workerPayload<OnnxWorkerData>();
  // Closing (the pool's "close", once no batch is running here) releases the session.
  if (data.head === "spans") {
    const engine = await createTokenEngine(data);
    return {
      handle: (req) => (req.kind === "info" ? Promise.resolve(engine.info) : req.kind === "stats" ? Promise.resolve(engine.stats()) : req.kind === "spans" ? engine.detect(req.inputs) : Promise.reject(new Error("onnx worker: a span detector neither classifies entailment nor scores relevance"))),
      close: () => engine.close(),
    };
  }
  if (data.head === "relevance") {
    const engine = await createRelevanceEngine(data);
    return {
      handle: (req) => (req.kind === "info" ? Promise.resolve(engine.info) : req.kind === "stats" ? Promise.resolve(engine.stats()) : req.kind === "relevance" ? engine.score(req.pairs) : Promise.reject(new Error("onnx worker: a relevance model does not classify entailment"))),
      close: () => engine.close(),
    };
  }
  const engine = await createOnnxEngine(data);
  return {
    handle: (req) => (req.kind === "info" ? Promise.resolve(engine.info) : req.kind === "stats" ? Promise.resolve(engine.stats()) : req.kind === "classify" ? engine.classify(req.pairs) : Promise.reject(new Error("onnx worker: an NLI model does not score relevance"))),
    close: () => engine.close(),
  };
});
