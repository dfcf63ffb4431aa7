import { describe, expect, it } from "vitest";
import { DEFAULT_RELEVANCE_THRESHOLDS } from "../../src/config/defaults.ts";
import { OFFLINE_RELEVANCE_THRESHOLDS } from "../../src/nli/offline/backend.ts";
import { createScorer } from "../../src/sdk/create-scorer.ts";
import { createFakeBackend } from "../helpers/fake-backend.ts";

describe("relevance thresholds in force", () => {
  it("are the offline backend's fitted ones when none is set", async () => {
    const scorer = await createScorer({ backend: "offline" }, { env: {} });
    try {
      expect(scorer.relevanceThresholds).toEqual(OFFLINE_RELEVANCE_THRESHOLDS);
      expect(OFFLINE_RELEVANCE_THRESHOLDS).not.toEqual(DEFAULT_RELEVANCE_THRESHOLDS);
    } finally {
      await scorer.close();
    }
  });

  it("give way to an explicit option, one threshold at a time", async () => {
    const scorer = await createScorer({ backend: "offline", contextRelevanceThreshold: 0.7 }, { env: {} });
    try {
      expect(scorer.relevanceThresholds).toEqual({ context: 0.7, answer: OFFLINE_RELEVANCE_THRESHOLDS.answer });
    } finally {
      await scorer.close();
    }
  });

  it("reads as many windows a document as the backend's relevanceTopK allows (the judge pays per pair), the answer in the same batch", async () => {
    const batches: number[] = [];
    const base = createFakeBackend({ relevance: (pairs) => (batches.push(pairs.length), Promise.resolve(pairs.map(() => 0.9))) });
    const long = Array.from({ length: 150 }, (_, i) => `Refund rule number ${i} says the refund is paid in ${i} days.`).join(" ");
    for (const [relevanceTopK, windows] of [[undefined, 3], [1, 1]] as const) {
      batches.length = 0;
      const scorer = await createScorer({ topK: 3 }, { env: {}, backend: { ...base, ...(relevanceTopK ? { relevanceTopK } : {}) } });
      const r = await scorer.score({ question: "How is a refund paid?", answer: "A refund is paid in gold.", context: [long, long.replaceAll("Refund", "Return")] });
      expect(batches).toEqual([2 * windows + 1]);
      expect(r.relevance?.calls).toBe(2 * windows + 1);
      await scorer.close();
    }
  });
});
