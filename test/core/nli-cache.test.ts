import { describe, expect, it } from "vitest";
import { claimConsistency } from "../../src/core/entropy/claim-consistency.ts";
import { semanticEntropy } from "../../src/core/entropy/semantic-entropy.ts";
import { createNliCache, withQuestion } from "../../src/core/nli-cache.ts";
import { nliPairKey } from "../../src/core/pair-key.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import { createFakeBackend } from "../helpers/fake-backend.ts";

const RESULT = { entailment: 0.9, neutral: 0.05, contradiction: 0.05 };
const OPTIONS = { threshold: 0.5, unstableShare: 0.5, tokenBudget: 400 };

describe("the NLI judgement cache", () => {
  it("gives semantic entropy and claim consistency the same key and question prefix, so a pair judged by one is a hit for the other", async () => {
    const question = "Where was the treaty signed?";
    const samples = ["It was signed in Berlin.", "It was signed in Bonn."];
    const cache = createNliCache();
    const backend = createFakeBackend();
    await semanticEntropy({ question, samples, backend, options: { cache } });
    const judgedByEntropy = backend.calls.flat().map(nliPairKey);
    // The claim as entropy's hypothesis reads the second sample: the question, then the answer.
    const claim = withQuestion(question, samples[1] ?? "");
    const sharedPair = { premise: withQuestion(question, samples[0] ?? ""), hypothesis: claim };
    expect(judgedByEntropy).toContain(nliPairKey(sharedPair));
    backend.calls.length = 0;
    const r = await claimConsistency({ question, claims: [{ index: 0, text: claim, start: 0, end: claim.length }], samples, backend, analyzer: testAnalyzer(), options: { ...OPTIONS, cache } });
    const sentByConsistency = backend.calls.flat().map(nliPairKey);
    expect(sentByConsistency).not.toContain(nliPairKey(sharedPair));
    // The other sample's pair was never judged by entropy, so it is the only one sent.
    expect(r.summary.entailmentCalls).toBe(1);
    expect(r.support[0]?.of).toBe(2);
  });

  it("prepends a question to the judged text and leaves the text alone for a blank one", () => {
    expect(withQuestion("  Who?  ", "Ada.")).toBe("Who? Ada.");
    expect(withQuestion(" ", "Ada.")).toBe("Ada.");
  });

  it("keys a pair by premise and hypothesis only, not by the document a premise was cut from", () => {
    const cache = createNliCache(1024);
    cache.set({ premise: "p", hypothesis: "h", source: { document: "xp", start: 1, end: 2 } }, "v1", RESULT);
    expect(cache.get({ premise: "p", hypothesis: "h" }, "v1")).toEqual(RESULT);
    expect(cache.get({ premise: "h", hypothesis: "p" }, "v1")).toBeUndefined();
  });

  it("keys a judgement by the backend's version too: the same pair judged by a new model or graph misses", () => {
    const cache = createNliCache(1024);
    cache.set({ premise: "p", hypothesis: "h" }, "models/a/model.onnx sha256:1", RESULT);
    expect(cache.get({ premise: "p", hypothesis: "h" }, "models/a/model.onnx sha256:1")).toEqual(RESULT);
    expect(cache.get({ premise: "p", hypothesis: "h" }, "models/a/model_int8.onnx sha256:2")).toBeUndefined();
  });

  it("never answers one pair with another's judgement, whatever separators their texts hold", () => {
    const cache = createNliCache(1024);
    cache.set({ premise: "a\u0000b", hypothesis: "c" }, "v1", RESULT);
    expect(cache.get({ premise: "a", hypothesis: "b\u0000c" }, "v1")).toBeUndefined();
    cache.set({ premise: "p", hypothesis: "h" }, "1:v", RESULT);
    expect(cache.get({ premise: "p", hypothesis: "h" }, "1")).toBeUndefined();
    expect(nliPairKey({ premise: "a\u0000b", hypothesis: "c" })).not.toBe(nliPairKey({ premise: "a", hypothesis: "b\u0000c" }));
  });

  it("stays within its byte bound, dropping the least recently used judgements first", () => {
    const text = "x".repeat(500);
    const cache = createNliCache(16 * 1024);
    const pair = (i: number): { premise: string; hypothesis: string } => ({ premise: `${i} ${text}`, hypothesis: `claim ${i}` });
    cache.set(pair(0), "v1", RESULT);
    for (let i = 1; i < 1000; i++) {
      cache.set(pair(i), "v1", RESULT);
      // Pair 0 is read all along, so it stays while older unread ones go.
      expect(cache.get(pair(0), "v1")).toEqual(RESULT);
    }
    expect(cache.get(pair(999), "v1")).toEqual(RESULT);
    expect(cache.get(pair(1), "v1")).toBeUndefined();
    let kept = 0;
    for (let i = 0; i < 1000; i++) if (cache.get(pair(i), "v1")) kept++;
    // Each entry is over 1 KiB (two bytes a character), so at most 16 fit.
    expect(kept).toBeGreaterThan(1);
    expect(kept).toBeLessThanOrEqual(16);
  });

  it("keeps no judgement whose texts alone are over the bound", () => {
    const cache = createNliCache(1000);
    cache.set({ premise: "y".repeat(1000), hypothesis: "h" }, "v1", RESULT);
    expect(cache.get({ premise: "y".repeat(1000), hypothesis: "h" }, "v1")).toBeUndefined();
  });
});
