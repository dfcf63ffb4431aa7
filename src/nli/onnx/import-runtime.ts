import type { OnnxRuntime } from "./runtime-types.ts";

/**
 * Imports onnxruntime-node, the optional peer the onnx backend needs. Only
 * `loadOnnxRuntime` calls this, and only when an onnx backend or engine is created, so
 * nothing else in the package requires the runtime to be installed. Typed against
 * `OnnxRuntime` so that tsc checks the real package still has the shape this package uses.
 */
export const importOnnxRuntime = async (): Promise<OnnxRuntime> => await import("onnxruntime-node");
