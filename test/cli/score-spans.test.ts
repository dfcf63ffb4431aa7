import { describe, expect, it } from "vitest";
import { toOutputRow } from "../../src/cli/score.ts";
import { markStyleFor, markedText } from "../../src/cli/shared/spans.ts";
import { formatResultBlock, modelWorkLine } from "../../src/cli/shared/table.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";
import { SPANS, SPAN_ANSWER, spanResult } from "../helpers/span-results.ts";

const ESC = "\u001b";
const ZERO = { calls: 0, saved: { verbatim: 0, cache: 0, triage: 0 } };

describe("score --format table with spans", () => {
  it("without colour, marks the answer's spans with [[ ]] and lists each with its probability and claim", () => {
    const lines = formatResultBlock("q1", SPAN_ANSWER, spanResult());
    const text = lines.join("\n");
    expect(text).toContain("answer: The capital of France is [[Lyon]]. It has [[3 million]] people.");
    expect(text).toContain("spans: 2 marked · model calls by engine: claims 0, spans 1");
    expect(text).toContain(`«Lyon» [25, 29) p=0.91 in claim 0`);
    expect(text).toContain(`«3 million» [38, 47) p=0.87 in claim 1`);
    expect(text).not.toContain(ESC);
  });

  it("with colour, marks the spans with an ANSI highlight and no plain markers", () => {
    const text = formatResultBlock("q1", SPAN_ANSWER, spanResult(), undefined, { color: true }).join("\n");
    expect(text).toContain(`is ${ESC}[1;31mLyon${ESC}[22;39m. It has ${ESC}[1;31m3 million${ESC}[22;39m people.`);
    expect(text).not.toContain("[[");
  });

  it("shows marked: «…» p=… under each claim a span detector failed", () => {
    const lines = formatResultBlock("q1", SPAN_ANSWER, spanResult());
    const claimLine = lines.findIndex((l) => l.includes('✗ unsupported (0.090): "The capital of France is Lyon."'));
    expect(claimLine).toBeGreaterThan(0);
    expect(lines[claimLine + 1]?.trim()).toBe("marked: «Lyon» p=0.91");
    expect(lines.join("\n")).toContain("marked: «3 million» p=0.87");
  });

  it("shows a supported claim with marked words (refine mode) instead of hiding it", () => {
    const r = spanResult();
    const refined = { ...r, claims: r.claims.map(({ reason: _reason, ...c }) => (c.index === 1 ? { ...c, verdict: "supported" as const, score: 0.93 } : { ...c, reason: "unsupported_span" as const })) };
    const text = formatResultBlock("q1", SPAN_ANSWER, refined).join("\n");
    expect(text).toContain('~ supported (0.930) but words marked: "It has 3 million people."');
    expect(text).toContain("marked: «3 million» p=0.87");
  });

  it("says none were marked when the span detector marked nothing", () => {
    const text = formatResultBlock("q1", SPAN_ANSWER, spanResult(true, [])).join("\n");
    expect(text).toContain("spans: none marked · model calls by engine: claims 0, spans 1");
    expect(text).not.toContain("answer: ");
  });

  it("renders a result without spans as before: no span, marked or engine line", () => {
    const text = formatResultBlock("q1", SPAN_ANSWER, spanResult(false)).join("\n");
    for (const absent of ["spans:", "marked", "[[", "by engine"]) expect(text).not.toContain(absent);
    expect(modelWorkLine(ZERO)).toBe("model calls 0, saved 0 verbatim + 0 cached");
  });

  it("closes the table with the model calls by engine when a span detector ran", () => {
    expect(modelWorkLine(ZERO, { claims: 12, spans: 3 })).toBe("model calls 0, saved 0 verbatim + 0 cached; by engine: claims 12, spans 3");
  });

  it("lets no control character of an attacker's answer or span reach the terminal, in colour or not", () => {
    const answer = "Pay \u001b]8;;http://evil\u0007here\u001b]8;;\u0007 now\r\u001b[2Jor \u009b31mthen\u202e.";
    const spans = [
      { start: 4, end: 30, probability: 0.95, claim: 0, text: answer.slice(4, 30) },
      // A span that starts inside an escape sequence: each cut piece is sanitised on its own.
      { start: answer.indexOf("[2J"), end: answer.indexOf("then"), probability: 0.8, claim: 0, text: answer.slice(answer.indexOf("[2J"), answer.indexOf("then")) },
    ];
    const r = { ...spanResult(true, spans), claims: [{ ...spanResult().claims[0]!, start: 0, end: answer.length, text: answer, spans: [0, 1] }] };
    for (const color of [false, true]) {
      const text = formatResultBlock("q1", answer, r, undefined, { color }).join("\n");
      const ours = text.replaceAll(`${ESC}[1;31m`, "").replaceAll(`${ESC}[22;39m`, "");
      for (const control of [ESC, "\u0007", "\r", "\u009b", "\u202e"]) expect(ours).not.toContain(control);
      expect(ours).toContain("here");
    }
  });

  it("chooses colour only for a terminal without NO_COLOR", () => {
    expect(markStyleFor({ isTTY: true }, {})).toEqual({ color: true });
    expect(markStyleFor({ isTTY: true }, { NO_COLOR: "1" })).toEqual({ color: false });
    expect(markStyleFor({ isTTY: false }, {})).toEqual({ color: false });
    expect(markStyleFor({}, {})).toEqual({ color: false });
  });

  it("marks an answer in time linear in its length and spans", () => {
    const make = (n: number): { text: string; spans: Array<{ start: number; end: number }> } => {
      const text = "word \u001b[31m ".repeat(n);
      return { text, spans: Array.from({ length: n }, (_, i) => ({ start: i * 11, end: i * 11 + 4 })) };
    };
    expectLinear("markedText", measureGrowth(make, ({ text, spans }) => markedText(text, spans, { color: false }, Infinity), { n: 256 }));
  });
});

describe("score JSON rows with spans", () => {
  it("carry the result's spans (offsets, probability, claim, text) and its calls by engine; each claim its spans and reason", () => {
    const row = toOutputRow("q1", spanResult());
    expect(row.spans).toEqual(SPANS);
    expect(row.callsByEngine).toEqual({ claims: 0, spans: 1 });
    expect((row.claims as Array<Record<string, unknown>>)[0]).toMatchObject({ spans: [0], reason: "unsupported_span" });
    // JSON round trip: the same values.
    expect(JSON.parse(JSON.stringify(row)).spans).toEqual(SPANS);
  });

  it("carry neither without a span detector", () => {
    const row = toOutputRow("q1", spanResult(false));
    expect(row).not.toHaveProperty("spans");
    expect(row).not.toHaveProperty("callsByEngine");
  });
});
