import { parentPort, workerData } from "node:worker_threads";
import type { NliPair } from "../backend.ts";
import type { OnnxEngine, OnnxEngineOptions } from "./engine.ts";
import { createOnnxEngine } from "./engine.ts";
import type { WorkerReply, WorkerRequest } from "./protocol.ts";

const port = parentPort;
if (!port) throw new Error("onnx worker: must run in a worker thread");

let engine: OnnxEngine | undefined;
try {
  engine = await createOnnxEngine(workerData as OnnxEngineOptions);
  port.postMessage({ type: "ready", info: engine.info } satisfies WorkerReply);
} catch (error) {
  port.postMessage({ type: "error", message: (error as Error).message } satisfies WorkerReply);
}

port.on("message", (request: WorkerRequest) => {
  if (request.type === "close") {
    const done = (): void => port.postMessage({ type: "closed" } satisfies WorkerReply);
    (engine ? engine.close() : Promise.resolve()).then(done, done);
    return;
  }
  const run = engine ? engine.classify(request.pairs as NliPair[]) : Promise.reject(new Error("onnx worker: model not loaded"));
  run.then(
    (results) => port.postMessage({ type: "result", id: request.id, results } satisfies WorkerReply),
    (error: unknown) => port.postMessage({ type: "failed", id: request.id, message: (error as Error).message } satisfies WorkerReply),
  );
});
