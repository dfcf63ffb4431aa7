import type { NliPair, NliResult } from "../../core/backend.ts";
import { createWorkerPool, workerUrl } from "../../runtime/worker-pool.ts";
import type { OnnxEngineOptions, OnnxModelInfo } from "./engine.ts";
import type { OnnxWorkerRequest } from "./worker.ts";

export interface InferencePool {
  readonly info: OnnxModelInfo;
  classify(pairs: readonly NliPair[]): Promise<NliResult[]>;
  close(): Promise<void>;
}

/**
 * Runs inference in worker threads, so the host's event loop never waits on a
 * model. A call is split into chunks spread over the least busy workers.
 */
export async function createInferencePool(options: OnnxEngineOptions, size: number): Promise<InferencePool> {
  const pool = await createWorkerPool<OnnxWorkerRequest, NliResult[] | OnnxModelInfo>(workerUrl(import.meta.url), options, size);
  const info = (await pool.run({ kind: "info" })) as OnnxModelInfo;
  const chunk = Math.max(1, options.maxBatch ?? 32);
  return {
    info,
    async classify(pairs: readonly NliPair[]): Promise<NliResult[]> {
      if (pairs.length === 0) return [];
      const parts: Array<Promise<NliResult[]>> = [];
      for (let i = 0; i < pairs.length; i += chunk) parts.push(pool.run({ kind: "classify", pairs: pairs.slice(i, i + chunk).map(({ premise, hypothesis }) => ({ premise, hypothesis })) }) as Promise<NliResult[]>);
      return (await Promise.all(parts)).flat();
    },
    close: () => pool.close(),
  };
}
