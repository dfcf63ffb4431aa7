import { describe, expect, it } from "vitest";
import type { AnswerSpan, ClaimResult } from "../../src/core/result.ts";
import { evaluateGate } from "../../src/cli/eval/gate.ts";
import { reportHtml } from "../../src/cli/eval/html.ts";
import { reportJunit } from "../../src/cli/eval/junit.ts";
import { reportMarkdown } from "../../src/cli/eval/markdown.ts";
import { summarise } from "../../src/cli/eval/summary.ts";
import type { EvalReport, EvalRow, GateSpec } from "../../src/cli/eval/types.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";
import { SPANS, SPAN_ANSWER, spanClaims } from "../helpers/span-results.ts";

/** The control characters in `text` other than tab and line breaks (none may reach a report). */
const controls = (text: string): number[] => [...text].map((c) => c.charCodeAt(0)).filter((n) => (n < 0x20 && n !== 0x09 && n !== 0x0a && n !== 0x0d) || (n >= 0x7f && n <= 0x9f));

/** An answer whose marked words are markup and control characters. */
const HOSTILE = "Call <img src=x onerror=alert(1)> **now** | [here](javascript:x) \u001b[31m&amp;\u0007 today.";
const hostileSpan = (words: string, claim: number | null = 0, probability = 0.97): AnswerSpan => {
  const start = HOSTILE.indexOf(words);
  return { start, end: start + words.length, probability, claim, text: words };
};
const HOSTILE_SPANS = [hostileSpan("<img src=x onerror=alert(1)>"), hostileSpan("**now** | [here](javascript:x)", 0, 0.9), hostileSpan("\u001b[31m&amp;\u0007", 0, 0.8)];
const hostileClaim: ClaimResult = { index: 0, text: HOSTILE, start: 0, end: HOSTILE.length, verdict: "unsupported", score: 0.03, contradiction: 0, evidence: null, notes: [], reason: "unsupported_span", spans: [0, 1, 2] };

const row = (id: string, answer: string, claims: ClaimResult[], spans?: readonly AnswerSpan[]): EvalRow => ({
  id,
  question: "q",
  answer,
  verdict: claims.some((c) => c.verdict !== "supported") ? "ungrounded" : "grounded",
  score: Math.min(1, ...claims.map((c) => c.score)),
  claims,
  ...(spans ? { spans, callsByEngine: { claims: 0, spans: 1 } } : {}),
});

function report(rows: EvalRow[]): EvalReport {
  const summary = summarise(rows);
  const spec: GateSpec = { maxHallucinationRate: { value: 0.1, source: { kind: "default" } }, maxUnscorableShare: { value: 0.1, source: { kind: "default" } } };
  const threshold = { value: 0.5, source: { kind: "default" } } as const;
  return {
    version: 2,
    createdAt: "2026-01-01T00:00:00.000Z",
    set: "eval.jsonl",
    backend: { name: "fake", version: "1", tier: "production" },
    triage: false,
    threshold: threshold.value,
    thresholdSource: threshold.source,
    notices: [],
    summary,
    gate: evaluateGate(spec, summary, 0, threshold),
    regressions: [],
    rows,
  };
}

const spanned = (): EvalReport => report([row("q1", SPAN_ANSWER, spanClaims(), SPANS), row("q2", HOSTILE, [hostileClaim], HOSTILE_SPANS), row("q3", "Fine.", [{ index: 0, text: "Fine.", start: 0, end: 5, verdict: "supported", score: 0.9, contradiction: 0, evidence: null, notes: [] }], [])]);
const plain = (): EvalReport => report([row("q1", SPAN_ANSWER, spanClaims(false))]);

describe("eval reports with spans", () => {
  it("counts the answers and claims a span detector marked in the summary and its measures table", () => {
    const r = spanned();
    expect(r.summary.spans).toEqual({ rows: 3, answers: 2, claims: 3, spans: 5, calls: 3 });
    expect(reportMarkdown(r)).toContain("| marked by the span detector | 2 of 3 answers, 3 claims (5 spans, 3 detector calls) |");
    expect(reportHtml(r)).toContain("<td>marked by the span detector</td><td>2 of 3 answers, 3 claims (5 spans, 3 detector calls)</td>");
  });

  it("report.json's rows carry their spans and calls by engine", () => {
    const json = JSON.parse(JSON.stringify(spanned())) as EvalReport;
    expect(json.rows[0]?.spans).toEqual(SPANS);
    expect(json.rows[0]?.callsByEngine).toEqual({ claims: 0, spans: 1 });
  });

  it("report.md shows a claim's marked words in bold and lists each span, its markup escaped", () => {
    const md = reportMarkdown(spanned());
    expect(md).toContain("The capital of France is **Lyon**.");
    expect(md).toContain("| q1 | Lyon | [25, 29) | 0.91 | 0 |");
    // The hostile words: no tag, link, emphasis or table pipe of their own, no control character.
    expect(md).toContain("**&lt;img src=x onerror=alert\\(1\\)&gt;**");
    expect(md).toContain("**\\*\\*now\\*\\* \\| \\[here\\]\\(javascript:x\\)**");
    expect(md).not.toMatch(/<img|\]\(javascript/);
    expect(controls(md)).toEqual([]);
    for (const line of md.split("\n").filter((l) => l.startsWith("| q2 |"))) expect(line.split(/(?<!\\)\|/).length).toBe(line.startsWith("| q2 | ungrounded") ? 9 : 7);
  });

  it("report.html marks the spans with <mark class=\"span\"> and the probability in its title, everything escaped", () => {
    const html = reportHtml(spanned());
    expect(html).toContain('is <mark class="span" title="unsupported words, p=0.910, claim 0">Lyon</mark>.');
    expect(html).toContain("mark.span{");
    expect(html).toContain('<mark class="span" title="unsupported words, p=0.970, claim 0">&lt;img src=x onerror=alert(1)&gt;</mark>');
    expect(html).toContain("marked: <mark");
    expect(html).not.toContain("<img");
    expect(controls(html)).toEqual([]);
    // The claim's mark holds the span marks whole: every <mark> is closed.
    expect((html.match(/<mark/g) ?? []).length).toBe((html.match(/<\/mark>/g) ?? []).length);
  });

  it("junit.xml gives the marked words, offsets and probability in the failure, XML-escaped", () => {
    const xml = reportJunit(spanned());
    expect(xml).toContain("marked: &quot;Lyon&quot; [25, 29) p=0.91");
    expect(xml).toContain("&quot;&lt;img src=x onerror=alert(1)&gt;&quot; [5, 33) p=0.97");
    expect(xml).not.toContain("<img");
    expect(controls(xml)).toEqual([]);
  });

  it("reports without spans read as before: no span measure, table, style or marks", () => {
    const r = plain();
    expect(r.summary).not.toHaveProperty("spans");
    const md = reportMarkdown(r);
    expect(md).not.toContain("marked");
    expect(md).not.toContain("**Lyon**");
    const html = reportHtml(r);
    expect(html).not.toContain("mark.span");
    expect(html).not.toContain('class="span"');
    expect(html).toContain('<mark class="unsupported" title="unsupported, score 0.090">The capital of France is Lyon.</mark> <mark class="unsupported" title="unsupported, score 0.126">It has 3 million people.</mark>');
    expect(reportJunit(r)).not.toContain("marked");
  });

  it("highlights an answer's claims and spans in time linear in its length", () => {
    const make = (n: number): EvalReport => {
      const answer = "A b <c>. ".repeat(n);
      const claims: ClaimResult[] = Array.from({ length: n }, (_, i) => ({ index: i, text: "A b <c>.", start: i * 9, end: i * 9 + 8, verdict: "unsupported", score: 0.1, contradiction: 0, evidence: null, notes: [], spans: [i] }));
      const spans = Array.from({ length: n }, (_, i) => ({ start: i * 9 + 2, end: i * 9 + 7, probability: 0.9, claim: i, text: "b <c>" }));
      return report([row("q", answer, claims, spans)]);
    };
    expectLinear("reportHtml with spans", measureGrowth(make, (r) => reportHtml(r), { n: 64 }));
  });
});
