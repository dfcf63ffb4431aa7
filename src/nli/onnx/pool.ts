import { Worker } from "node:worker_threads";
import type { NliPair, NliResult } from "../backend.ts";
import type { OnnxEngineOptions, OnnxModelInfo } from "./engine.ts";
import type { WorkerReply, WorkerRequest } from "./protocol.ts";

export interface InferencePool {
  readonly info: OnnxModelInfo;
  classify(pairs: readonly NliPair[]): Promise<NliResult[]>;
  close(): Promise<void>;
}

interface Slot {
  readonly worker: Worker;
  busy: number;
}

const ENTRY = new URL("./worker-entry.js", import.meta.url);

function startWorker(options: OnnxEngineOptions): Promise<{ worker: Worker; info: OnnxModelInfo }> {
  const worker = new Worker(ENTRY, { workerData: options });
  return new Promise((resolve, reject) => {
    const onMessage = (m: WorkerReply): void => {
      cleanup();
      if (m.type === "ready") resolve({ worker, info: m.info });
      else {
        void worker.terminate();
        reject(new Error(m.type === "error" ? m.message : `onnx worker: unexpected ${m.type} before ready`));
      }
    };
    const onError = (e: Error): void => {
      cleanup();
      reject(new Error(`onnx worker failed to start: ${e.message}`));
    };
    const cleanup = (): void => {
      worker.off("message", onMessage);
      worker.off("error", onError);
    };
    worker.on("message", onMessage);
    worker.on("error", onError);
  });
}

/**
 * Runs inference in worker threads, so the host's event loop never waits on a
 * model. A call is split into chunks spread over the least busy workers.
 */
export async function createInferencePool(options: OnnxEngineOptions, size: number): Promise<InferencePool> {
  const started = await Promise.allSettled(Array.from({ length: size }, () => startWorker(options)));
  const failed = started.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed) {
    await Promise.all(started.map((s) => (s.status === "fulfilled" ? s.value.worker.terminate() : undefined)));
    throw failed.reason instanceof Error ? failed.reason : new Error(String(failed.reason));
  }
  const ready = started.map((s) => (s as PromiseFulfilledResult<{ worker: Worker; info: OnnxModelInfo }>).value);
  const first = ready[0];
  if (!first) throw new Error("onnx backend: the pool needs at least one worker");
  const slots: Slot[] = ready.map(({ worker }) => ({ worker, busy: 0 }));
  const pending = new Map<number, { resolve: (r: NliResult[]) => void; reject: (e: Error) => void; slot: Slot }>();
  let nextId = 0;
  let closed = false;
  for (const slot of slots) {
    slot.worker.on("message", (m: WorkerReply) => {
      if (m.type !== "result" && m.type !== "failed") return;
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      p.slot.busy--;
      if (m.type === "result") p.resolve(m.results);
      else p.reject(new Error(m.message));
    });
    slot.worker.on("error", (e: Error) => {
      for (const [id, p] of pending) {
        if (p.slot !== slot) continue;
        pending.delete(id);
        p.reject(new Error(`onnx worker crashed: ${e.message}`));
      }
    });
  }
  const send = (pairs: readonly NliPair[]): Promise<NliResult[]> => {
    const slot = slots.reduce((a, b) => (b.busy < a.busy ? b : a));
    const id = nextId++;
    slot.busy++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject, slot });
      slot.worker.postMessage({ type: "classify", id, pairs } satisfies WorkerRequest);
    });
  };
  const chunk = Math.max(1, options.maxBatch ?? 32);
  return {
    info: first.info,
    async classify(pairs: readonly NliPair[]): Promise<NliResult[]> {
      if (closed) throw new Error("onnx backend is closed");
      if (pairs.length === 0) return [];
      const parts: Array<Promise<NliResult[]>> = [];
      for (let i = 0; i < pairs.length; i += chunk) parts.push(send(pairs.slice(i, i + chunk)));
      return (await Promise.all(parts)).flat();
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await Promise.all(slots.map((s) => s.worker.terminate()));
      for (const p of pending.values()) p.reject(new Error("onnx backend closed"));
      pending.clear();
    },
  };
}
