import { describe, expect, it } from "vitest";
import { DEFAULT_RELEVANCE_THRESHOLDS } from "../../src/config/defaults.ts";
import { OFFLINE_RELEVANCE_THRESHOLDS } from "../../src/nli/offline/backend.ts";
import { createScorer } from "../../src/scoring/scorer.ts";

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
});
