import { describe, expect, it } from "vitest";
import { backendOptionsFromFlags } from "../../src/cli/backend-flags.ts";

describe("backend flags", () => {
  it("turns --relevance-model into the relevanceModel option beside --model", () => {
    expect(backendOptionsFromFlags({ model: "nli-dir", "relevance-model": "cross-encoder/ms-marco-MiniLM-L-6-v2" }).options).toEqual({ model: "nli-dir", relevanceModel: "cross-encoder/ms-marco-MiniLM-L-6-v2" });
  });

  it("names a number flag that is not a number", () => {
    expect(backendOptionsFromFlags({ "onnx-threads": "many" }).error).toBe('--onnx-threads must be a number (got "many")');
  });
});
