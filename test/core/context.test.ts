import { describe, expect, it } from "vitest";
import { buildWindows, estimateTokens } from "../../src/core/context.ts";
import { indexWindows } from "../../src/core/preselect.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";

const sentences = (n: number, doc = "A"): string => Array.from({ length: n }, (_, i) => `Fact ${doc}${i} concerns topic${doc}${i} in detail.`).join(" ");

describe("buildWindows", () => {
  it("keeps every window within the token budget", () => {
    const windows = buildWindows(sentences(40), testAnalyzer(), { tokenBudget: 30 });
    expect(windows.length).toBeGreaterThan(5);
    for (const w of windows) expect(w.tokens).toBeLessThanOrEqual(30);
  });

  it("records the document index and offsets that slice the document back to the window", () => {
    const docs = [sentences(5, "A"), "", sentences(7, "B")];
    const windows = buildWindows(docs, testAnalyzer(), { tokenBudget: 25 });
    expect(new Set(windows.map((w) => w.doc))).toEqual(new Set([0, 2]));
    for (const w of windows) expect(docs[w.doc]?.slice(w.start, w.end)).toBe(w.text);
  });

  it("overlaps consecutive windows by one sentence so no boundary hides a fact", () => {
    const windows = buildWindows(sentences(6), testAnalyzer(), { tokenBudget: 25 });
    for (let i = 1; i < windows.length; i++) {
      const prev = windows[i - 1];
      const cur = windows[i];
      if (prev && cur) expect(cur.start).toBeLessThan(prev.end);
    }
  });

  it("cuts a sentence longer than the budget at token boundaries", () => {
    const long = `The list includes ${Array.from({ length: 80 }, (_, i) => `item${i}`).join(", ")}.`;
    const windows = buildWindows(long, testAnalyzer(), { tokenBudget: 20 });
    expect(windows.length).toBeGreaterThan(3);
    for (const w of windows) expect(w.tokens).toBeLessThanOrEqual(20);
  });

  it("uses an injected token counter", () => {
    const windows = buildWindows(sentences(4), testAnalyzer(), { tokenBudget: 2, countTokens: () => 1 });
    expect(windows.map((w) => w.tokens)).toEqual(windows.map(() => 2));
  });

  it("returns no windows for empty documents", () => {
    expect(buildWindows(["", "  "], testAnalyzer(), { tokenBudget: 50 })).toEqual([]);
  });

  it("estimates more tokens for long words than for short ones", () => {
    expect(estimateTokens("cat sat")).toBe(2);
    expect(estimateTokens("internationalisation")).toBeGreaterThan(2);
  });
});

describe("indexWindows", () => {
  it("ranks the window sharing the claim's rare terms first and never returns windows with no shared term", () => {
    const docs = ["The shipping policy covers parcels.", "Refunds arrive within five business days.", "Our office is in Berlin."];
    const windows = buildWindows(docs, testAnalyzer(), { tokenBudget: 12 });
    const index = indexWindows(windows);
    const top = index.top(["refund", "business"], 3);
    expect(top[0]?.doc).toBe(1);
    expect(top.every((w) => w.doc === 1)).toBe(true);
    expect(index.top(["zebra"], 3)).toEqual([]);
  });

  it("returns at most k windows", () => {
    const windows = buildWindows(sentences(30), testAnalyzer(), { tokenBudget: 15 });
    expect(indexWindows(windows).top(["fact", "detail"], 2)).toHaveLength(2);
  });
});
