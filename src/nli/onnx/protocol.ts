import type { NliPair, NliResult } from "../backend.ts";
import type { OnnxModelInfo } from "./engine.ts";

/** Messages from the backend to an inference worker. */
export type WorkerRequest = { readonly type: "classify"; readonly id: number; readonly pairs: readonly NliPair[] } | { readonly type: "close" };

/** Messages from an inference worker to the backend. */
export type WorkerReply =
  | { readonly type: "ready"; readonly info: OnnxModelInfo }
  | { readonly type: "error"; readonly message: string }
  | { readonly type: "result"; readonly id: number; readonly results: NliResult[] }
  | { readonly type: "failed"; readonly id: number; readonly message: string }
  | { readonly type: "closed" };
