import { describe, expect, it } from "vitest";
import { parseScoreRow } from "../../src/cli/shared/score-rows.ts";
import { buildWindows, contextTexts, createWindowCache, documentId, estimateTokens, toDocuments } from "../../src/core/context.ts";
import { copyDocuments } from "../../src/sdk/copy.ts";
import { indexWindows } from "../../src/core/window-index.ts";
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

describe("the window cache", () => {
  it("cuts a recurring document into windows once, and gives the same windows as without a cache", () => {
    const base = testAnalyzer();
    let reads = 0;
    const counting = { analyze: (text: string) => (reads++, base.analyze(text)) };
    const cache = createWindowCache();
    const docs = [sentences(12, "A"), sentences(9, "B")];
    const first = buildWindows(docs, counting, { tokenBudget: 25, cache });
    expect(reads).toBe(2);
    // The same documents in another order, as another request would send them.
    const second = buildWindows([docs[1] ?? "", docs[0] ?? ""], counting, { tokenBudget: 25, cache });
    expect(reads).toBe(2);
    expect(second).toEqual(buildWindows([docs[1] ?? "", docs[0] ?? ""], base, { tokenBudget: 25 }));
    expect(first).toEqual(buildWindows(docs, base, { tokenBudget: 25 }));
  });

  it("stays within its byte bound", () => {
    const base = testAnalyzer();
    let reads = 0;
    const counting = { analyze: (text: string) => (reads++, base.analyze(text)) };
    // Room for one of these documents (about 6.4 KB each, estimated), not two.
    const cache = createWindowCache(10_000);
    const a = sentences(12, "A");
    buildWindows(a, counting, { tokenBudget: 25, cache });
    buildWindows(sentences(12, "B"), counting, { tokenBudget: 25, cache });
    const c = sentences(12, "C");
    buildWindows(c, counting, { tokenBudget: 25, cache });
    buildWindows(c, counting, { tokenBudget: 25, cache });
    // The latest document is kept; the first one was dropped to make room.
    expect(reads).toBe(3);
    buildWindows(a, counting, { tokenBudget: 25, cache });
    expect(reads).toBe(4);
  });
});

describe("the document shape", () => {
  it("reads a string context as one document and keeps the names of document objects", () => {
    expect(toDocuments("All text.")).toEqual([{ text: "All text." }]);
    expect(toDocuments(["One.", { id: "b", title: "Two", text: "Two." }])).toEqual([{ text: "One." }, { id: "b", title: "Two", text: "Two." }]);
    expect(contextTexts(["One.", { id: "b", text: "Two." }])).toEqual(["One.", "Two."]);
  });

  it("keeps a string id, writes a finite numeric id as its decimal string, and drops anything else", () => {
    expect(documentId("doc-7")).toBe("doc-7");
    expect(documentId(3)).toBe("3");
    expect(documentId(1.5)).toBe("1.5");
    for (const bad of [Number.NaN, Infinity, null, undefined, {}, true]) expect(documentId(bad)).toBeUndefined();
  });

  it("gives a numbered document the same id from a JSONL row as from an SDK observation", () => {
    const context = [{ id: 3, text: "Refunds take 5 days." }, { id: "policy", text: "Returns within 30 days." }];
    const row = parseScoreRow(JSON.stringify({ id: 1, answer: "Refunds take 5 days.", context }), 1);
    expect(row.ok, row.ok ? "" : row.error).toBe(true);
    const fromRow = row.ok ? row.row.context : undefined;
    expect(fromRow).toEqual(copyDocuments(context));
    expect(fromRow).toEqual([{ id: "3", text: "Refunds take 5 days." }, { id: "policy", text: "Returns within 30 days." }]);
  });
});
