import { parentPort, workerData } from "node:worker_threads";
import type { NliPair, NliResult } from "../../core/backend.ts";
import { serveWorker } from "../../runtime/worker-pool.ts";
import type { OnnxEngineOptions, OnnxModelInfo } from "./engine.ts";
import { createOnnxEngine } from "./engine.ts";

/** Requests to an inference worker: classify pairs, or describe the loaded model. */
export type OnnxWorkerRequest = { readonly kind: "classify"; readonly pairs: readonly NliPair[] } | { readonly kind: "info" };

if (!parentPort) throw new Error("onnx worker: must run in a worker thread");
// No top-level await: the same module also compiles to CommonJS.
void serveWorker<OnnxWorkerRequest, NliResult[] | OnnxModelInfo>(parentPort, async () => {
  const engine = await createOnnxEngine(workerData as OnnxEngineOptions);
  return (req) => (req.kind === "info" ? Promise.resolve(engine.info) : engine.classify(req.pairs));
});
