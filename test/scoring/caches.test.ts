import { describe, expect, it } from "vitest";
import { createScorer } from "../../src/sdk/create-scorer.ts";

const DOCS = [
  "Refunds are available within 30 days of delivery. Items must be unused and in their original packaging. Store credit is offered after 30 days.",
  "The store opens at 9 am on weekdays and at 10 am on Saturdays. It is closed on Sundays. Parking is free for the first two hours.",
  "Appliances have a two-year warranty. Batteries are covered for one year. The warranty does not cover accidental damage.",
];
const ANSWERS = [
  "A refund is available within thirty days of delivery. The item must be unused.",
  "The store opens at 11 am on Saturdays.",
  "Appliances have a two-year warranty, and batteries are covered for five years.",
  "Parking is free for two hours. The store is closed on Sundays.",
];

describe("the scorer's caches of analyses and windows", () => {
  it("give the same results as scoring without them, however often a document recurs", async () => {
    const cached = await createScorer({ backend: "offline" }, {});
    const uncached = await createScorer({ backend: "offline", cacheBytes: 0 }, {});
    try {
      for (let round = 0; round < 3; round++) {
        for (const answer of ANSWERS) {
          // Documents in a different order each round, as different requests retrieve them.
          const context = round === 1 ? [...DOCS].reverse() : DOCS;
          expect(await cached.score({ answer, context })).toEqual(await uncached.score({ answer, context }));
        }
      }
    } finally {
      await cached.close();
      await uncached.close();
    }
  });
});
