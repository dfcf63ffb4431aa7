import { describe, expect, it } from "vitest";
import { createScorer } from "../../src/index.ts";

describe("the package's createScorer, an edge", () => {
  it("resolves option > env > config file, once, and scores with that value", async () => {
    const fromFile = await createScorer({ backend: "offline" }, { env: {}, file: { threshold: 0.3 } });
    const fromEnv = await createScorer({ backend: "offline" }, { env: { GROUNDWATCH_THRESHOLD: "0.4" }, file: { threshold: 0.3 } });
    const fromOption = await createScorer({ backend: "offline", threshold: 0.6 }, { env: { GROUNDWATCH_THRESHOLD: "0.4" }, file: { threshold: 0.3 } });
    try {
      expect([fromFile.threshold, fromEnv.threshold, fromOption.threshold]).toEqual([0.3, 0.4, 0.6]);
    } finally {
      await Promise.all([fromFile.close(), fromEnv.close(), fromOption.close()]);
    }
  });
});
