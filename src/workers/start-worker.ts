import { Worker } from "node:worker_threads";
import type { GatedWorkerData, NativeGate } from "./native-gate.ts";
import { createNativeGate, threadNativeGates } from "./native-gate.ts";
import type { PoolReply } from "./protocol.ts";

/** A started worker, its gate and the warnings its "ready" carried. */
export interface Started {
  readonly worker: Worker;
  readonly gate: NativeGate;
  readonly warnings: readonly string[];
}

/** Starts one worker with a gate of its own (under this thread's) and waits for its "ready" (or its startup error). */
export function startWorker(entry: URL, data: unknown): Promise<Started> {
  const gate = createNativeGate();
  const workerData: GatedWorkerData = { data, gates: [...threadNativeGates(), gate] };
  const worker = new Worker(entry, { workerData });
  return new Promise((resolve, reject) => {
    const onMessage = (m: PoolReply<unknown>): void => {
      cleanup();
      if (m.type === "ready") resolve({ worker, gate, warnings: Array.isArray(m.warnings) ? m.warnings.filter((w): w is string => typeof w === "string") : [] });
      else {
        // Nothing started inside it yet: it answered before taking any job.
        void worker.terminate();
        reject(new Error(m.type === "error" ? m.message : `worker sent ${m.type} before ready`));
      }
    };
    const onError = (e: Error): void => {
      cleanup();
      reject(new Error(`worker failed to start: ${e.message}`));
    };
    const onExit = (code: number): void => {
      cleanup();
      reject(new Error(`worker exited with code ${code} before it was ready`));
    };
    const cleanup = (): void => {
      worker.off("message", onMessage);
      worker.off("error", onError);
      worker.off("exit", onExit);
    };
    worker.on("message", onMessage);
    worker.on("error", onError);
    worker.on("exit", onExit);
  });
}
