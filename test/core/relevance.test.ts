/**
 * contextRelevance: per document the best window's relevance and the best over documents, scored
 * by the backend's relevance over the scorer's windows, at most top-k windows per document; against
 * each claim when there is no question. Never a guessed number.
 */
import { describe, expect, it } from "vitest";
import type { EntailmentBackend, RelevancePair } from "../../src/core/backend.ts";
import { buildWindows } from "../../src/core/context.ts";
import { contextRelevance } from "../../src/core/relevance.ts";
import { createOfflineBackend } from "../../src/nli/offline/backend.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import { expectLinear, measureGrowthAsync } from "../helpers/growth.ts";

const analyzer = testAnalyzer();

/** Relevance = share of the query's words of five letters or more that the passage holds; records every batch. */
function fakeRelevanceBackend(score?: (pairs: readonly RelevancePair[]) => Promise<number[]>): EntailmentBackend & { calls: RelevancePair[][] } {
  const calls: RelevancePair[][] = [];
  const words = (t: string): string[] => t.toLowerCase().match(/[a-z]{5,}/g) ?? [];
  return {
    name: "fake",
    version: "1",
    tier: "production",
    calls,
    classify: () => Promise.reject(new Error("not used")),
    relevance(pairs) {
      calls.push([...pairs]);
      if (score) return score(pairs);
      return Promise.resolve(
        pairs.map(({ query, passage }) => {
          const q = words(query);
          const p = new Set(words(passage));
          return q.length === 0 ? 0 : q.filter((w) => p.has(w)).length / q.length;
        }),
      );
    },
    close: () => Promise.resolve(),
  };
}

const REFUNDS = "Refunds are issued within fourteen days of purchase. Contact billing for refunds.";
const TOWER = "The Eiffel tower was completed in 1889. It stands in Paris.";
const windowsOf = (docs: string[], tokenBudget = 400) => buildWindows(docs, analyzer, { tokenBudget });

describe("context relevance", () => {
  it("gives each document its relevance to the question, and the best over them", async () => {
    const backend = fakeRelevanceBackend();
    const r = await contextRelevance({ question: "When are refunds issued?", windows: windowsOf([TOWER, REFUNDS]), backend, analyzer });
    expect(r.against).toBe("question");
    expect(r.perDocument).toEqual([0, 1]);
    expect(r.best).toBe(1);
    expect(r.perClaim).toBeUndefined();
  });

  it("scores at most top-k windows of each document, those sharing the question's words first", async () => {
    const filler = Array.from({ length: 12 }, (_, i) => `Paragraph ${i} talks about gardening and soil.`).join(" ");
    const long = `${filler} Refunds are issued within fourteen days.`;
    const windows = windowsOf([long], 12);
    expect(windows.length).toBeGreaterThan(4);
    const backend = fakeRelevanceBackend();
    const r = await contextRelevance({ question: "When are refunds issued?", windows, backend, analyzer, topK: 2 });
    const sent = backend.calls.flat();
    expect(sent.length).toBeLessThanOrEqual(2);
    expect(sent[0]?.passage).toContain("Refunds");
    expect(r.perDocument[0]).toBe(1);
  });

  it("reads a document that shares no word with the question from its first windows", async () => {
    const backend = fakeRelevanceBackend(() => Promise.resolve([0.4]));
    const r = await contextRelevance({ question: "When are refunds issued?", windows: windowsOf([TOWER]), backend, analyzer, topK: 1 });
    expect(backend.calls.flat()).toEqual([{ query: "When are refunds issued?", passage: windowsOf([TOWER])[0]?.text }]);
    expect(r.perDocument).toEqual([0.4]);
  });

  it("without a question, measures the documents against each claim, each document keeping its best over them", async () => {
    const backend = fakeRelevanceBackend();
    const r = await contextRelevance({ question: "  ", claims: ["Refunds take fourteen days.", "The tower stands in Paris."], windows: windowsOf([TOWER, REFUNDS]), backend, analyzer });
    expect(r.against).toBe("claims");
    expect(r.perClaim?.map((c) => c.perDocument)).toEqual([
      [0, 1],
      [1, 0],
    ]);
    expect(r.perDocument).toEqual([1, 1]);
    expect(r.best).toBe(1);
  });

  it("scores an empty document 0 and counts every document given", async () => {
    const backend = fakeRelevanceBackend();
    const r = await contextRelevance({ question: "When are refunds issued?", windows: windowsOf(["", REFUNDS, ""]), documents: 3, backend, analyzer });
    expect(r.perDocument).toEqual([0, 1, 0]);
  });

  it("sends each distinct (query, passage) pair once, in one batch", async () => {
    const backend = fakeRelevanceBackend();
    await contextRelevance({ question: "When are refunds issued?", windows: windowsOf([REFUNDS, REFUNDS]), backend, analyzer });
    expect(backend.calls).toHaveLength(1);
    expect(backend.calls[0]).toHaveLength(1);
  });

  it("rejects rather than guess: no relevance scorer, no query, or a malformed answer", async () => {
    const windows = windowsOf([REFUNDS]);
    const { relevance: _unused, ...noRelevance } = fakeRelevanceBackend();
    await expect(contextRelevance({ question: "q refunds", windows, backend: noRelevance, analyzer })).rejects.toThrow(/no relevance scorer/);
    await expect(contextRelevance({ claims: [], windows, backend: fakeRelevanceBackend(), analyzer })).rejects.toThrow(/question or at least one claim/);
    await expect(contextRelevance({ question: "refunds", windows, backend: fakeRelevanceBackend(() => Promise.resolve([])), analyzer })).rejects.toThrow(/0 scores for 1 pairs/);
    await expect(contextRelevance({ question: "refunds", windows, backend: fakeRelevanceBackend(() => Promise.resolve([1.5])), analyzer })).rejects.toThrow(/invalid probability .*: not a number in \[0, 1\]/);
    await expect(contextRelevance({ question: "refunds", windows, backend: fakeRelevanceBackend(() => Promise.resolve([Number.NaN])), analyzer })).rejects.toThrow(/invalid probability .*: not a number in \[0, 1\]/);
    await expect(contextRelevance({ question: "refunds", windows, backend: fakeRelevanceBackend(() => Promise.reject(new Error("down"))), analyzer })).rejects.toThrow("down");
  });

  it("on the offline backend, ranks the document that addresses the question above the off-topic one", async () => {
    const backend = createOfflineBackend({ analyzer });
    const r = await contextRelevance({ question: "How many days do refunds take to be issued?", windows: windowsOf([TOWER, REFUNDS]), backend, analyzer });
    expect(r.perDocument[1]).toBeGreaterThan(0.7);
    expect(r.perDocument[0]).toBeLessThan(0.3);
    expect(r.best).toBe(r.perDocument[1]);
    const again = await contextRelevance({ question: "How many days do refunds take to be issued?", windows: windowsOf([TOWER, REFUNDS]), backend: createOfflineBackend({ analyzer }), analyzer });
    expect(again).toEqual(r);
  });
});

describe("context relevance grows linearly", () => {
  it("with the number of windows, all sharing the question's words", async () => {
    const backend = fakeRelevanceBackend(async (pairs) => pairs.map(() => 0.5));
    const windows = (n: number) => windowsOf(Array.from({ length: n }, (_, i) => `Refunds for order ${i} are issued within ${i} days.`));
    // The timed work is the whole call: planning (ranking, choosing top-k per document), the checked
    // backend call and the scores read back; the fake backend answers at once. Each call is awaited:
    // calls left pending would keep their pairs alive for the whole measurement, and the collections
    // they cost would land on whichever sample ran then.
    const growth = await measureGrowthAsync(
      (n) => windows(n),
      (w) => contextRelevance({ question: "When are refunds for an order issued?", windows: w, backend, analyzer }),
      // One fixed size: 512 and 4,096 windows both keep the per-call arrays on one side of V8's
      // large-object size (at 256 against 2,048 the larger size took fresh pages every run).
      { n: 512, maxN: 512 },
    );
    expectLinear("context of N documents", growth);
    await expect(contextRelevance({ question: "When are refunds issued?", windows: windows(4), backend, analyzer })).resolves.toMatchObject({ best: 0.5 });
  });
});
