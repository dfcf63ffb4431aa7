import { describe, expect, it } from "vitest";
import type { ClaimResult } from "../../src/core/result.ts";
import { evaluateGate } from "../../src/cli/eval/gate.ts";
import { reportHtml } from "../../src/cli/eval/html.ts";
import { reportMarkdown } from "../../src/cli/eval/markdown.ts";
import type { EvalReport, EvalRow, GateSpec } from "../../src/cli/eval/types.ts";

const row = (id: string, verdict: EvalRow["verdict"], score: number | null, label?: 0 | 1): EvalRow => ({
  id,
  question: "How long can I return items?",
  answer: "Items may be returned within 30 days.",
  verdict,
  score,
  claims: [] as ClaimResult[],
  ...(label !== undefined ? { label } : {}),
});

/** A failed gate over every criterion, with labels, citations and a regression: every summary row shows. */
function report(): EvalReport {
  const rows = [row("q1", "grounded", 0.9, 1), row("q2", "ungrounded", 0.2, 1), row("q3", "unscorable", null, 0)];
  const summary: EvalReport["summary"] = {
    rows: 3,
    scorable: 2,
    unscorable: 1,
    grounded: 1,
    groundedShare: 1 / 3,
    meanGroundedness: 0.55,
    hallucinationRate: 0.5,
    hallucinationInterval: { low: 0.1, high: 0.9 },
    citations: { found: 4, valid: 3, invalid: 1, misattributed: 0, errorRate: 0.25 },
  };
  const regressions = [{ id: "q2", before: "grounded", after: "ungrounded", scoreBefore: 0.8, scoreAfter: 0.2 }];
  const spec: GateSpec = {
    maxHallucinationRate: { value: 0.1, source: { kind: "flag", flag: "--max-hallucination-rate" } },
    maxUnscorableShare: { value: 0.1, source: { kind: "default" } },
    minGroundedShare: { value: 0.9, source: { kind: "config", file: "groundwatch.json", key: "eval.minGroundedShare" } },
    minMeanScore: { value: 0.5, source: { kind: "flag", flag: "--min-mean-score" } },
    maxCitationErrorRate: { value: 0.02, source: { kind: "flag", flag: "--max-citation-error-rate" } },
    baseline: { source: { kind: "flag", flag: "--baseline" } },
  };
  const threshold = { value: 0.5, source: { kind: "calibration", file: "calibration.json" } } as const;
  return {
    version: 2,
    createdAt: "2026-01-01T00:00:00.000Z",
    set: "eval.jsonl",
    backend: { name: "offline", version: "1", tier: "triage" },
    triage: true,
    threshold: threshold.value,
    thresholdSource: threshold.source,
    notices: [],
    summary,
    gate: evaluateGate(spec, summary, regressions.length, threshold),
    regressions,
    rows,
  };
}

const decode = (html: string): string => html.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&");

/** The summary table of report.md, one [measure, value, gate, gate from, result] per row. */
function markdownTable(md: string): string[][] {
  const start = md.indexOf("| measure |");
  const lines = md.slice(start).split("\n");
  const table = lines.slice(2, lines.findIndex((l, i) => i > 0 && !l.startsWith("|")));
  return table.map((l) => l.slice(2, -2).split(" | ").map((cell) => cell.replace(/\*\*/g, "")));
}

/** The summary table of report.html, in the same shape. */
function htmlTable(html: string): string[][] {
  const table = /<table class="summary">([\s\S]*?)<\/table>/.exec(html)?.[1] ?? "";
  return [...table.matchAll(/<tr>(<td[\s\S]*?)<\/tr>/g)].map((m) => [...(m[1] ?? "").matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => decode(c[1] ?? "")));
}

describe("the eval summary table", () => {
  it("shows the same measures, values, gates, sources and results in report.md and report.html", () => {
    const r = report();
    const md = markdownTable(reportMarkdown(r));
    const html = htmlTable(reportHtml(r));
    expect(md.map((cells) => cells[0])).toContain("regressions vs baseline");
    expect(md.map((cells) => cells[0])).toContain("label agreement (label 1 grounded, 0 not)");
    expect(html).toEqual(md);
  });

  it("states the set and backend in the same words in both reports", () => {
    const r = report();
    const sentence = "Set eval.jsonl, 3 rows, backend offline 1 (tier triage).";
    expect(reportMarkdown(r)).toContain(sentence);
    expect(decode(reportHtml(r))).toContain(sentence);
  });
});
