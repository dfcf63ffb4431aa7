import { describe, expect, it } from "vitest";
import { backendOptionsFromFlags } from "../../src/cli/shared/backend-flags.ts";

describe("backend flags", () => {
  it("turns --relevance-model into the relevanceModel option beside --model", () => {
    expect(backendOptionsFromFlags({ model: "nli-dir", "relevance-model": "cross-encoder/ms-marco-MiniLM-L-6-v2" }).options).toEqual({ model: "nli-dir", relevanceModel: "cross-encoder/ms-marco-MiniLM-L-6-v2" });
  });

  it("names a number flag that is not a number", () => {
    expect(backendOptionsFromFlags({ "onnx-threads": "many" }).error).toBe('--onnx-threads must be a number (got "many")');
  });

  it("turns --onnx-max-batch and --onnx-batch-wait-ms into onnxMaxBatch and onnxBatchWaitMs, which take precedence over env", async () => {
    const { options } = backendOptionsFromFlags({ "onnx-max-batch": "64", "onnx-batch-wait-ms": "0" });
    expect(options).toEqual({ onnxMaxBatch: 64, onnxBatchWaitMs: 0 });
    const { resolveScoreOptions } = await import("../../src/config/score-options.ts");
    expect(resolveScoreOptions(options, { env: { GROUNDWATCH_ONNX_MAX_BATCH: "8", GROUNDWATCH_ONNX_BATCH_WAIT_MS: "20" } })).toMatchObject({ onnxMaxBatch: 64, onnxBatchWaitMs: 0 });
    expect(backendOptionsFromFlags({ "onnx-batch-wait-ms": "soon" }).error).toBe('--onnx-batch-wait-ms must be a number (got "soon")');
  });
});
