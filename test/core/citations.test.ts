import { describe, expect, it } from "vitest";
import { attachCitations, findCitations, resolveCitations, stripCitations } from "../../src/core/citations.ts";
import { createGroundednessScorer } from "../../src/core/groundedness.ts";
import { createFakeBackend } from "../helpers/fake-backend.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";

const markers = (answer: string, named = true): Array<[string, string]> =>
  findCitations(answer, named).map((m) => [m.text, m.targets.map((t) => (t.kind === "index" ? String(t.n) : `"${t.name}"`)).join(",")]);

describe("findCitations", () => {
  it.each([
    ["The fee is $5 [1].", [["[1]", "1"]]],
    ["The fee is $5 [1, 3].", [["[1, 3]", "1,3"]]],
    ["The fee is $5 [2-4].", [["[2-4]", "2,3,4"]]],
    ["The fee is $5 [2–4; 7].", [["[2–4; 7]", "2,3,4,7"]]],
    ["The fee is $5.[1][2]", [["[1]", "1"], ["[2]", "2"]]],
    ["Paris[1] is the capital.", [["[1]", "1"]]],
    ["The fee is $5.[^2]", [["[^2]", "2"]]],
    ["The fee is $5 (source: refund-policy.md).", [["(source: refund-policy.md)", '"refund-policy.md"']]],
    ["The fee is $5 [Sources: pricing, faq.md].", [["[Sources: pricing, faq.md]", '"pricing","faq.md"']]],
  ])("reads %j", (answer, expected) => {
    expect(markers(answer)).toEqual(expected);
  });

  it.each([
    ["a markdown link", "See [1](https://example.com/a) for details."],
    ["code spans", "Use `items[1]` to get the second item."],
    ["fenced code", "```\nconst x = rows[2];\n```"],
    ["an index right after a digit or identifier char", "Use rows_[1] or a2[3]."],
    ["double quotation marks", 'The sign said "see note [3]" in red.'],
    ["a range too long to be a list of sources", "Values [1-500] are valid."],
    ["words in brackets", "The report [draft] is late."],
    ["a footnote definition", "[^1]: Refund policy, section 2."],
  ])("leaves %s alone", (_, answer) => {
    expect(markers(answer)).toEqual([]);
  });

  it("reads named sources only when the documents carry names", () => {
    expect(markers("Fee is $5 (source: faq.md).", false)).toEqual([]);
  });

  it("finds nothing in an answer without citations", () => {
    expect(findCitations("The fee is $5. Refunds take 30 days.")).toEqual([]);
  });
});

describe("stripCitations", () => {
  it("removes markers and the space before them, mapping offsets back to the answer", () => {
    const answer = "The fee is $5 [1]. Refunds take 30 days [2], by law.";
    const s = stripCitations(answer, findCitations(answer));
    expect(s.text).toBe("The fee is $5. Refunds take 30 days, by law.");
    const at = s.text.indexOf("Refunds");
    expect(answer.slice(s.toOriginal(at), s.toOriginal(at) + 7)).toBe("Refunds");
    expect(s.toOriginal(s.text.length)).toBe(answer.length);
  });

  it("keeps one space between words a marker separated", () => {
    const answer = "Paris [1] is the capital.";
    expect(stripCitations(answer, findCitations(answer)).text).toBe("Paris is the capital.");
  });

  it("returns an answer without markers unchanged", () => {
    const s = stripCitations("No sources here.", []);
    expect(s.text).toBe("No sources here.");
    expect(s.toOriginal(3)).toBe(3);
  });
});

describe("resolveCitations", () => {
  it("numbers documents from 1, and reads numeric ids when the documents have them", () => {
    const m = findCitations("A [1]. B [3].");
    expect(resolveCitations(m, [{}, {}]).map((c) => [c.docs, c.missing])).toEqual([
      [[0], []],
      [[], ["3"]],
    ]);
    expect(resolveCitations(m, [{ id: "3" }, { id: "1" }]).map((c) => c.docs)).toEqual([[1], [0]]);
  });

  // Regression: database ids ("4821") made every positional [1] a citation of nothing.
  it("reads [n] by position when no document's id is n", () => {
    const m = findCitations("A [1]. B [2].");
    expect(resolveCitations(m, [{ id: "4821" }, { id: "77" }]).map((c) => [c.docs, c.missing])).toEqual([
      [[0], []],
      [[1], []],
    ]);
  });

  it("matches named sources by id, title or URL, case-insensitively and by file name", () => {
    const docs = [{ id: "refund-policy" }, { title: "Pricing Guide" }, { url: "https://example.com/docs/faq.md?x=1" }];
    const m = findCitations("A (source: Refund-Policy.md). B (source: pricing guide). C (source: faq). D (source: terms.md).");
    expect(resolveCitations(m, docs).map((c) => [c.docs, c.missing])).toEqual([
      [[0], []],
      [[1], []],
      [[2], []],
      [[], ["terms.md"]],
    ]);
  });
});

describe("attachCitations", () => {
  it("attaches a marker to the claim it sits in or follows", () => {
    const claims = [
      { start: 0, end: 13 },
      { start: 14, end: 40 },
    ];
    // Inside the first claim, right after it, inside the second, after everything.
    expect(attachCitations([5, 13, 20, 45], claims)).toEqual([0, 0, 1, 1]);
    expect(attachCitations([3], [])).toEqual([-1]);
  });
});

const DOCS = [
  { id: "pricing", text: "The basic plan costs $10 a month." },
  { id: "refunds", text: "Refunds are issued within 30 days." },
];

describe("scoring cited answers", () => {
  const scorer = (backend = createFakeBackend()) => ({ backend, scorer: createGroundednessScorer(backend, testAnalyzer(), { threshold: 0.5, topK: 3, tokenBudget: 400 }) });

  // The fake backend entails a claim when the premise contains the claim's last word.
  it("flags a claim citing a document that was not retrieved without any backend call", async () => {
    const { backend, scorer: s } = scorer();
    const r = await s.score({ answer: "Refunds are issued within 30 days [5].", context: DOCS });
    expect(backend.calls.flat()).toHaveLength(0);
    expect(r.verdict).toBe("ungrounded");
    expect(r.claims[0]).toMatchObject({ verdict: "unsupported", reason: "citation_not_retrieved", score: 0 });
    expect(r.claims[0]?.citations?.[0]).toMatchObject({ marker: "[5]", status: "not_retrieved", missing: ["5"], docs: [] });
    expect(r.citations).toEqual({ found: 1, valid: 0, invalid: 1, misattributed: 0 });
  });

  it("finds a claim supported by document 2 but citing [1] misattributed, naming the document that supports it", async () => {
    const { scorer: s } = scorer();
    const r = await s.score({ answer: "Refunds are issued within 30 days [1].", context: DOCS });
    expect(r.verdict).toBe("ungrounded");
    expect(r.claims[0]?.verdict).toBe("misattributed");
    expect(r.claims[0]?.evidence?.doc).toBe(1);
    expect(r.claims[0]?.notes[0]).toBe('not supported by the cited source [1] ("pricing"); supported by [2] ("refunds")');
    expect(r.claims[0]?.citations?.[0]).toMatchObject({ status: "misattributed", docs: [0] });
    expect(r.citations).toEqual({ found: 1, valid: 1, invalid: 0, misattributed: 1 });
  });

  it("grounds a correctly cited answer, with marker offsets in the answer and claims free of markers", async () => {
    const { scorer: s } = scorer();
    const answer = "The basic plan costs $10 a month [1]. Refunds are issued within 30 days (source: refunds).";
    const r = await s.score({ answer, context: DOCS });
    expect(r.verdict).toBe("grounded");
    expect(r.claims.map((c) => c.text)).toEqual(["The basic plan costs $10 a month.", "Refunds are issued within 30 days."]);
    expect(r.claims.map((c) => c.citations?.map((x) => x.status))).toEqual([["supported"], ["supported"]]);
    const second = r.claims[1]?.citations?.[0];
    expect(second && answer.slice(second.start, second.end)).toBe("(source: refunds)");
    const first = r.claims[0];
    expect(first && answer.slice(first.start, first.end)).toBe("The basic plan costs $10 a month [1].");
    expect(r.citations).toEqual({ found: 2, valid: 2, invalid: 0, misattributed: 0 });
  });

  it("scores an answer without citations exactly as before, with no citation summary", async () => {
    const { scorer: s } = scorer();
    const r = await s.score({ answer: "Refunds are issued within 30 days.", context: DOCS.map((d) => d.text) });
    expect(r.verdict).toBe("grounded");
    expect(r.citations).toBeUndefined();
    expect(r.claims[0]?.citations).toBeUndefined();
  });

  // Regression: a marker after a skipped sentence was handed to the last checked claim.
  it("does not give a claim the markers of sentences skipped after it", async () => {
    const backend = createFakeBackend();
    const s = createGroundednessScorer(backend, testAnalyzer(), { threshold: 0.5, topK: 3, tokenBudget: 400, maxClaims: 1 });
    const r = await s.score({ answer: "Refunds are issued within 30 days [2]. The basic plan costs $10 a month [1]. Gift cards never expire [3].", context: DOCS });
    expect(r.claims).toHaveLength(1);
    expect(r.claims[0]?.verdict).toBe("supported");
    expect(r.claims[0]?.citations?.map((c) => c.marker)).toEqual(["[2]"]);
    // Every marker still counts in the summary, the one naming a missing document as invalid.
    expect(r.citations).toEqual({ found: 3, valid: 2, invalid: 1, misattributed: 0 });
  });

  it("scores uncited claims of a cited answer as today", async () => {
    const { scorer: s } = scorer();
    const r = await s.score({ answer: "The basic plan costs $10 a month [1]. Refunds are issued within 30 days.", context: DOCS });
    expect(r.claims.map((c) => c.verdict)).toEqual(["supported", "supported"]);
    expect(r.claims[1]?.citations).toBeUndefined();
  });
});
