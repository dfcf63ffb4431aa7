import { describe, expect, it } from "vitest";
import { semanticEntropy } from "../../src/core/entropy/semantic-entropy.ts";
import type { NliResult } from "../../src/core/backend.ts";
import { isRefusalAnswer } from "../../src/core/refusal.ts";
import { createFakeBackend } from "../helpers/fake-backend.ts";
import { cityKey, meaningBackend, yearKey } from "../helpers/meaning-backend.ts";

const ZORBEX = "In what year was the Zorbex Protocol ratified?";
const CONFABULATED = ["In 1998, I believe.", "It was 1998.", "It was ratified in 2004.", "1976.", "Around 2011.", "It was 1987."];
const EIFFEL = "In which city is the Eiffel Tower?";
const PARIS = ["Paris.", "It is in Paris, France.", "The Eiffel Tower is in Paris.", "Paris, France.", "In Paris.", "Paris"];

describe("semantic entropy: worked examples", () => {
  it("six samples in clusters of 2, 1, 1, 1, 1 give H = 1.5607 nats, normalised 0.871", async () => {
    const r = await semanticEntropy({ question: ZORBEX, samples: CONFABULATED, backend: meaningBackend(yearKey) });
    expect(r.clusters.map((c) => c.members.length)).toEqual([2, 1, 1, 1, 1]);
    expect(r.assignments).toEqual([0, 0, 1, 2, 3, 4]);
    expect(r.entropy).toBeCloseTo(1.5607, 4);
    expect(r.normalizedEntropy).toBeCloseTo(0.871, 3);
    expect(r.agreement).toBeCloseTo(2 / 6, 9);
    expect(r.naiveEntropy).toBeCloseTo(Math.log(6), 9);
    expect(r.lexicalEntropy).toBeCloseTo(Math.log(6) - 1.5607104, 6);
    expect(r.diagnostics).toMatchObject({ samples: 6, clusters: 5, singletons: 4, doubletons: 1, chao1: 13 });
    expect(r.diagnostics.millerMadow).toBeCloseTo(1.8940437, 6);
    expect(r.reliable).toBe(true);
    expect(r.estimator).toBe("discrete");
  });

  it("six paraphrases of Paris judged equivalent form one cluster with H = 0", async () => {
    const r = await semanticEntropy({ question: EIFFEL, samples: PARIS, backend: meaningBackend(cityKey) });
    expect(r.clusters).toHaveLength(1);
    expect(r.entropy).toBe(0);
    expect(r.normalizedEntropy).toBe(0);
    expect(r.agreement).toBe(1);
    expect(r.reliable).toBe(true);
    expect(r.lexicalEntropy).toBeCloseTo(Math.log(6), 9);
  });

  it("records every judgement in both directions, with the question prepended", async () => {
    const backend = meaningBackend(yearKey);
    const r = await semanticEntropy({ question: ZORBEX, samples: CONFABULATED.slice(0, 3), backend });
    const viaBackend = r.judgements.filter((j) => j.source === "backend");
    expect(viaBackend.length).toBeGreaterThan(0);
    for (const j of viaBackend) {
      expect(j.forward).toBeDefined();
      expect(j.backward).toBeDefined();
    }
    for (const pair of backend.calls.flat()) {
      expect(pair.premise.startsWith(ZORBEX)).toBe(true);
      expect(pair.hypothesis.startsWith(ZORBEX)).toBe(true);
    }
    expect(r.entailmentCalls).toBe(backend.calls.flat().length);
    expect(r.entailmentCalls).toBeLessThanOrEqual(r.worstCaseCalls);
  });

  it("answers identical strings and normalised duplicates without a backend call", async () => {
    const backend = meaningBackend(cityKey);
    const r = await semanticEntropy({ question: EIFFEL, samples: ["Paris.", "paris", "PARIS!", "Paris."], backend });
    expect(backend.calls).toHaveLength(0);
    expect(r.judgements.map((j) => j.source)).toEqual(["normalised", "normalised", "exact"]);
    expect(r.clusters).toHaveLength(1);
  });

  it("reuses cached judgements across measurements", async () => {
    const cache = new Map<string, NliResult>();
    const backend = meaningBackend(yearKey);
    await semanticEntropy({ question: ZORBEX, samples: CONFABULATED, backend, options: { cache } });
    const before = backend.calls.length;
    const again = await semanticEntropy({ question: ZORBEX, samples: CONFABULATED, backend, options: { cache } });
    expect(backend.calls.length).toBe(before);
    expect(again.entailmentCalls).toBe(0);
    expect(again.judgements.some((j) => j.source === "cache")).toBe(true);
  });

  it("matches a hand computation of the Rao-Blackwell estimator", async () => {
    // Clusters {0, 1} and {2}; mean log-probs −1, −2, −1:
    // p = (e^-1 + e^-2, e^-1) / (2e^-1 + e^-2) = (0.57768, 0.42232); H = 0.68103 nats.
    const samples = [
      { text: "It was 1998.", logprobs: [-1, -1] },
      { text: "1998, I think.", logprobs: [-2] },
      { text: "It was 2004.", logprobs: [-0.5, -1.5] },
    ];
    const r = await semanticEntropy({ question: ZORBEX, samples, backend: meaningBackend(yearKey) });
    expect(r.estimator).toBe("rao-blackwell");
    expect(r.clusters.map((c) => c.mass)).toEqual([expect.closeTo(0.5776812, 6), expect.closeTo(0.4223188, 6)]);
    expect(r.entropy).toBeCloseTo(0.6810294, 6);
    expect(r.reliable).toBe(true);
  });
});

describe("semantic entropy fails closed", () => {
  it("marks fewer samples than requested unreliable", async () => {
    const r = await semanticEntropy({ question: ZORBEX, samples: CONFABULATED.slice(0, 2), backend: meaningBackend(yearKey), options: { requested: 10 } });
    expect(r.reliable).toBe(false);
    expect(r.reasons.join(" ")).toContain("received 2 of 10 requested samples");
  });

  it("marks identical samples unreliable and names temperature 0, a cache or a seed", async () => {
    const r = await semanticEntropy({ question: EIFFEL, samples: Array.from({ length: 5 }, () => "Paris."), backend: meaningBackend(cityKey) });
    expect(r.entropy).toBe(0);
    expect(r.reliable).toBe(false);
    expect(r.reasons[0]).toMatch(/all 5 samples are identical.*temperature 0, a cache, or a fixed seed/);
  });

  it("marks all-empty samples unreliable with no entropy", async () => {
    const r = await semanticEntropy({ question: EIFFEL, samples: ["", "  ", ""], backend: meaningBackend(cityKey) });
    expect(r.reliable).toBe(false);
    expect(r.entropy).toBeNull();
    expect(r.reasons.join(" ")).toContain("3 of 3 samples are empty");
  });

  it("keeps empty samples out of the clusters and says how many there were", async () => {
    const r = await semanticEntropy({ question: EIFFEL, samples: ["Paris.", "", "Lyon."], backend: meaningBackend(cityKey) });
    expect(r.assignments).toEqual([0, -1, 1]);
    expect(r.reliable).toBe(false);
    expect(r.reasons.join(" ")).toContain("1 of 3 samples are empty");
  });

  it.each([[[Number.NaN]], [[Number.POSITIVE_INFINITY, -1]], [[]]])("falls back to the discrete estimator on log-probs %j and says so", async (bad) => {
    const samples = [{ text: "It was 1998.", logprobs: [-1] }, { text: "It was 2004.", logprobs: bad }];
    const r = await semanticEntropy({ question: ZORBEX, samples, backend: meaningBackend(yearKey) });
    expect(r.estimator).toBe("discrete");
    expect(r.entropy).toBeCloseTo(Math.log(2), 9);
    expect(r.reliable).toBe(false);
    expect(r.reasons.join(" ")).toContain("fell back to the discrete estimator");
  });

  it("marks a backend error unreliable, with the error, and reports no entropy", async () => {
    const backend = createFakeBackend({ classify: () => Promise.reject(new Error("NLI server down")) });
    const r = await semanticEntropy({ question: ZORBEX, samples: CONFABULATED, backend });
    expect(r.reliable).toBe(false);
    expect(r.entropy).toBeNull();
    expect(r.reasons.join(" ")).toContain("NLI server down");
  });

  it("refuses to start when the call budget is below the worst case, before any call", async () => {
    const backend = meaningBackend(yearKey);
    const r = await semanticEntropy({ question: ZORBEX, samples: CONFABULATED, backend, options: { maxEntailmentCalls: 10 } });
    expect(backend.calls).toHaveLength(0);
    expect(r.reliable).toBe(false);
    expect(r.reasons.join(" ")).toContain("entailment budget 10 is below the worst case of 30 calls for 6 distinct answers");
    expect(r.overBudget).toBe(true);
    const within = await semanticEntropy({ question: ZORBEX, samples: CONFABULATED, backend, options: { maxEntailmentCalls: 30 } });
    expect(within.overBudget).toBe(false);
    expect(within.reliable).toBe(true);
  });
});

describe("refusals", () => {
  it("pins refusals to one cluster", async () => {
    const r = await semanticEntropy({ question: EIFFEL, samples: ["Paris.", "I don't know.", "No idea.", "Lyon."], backend: meaningBackend(cityKey) });
    const refusal = r.clusters.find((c) => c.refusal);
    expect(refusal?.members).toEqual([1, 2]);
    expect(r.clusters).toHaveLength(3);
    expect(r.abstained).toBe(false);
  });

  it("marks unanimous refusals as abstained", async () => {
    const r = await semanticEntropy({ question: ZORBEX, samples: ["I don't know.", "I'm not sure.", "Sorry, I cannot answer that.", "Unknown."], backend: meaningBackend(yearKey) });
    expect(r.abstained).toBe(true);
    expect(r.clusters).toHaveLength(1);
    expect(r.reasons.join(" ")).toContain("all 4 samples declined to answer");
  });

  it("errs toward calling a hedged reply an answer", () => {
    expect(isRefusalAnswer("I'm not sure, but I believe it is Canberra.")).toBe(false);
    expect(isRefusalAnswer("I don't know, maybe 1998.")).toBe(false);
    expect(isRefusalAnswer("I don't know.")).toBe(true);
    expect(isRefusalAnswer("I cannot answer that question.")).toBe(true);
    expect(isRefusalAnswer("Canberra.")).toBe(false);
  });
});
