import { describe, expect, it } from "vitest";
import type { NliPair } from "../../src/core/backend.ts";
import type { ContextWindow } from "../../src/core/context.ts";
import { createGroundednessScorer } from "../../src/core/groundedness.ts";
import { createNliCache } from "../../src/core/nli-cache.ts";
import { lookUpPairs } from "../../src/core/pair-lookup.ts";
import type { GroundednessResult, GroundednessSettings } from "../../src/core/result.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import { createFakeBackend } from "../helpers/fake-backend.ts";

const SETTINGS: GroundednessSettings = { threshold: 0.5, topK: 2, tokenBudget: 40 };
const CONTEXT = ["Refunds are available within thirty days of delivery. Items must be unused.", "The store opens at nine on weekdays. It is closed on Sundays."];
const ANSWER = "You can get a refund within thirty days. The shop is closed every Sunday.";

/** A result without what only says how it was reached (the calls made and saved). */
const judged = (r: GroundednessResult): Omit<GroundednessResult, "entailmentCalls" | "callsSaved"> => {
  const { entailmentCalls: _calls, callsSaved: _saved, ...rest } = r;
  return rest;
};

describe("the judgement cache in groundedness", () => {
  it("answers repeated observations on the same documents from the cache, with the same results", async () => {
    const backend = createFakeBackend();
    const scorer = createGroundednessScorer(backend, testAnalyzer(), { ...SETTINGS, nliCache: createNliCache() });
    const first = await scorer.score({ answer: ANSWER, context: CONTEXT });
    const sent = backend.calls.flat().length;
    expect(sent).toBeGreaterThan(0);
    expect(first.entailmentCalls).toBe(sent);
    expect(first).not.toHaveProperty("callsSaved");
    const second = await scorer.score({ answer: ANSWER, context: CONTEXT });
    expect(backend.calls.flat()).toHaveLength(sent);
    expect(second.entailmentCalls).toBe(0);
    expect(second.callsSaved).toEqual({ verbatim: 0, cache: sent, triage: 0 });
    expect(judged(second)).toEqual(judged(first));
  });

  it("gives the same results as scoring without it", async () => {
    const uncached = createGroundednessScorer(createFakeBackend(), testAnalyzer(), SETTINGS);
    const cached = createGroundednessScorer(createFakeBackend(), testAnalyzer(), { ...SETTINGS, nliCache: createNliCache() });
    for (let round = 0; round < 3; round++) {
      const context = round === 1 ? [...CONTEXT].reverse() : CONTEXT;
      expect(judged(await cached.score({ answer: ANSWER, context }))).toEqual(judged(await uncached.score({ answer: ANSWER, context })));
    }
  });

  it("misses when the backend's version changes: a new model or graph judges again", async () => {
    const cache = createNliCache();
    const old = createFakeBackend();
    const graph2 = { ...createFakeBackend(), version: "model/graph-2 sha256:beef" };
    await createGroundednessScorer(old, testAnalyzer(), { ...SETTINGS, nliCache: cache }).score({ answer: ANSWER, context: CONTEXT });
    const sent = old.calls.flat().length;
    const result = await createGroundednessScorer(graph2, testAnalyzer(), { ...SETTINGS, nliCache: cache }).score({ answer: ANSWER, context: CONTEXT });
    expect(graph2.calls.flat()).toHaveLength(sent);
    expect(result.entailmentCalls).toBe(sent);
    expect(result).not.toHaveProperty("callsSaved");
  });

  it("keeps no judgement that is not three probabilities, so a bad batch is not served again", async () => {
    const cache = createNliCache();
    const bad = createFakeBackend({ classify: (pairs) => Promise.resolve(pairs.map(() => ({ entailment: Number.NaN, neutral: 0, contradiction: 0 }))) });
    const result = await createGroundednessScorer(bad, testAnalyzer(), { ...SETTINGS, nliCache: cache }).score({ answer: ANSWER, context: CONTEXT });
    expect(result.verdict).toBe("unscorable");
    const good = createFakeBackend();
    await createGroundednessScorer(good, testAnalyzer(), { ...SETTINGS, nliCache: cache }).score({ answer: ANSWER, context: CONTEXT });
    expect(good.calls.flat()).toHaveLength(bad.calls.flat().length);
  });
});

describe("lookUpPairs", () => {
  const window = (text: string): ContextWindow => ({ id: 0, doc: 0, start: 0, end: text.length, text, tokens: 0, terms: [], sentences: [{ start: 0, end: text.length, terms: [] }] });

  it("sends identical pairs of one answer once, and gives each its judgement", () => {
    const w = window("The fee is ten euros for adults.");
    const pair: NliPair = { premise: w.text, hypothesis: "Adults pay ten euros." };
    const other: NliPair = { premise: w.text, hypothesis: "Children pay nothing." };
    const lookup = lookUpPairs([pair, other, pair], [w, w, w], undefined, "1");
    expect(lookup.send).toEqual([pair, other]);
    expect(lookup.saved).toEqual({ verbatim: 0, cache: 1, triage: 0 });
    const a = { entailment: 0.9, neutral: 0.05, contradiction: 0.05 };
    const b = { entailment: 0.1, neutral: 0.8, contradiction: 0.1 };
    expect(lookup.complete([a, b])).toEqual([a, b, a]);
  });

  it("decides a claim its window states as a whole sentence without sending it", () => {
    const w = window("Adults pay ten euros.");
    const lookup = lookUpPairs([{ premise: w.text, hypothesis: "adults pay ten euros" }], [w], createNliCache(), "1");
    expect(lookup.send).toHaveLength(0);
    expect(lookup.saved).toEqual({ verbatim: 1, cache: 0, triage: 0 });
    expect(lookup.complete([])[0]?.entailment).toBe(1);
  });
});
