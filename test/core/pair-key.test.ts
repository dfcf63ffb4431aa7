/**
 * One pair key everywhere pairs are de-duplicated or cached: two different pairs whose texts,
 * run together, read the same must never share a key, in any of its users.
 */
import { describe, expect, it } from "vitest";
import type { EntailmentBackend, RelevancePair } from "../../src/core/backend.ts";
import type { ContextWindow } from "../../src/core/context.ts";
import { nliPairKey, pairKey, relevancePairKey } from "../../src/core/pair-key.ts";
import { contextRelevance } from "../../src/core/relevance.ts";
import { NLI_HEAD, RELEVANCE_HEAD } from "../../src/nli/onnx/pool.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";

// "a\0b" + "c" and "a" + "b\0c" run together (with or without a NUL between) to the same text.
const FIRST = { a: "a\u0000b", b: "c" };
const SECOND = { a: "a", b: "b\u0000c" };

function windowOf(doc: number, text: string): ContextWindow {
  return { id: doc, doc, start: 0, end: text.length, text, tokens: 1, terms: [], sentences: [] };
}

describe("pairKey", () => {
  it("gives two pairs whose texts run together alike different keys", () => {
    expect(pairKey(FIRST.a, FIRST.b)).not.toBe(pairKey(SECOND.a, SECOND.b));
    expect(pairKey("ab", "c")).not.toBe(pairKey("a", "bc"));
  });

  it("is the key of every user: the judgement cache's pairs, the relevance pairs, and both onnx pools' batchers", () => {
    const nli = [{ premise: FIRST.a, hypothesis: FIRST.b }, { premise: SECOND.a, hypothesis: SECOND.b }] as const;
    const relevance = [{ query: FIRST.a, passage: FIRST.b }, { query: SECOND.a, passage: SECOND.b }] as const;
    expect(nliPairKey(nli[0])).not.toBe(nliPairKey(nli[1]));
    expect(relevancePairKey(relevance[0])).not.toBe(relevancePairKey(relevance[1]));
    expect(NLI_HEAD.keyOf(nli[0])).not.toBe(NLI_HEAD.keyOf(nli[1]));
    expect(RELEVANCE_HEAD.keyOf(relevance[0])).not.toBe(RELEVANCE_HEAD.keyOf(relevance[1]));
    expect(NLI_HEAD.keyOf(nli[0])).toBe(nliPairKey(nli[0]));
    expect(RELEVANCE_HEAD.keyOf(relevance[0])).toBe(relevancePairKey(relevance[0]));
  });

  it("keeps context relevance from merging two claims' different pairs into one", async () => {
    const sent: RelevancePair[] = [];
    const backend: EntailmentBackend = {
      name: "fake",
      version: "1",
      tier: "production",
      classify: () => Promise.reject(new Error("not used")),
      relevance(pairs) {
        sent.push(...pairs);
        return Promise.resolve(pairs.map((p) => (p.passage === FIRST.b ? 1 : 0)));
      },
      close: () => Promise.resolve(),
    };
    const result = await contextRelevance({ claims: [FIRST.a, SECOND.a], windows: [windowOf(0, FIRST.b), windowOf(1, SECOND.b)], backend, analyzer: testAnalyzer(), topK: 1 });
    expect(sent.map((p) => [p.query, p.passage])).toContainEqual([SECOND.a, SECOND.b]);
    // The second claim's pair against the second document scored 0, not the first pair's 1.
    expect(result.perClaim?.[1]?.perDocument[1]).toBe(0);
  });
});
