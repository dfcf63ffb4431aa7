import { describe, expect, it } from "vitest";
import { RENDER_LIMITS, documentExcerpt, evidenceSpans, renderRecord } from "../../src/cli/review/render.ts";
import { viewableRecord } from "../../src/review/viewable.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";
import { RETURNS_TEXT, spoolRecord } from "../helpers/review-terminal.ts";

const PLAIN = { color: false };
const COLOR = { color: true };
const ESC = "\u001b";

describe("the terminal review's rendering", () => {
  it("highlights each claim's evidence span at its offsets in the document", () => {
    const r = spoolRecord();
    const plain = renderRecord(r, PLAIN).join("\n");
    // The two claims' spans touch ([0,49) and [50,end) do not): two marked spans, the space between unmarked.
    expect(plain).toContain("[[Items can be returned within 30 days of delivery.]] [[Refunds go to the original payment method.]]");
    const color = renderRecord(r, COLOR).join("\n");
    expect(color).toContain(`${ESC}[7mItems can be returned within 30 days of delivery.${ESC}[27m`);
  });

  it("merges overlapping spans, clamps them to the document and drops bad offsets", () => {
    const claims = [
      { ...spoolRecord().claims[0]!, evidence: { doc: 0, start: 5, end: 20 } },
      { ...spoolRecord().claims[0]!, evidence: { doc: 0, start: 10, end: 30 } },
      { ...spoolRecord().claims[0]!, evidence: { doc: 0, start: 90, end: 500 } },
      { ...spoolRecord().claims[0]!, evidence: { doc: 0, start: Number.NaN, end: 3 } },
      { ...spoolRecord().claims[0]!, evidence: { doc: 1, start: 0, end: 3 } },
    ];
    expect(evidenceSpans(claims, 0, 100)).toEqual([
      { start: 5, end: 30 },
      { start: 90, end: 100 },
    ]);
  });

  it("shows each claim with its verdict, score and cause, and the answer's header", () => {
    const lines = renderRecord(spoolRecord(), PLAIN);
    expect(lines[0]).toBe("flagged  /ask  2026-12-01T10:00:00.000Z  ungrounded  score 0.120  cause generation");
    expect(lines).toContain('  0. contradicted (generation), score 0.050 | claim: "You can return items within 90 days." | contradicting evidence: document [1] ("returns"), highlighted above');
    expect(lines).toContain('  1. supported, score 0.930 | claim: "Refunds go to the original payment method." | evidence: document [1] ("returns"), highlighted above');
  });

  // Issue 36: the claim line read "evidence doc 0: <claim text>", as if the claim were the evidence,
  // and named the document by its 0-based index instead of its id or title.
  it("labels a claim apart from its evidence, and names the evidence's document by its id or title, else its position [n]", () => {
    const documents = [{ text: "Shipping takes 5 days." }, { title: "Returns policy", text: RETURNS_TEXT }, { text: "Unnamed." }];
    const claims = [
      { ...spoolRecord().claims[0]!, evidence: { doc: 1, start: 0, end: 49 } },
      { index: 1, text: "Refunds take 2 days.", start: 37, end: 57, verdict: "unsupported" as const, score: 0.2, evidence: { doc: 2, start: 0, end: 8 } },
      { index: 2, text: "Returns are free.", start: 58, end: 75, verdict: "misattributed" as const, score: 0.1 },
    ];
    const lines = renderRecord(spoolRecord({ documents, claims }), PLAIN);
    expect(lines).toContain('  0. contradicted (generation), score 0.050 | claim: "You can return items within 90 days." | contradicting evidence: document [2] ("Returns policy"), highlighted above');
    expect(lines).toContain('  1. unsupported, score 0.200 | claim: "Refunds take 2 days." | nearest evidence: document [3], highlighted above');
    expect(lines).toContain('  2. misattributed, score 0.100 | claim: "Returns are free." | no evidence');
    // Each document's heading carries the same position, then its names.
    expect(lines).toContain("document [1]:");
    expect(lines).toContain("document [2]  Returns policy:");
    expect(lines.join("\n")).not.toMatch(/\bdoc \d/);
  });

  it("sanitises and caps a document's name in a claim's line", () => {
    const documents = [{ id: `\u001b[2J${"x".repeat(5000)}\u202e`, text: RETURNS_TEXT }];
    const line = renderRecord(spoolRecord({ documents }), PLAIN).find((l) => l.startsWith("  0. ")) ?? "";
    expect(line).not.toContain("\u001b");
    expect(line).not.toContain("\u202e");
    expect(line).toContain(`document [1] ("${"x".repeat(200)}…")`);
  });

  it("cuts a long document around the evidence, eliding the rest", () => {
    const text = `${"a".repeat(5000)}THE EVIDENCE${"b".repeat(5000)}`;
    const out = documentExcerpt(text, [{ start: 5000, end: 5012 }], PLAIN);
    expect(out).toBe(` … ${"a".repeat(RENDER_LIMITS.context)}[[THE EVIDENCE]]${"b".repeat(RENDER_LIMITS.context)} … `);
    const none = documentExcerpt(text, [], PLAIN);
    expect(none).toBe(`${"a".repeat(RENDER_LIMITS.plainDoc)}…`);
  });

  it("removes a hostile escape sequence from every spooled field, highlighting only with its own", () => {
    const hostile = `${ESC}]8;;https://evil.example${ESC}\\click${ESC}]8;;${ESC}\\ ${ESC}[2J${ESC}[31mred\u202e`;
    const r = spoolRecord({
      route: `/ask${ESC}[2J`,
      question: hostile,
      answer: hostile,
      documents: [{ title: hostile, url: hostile, text: `${hostile} ${RETURNS_TEXT}` }],
      claims: [{ ...spoolRecord().claims[0]!, text: hostile, evidence: { doc: 0, start: 0, end: hostile.length + 10 } }],
    });
    for (const style of [PLAIN, COLOR]) {
      const out = renderRecord(r, style).join("\n");
      // What is left of ESC: only the view's own inverse and dim styling.
      const escapes = out.match(new RegExp(`${ESC}\\[[0-9;]*m`, "g")) ?? [];
      expect(out.split(ESC).length - 1).toBe(escapes.length);
      for (const e of escapes) expect(["\u001b[7m", "\u001b[27m", "\u001b[2m", "\u001b[22m"]).toContain(e);
      expect(out).not.toContain("evil.example");
      expect(out).not.toContain("\u202e");
      expect(out).toContain("click");
    }
  });

  it("keeps the output per answer bounded on a huge document, many documents and many claims", () => {
    const big = (n: number): ReturnType<typeof spoolRecord> =>
      spoolRecord({
        question: "q".repeat(n),
        answer: "x".repeat(n),
        documents: Array.from({ length: 50 }, () => ({ text: "word ".repeat(n) })),
        claims: Array.from({ length: 200 }, (_, i) => ({ index: i, text: "c".repeat(n), start: 0, end: 1, verdict: "unsupported" as const, score: 0.1, evidence: { doc: i % 50, start: i * 7, end: i * 7 + n } })),
      });
    const small = renderRecord(big(1000), COLOR).join("\n").length;
    const large = renderRecord(big(100_000), COLOR).join("\n").length;
    // 100× the text, the same view give or take the cut pieces' edges.
    expect(large).toBeLessThan(small * 1.2);
    expect(large).toBeLessThan(100_000);
  });

  it("while marking claim by claim, shows the claims around the cursor, each with its mark", () => {
    const many = spoolRecord({ claims: Array.from({ length: 100 }, (_, i) => ({ ...spoolRecord().claims[0]!, index: i, text: `claim ${i}` })) });
    const marks = many.claims.map((_, i) => (i === 70 ? 1 : 0) as 0 | 1);
    const lines = renderRecord(many, PLAIN, { marks, cursor: 70 });
    expect(lines).toContain('> [supported]     70. contradicted (generation), score 0.050 | claim: "claim 70" | contradicting evidence: document [1] ("returns"), highlighted above');
    expect(lines).toContain('  [not supported] 71. contradicted (generation), score 0.050 | claim: "claim 71" | contradicting evidence: document [1] ("returns"), highlighted above');
    expect(lines).toContain(`  (${70 - RENDER_LIMITS.claims / 2} claims above)`);
    expect(lines.filter((l) => /^[> ] \[/.test(l))).toHaveLength(RENDER_LIMITS.claims);
  });

  it("renders a record whose claims, documents or text are not what they should be, without throwing", () => {
    const broken = { ...spoolRecord(), question: 7, answer: null, documents: [null, "x", { title: "t" }], claims: [null, 3, { text: "c", verdict: "unsupported", score: "high", evidence: "doc" }] } as unknown as ReturnType<typeof spoolRecord>;
    const r = viewableRecord(broken);
    expect(r.claims).toEqual([{ index: 0, text: "c", verdict: "unsupported", score: "high" }]);
    expect(r.documents).toEqual([{ title: "t", text: "" }]);
    expect(r.question).toBeUndefined();
    const lines = renderRecord(r, PLAIN);
    expect(lines).toContain('  0. unsupported, score - | claim: "c" | no evidence');
    expect(lines).toContain("document [1]  t:");
  });

  it("renders in time linear in the document's size (N vs 8N)", () => {
    const make = (n: number): ReturnType<typeof spoolRecord> => {
      const text = `${ESC}[31m`.repeat(n) + "x".repeat(n);
      return spoolRecord({ documents: [{ text }], claims: [{ ...spoolRecord().claims[0]!, evidence: { doc: 0, start: 0, end: text.length } }] });
    };
    expectLinear("renderRecord", measureGrowth(make, (r) => renderRecord(r, COLOR), { n: 20_000 }));
  });
});
