import type { AnswerSpan } from "../../core/result.ts";
import { spanSegments } from "../../core/spans.ts";
import { mdText } from "../shared/escape.ts";
import { evidenceLine, shownEvidence } from "../report/evidence.ts";
import { labelAgreement } from "../report/labels.ts";
import { REPORT_SPAN_TEXT, claimSpans, citedClaims, describeRun, findingClaim, measureRows, outcome, rowCitations } from "./findings.ts";
import { fixed3 } from "./format.ts";
import { criterionMeasure, describeGate, rowFailsGate } from "./gate.ts";
import type { EvalReport } from "./types.ts";

/**
 * `text` as Markdown with the spans' words in **bold** (`from`: the offset of `text` in the answer
 * the spans point into), cut to `max` characters first: each piece through mdText, so the words
 * can open no markup of their own; whitespace at a piece's edges stays outside the bold, where GFM
 * would not read the asterisks as emphasis.
 */
export function mdMarked(text: string, spans: readonly AnswerSpan[], from: number, max: number): string {
  // Cut at a code point, never inside a surrogate pair.
  const end = max - 1 - (/[\ud800-\udbff]/.test(text.charAt(max - 2)) ? 1 : 0);
  const cut = text.length > max ? text.slice(0, end) : text;
  let out = "";
  for (const seg of spanSegments(cut, spans, from)) {
    const piece = mdText(seg.text);
    const inner = piece.trim();
    if (seg.span === null || inner === "") out += piece;
    else out += `${piece.slice(0, piece.length - piece.trimStart().length)}**${inner}**${piece.slice(piece.trimEnd().length)}`;
  }
  return cut.length < text.length ? `${out}…` : out;
}

/**
 * The summary as GitHub-flavoured Markdown (report.md, $GITHUB_STEP_SUMMARY and stdout). Every
 * value that did not come from groundwatch itself (ids, answers, claims, file paths, the backend,
 * the baseline's rows) goes through mdText: one line, markup escaped, no HTML.
 */
export function reportMarkdown(r: EvalReport): string {
  const lines = [`## groundwatch eval — ${outcome(r)}`, ""];
  // Notices first: a triage-grade result must not be read as a release decision.
  if (r.notices.length > 0) lines.push(r.notices.map((n, i) => `> ${r.triage && i === 0 ? "**TRIAGE-GRADE** " : "**Note:** "}${mdText(n)}`).join("\n>\n"), "");
  // Only the user's parts (file paths) are escaped, so the line stays readable on a terminal too.
  const md = (text: string): string => mdText(text);
  lines.push(`**Gate:** ${describeGate(r.gate.criteria, { value: r.threshold, source: r.thresholdSource }, md)}.`, "");
  lines.push(describeRun(r, (text) => mdText(text)), "");
  lines.push(
    "| measure | value | gate | gate from | result |",
    "|---|---|---|---|---|",
    ...measureRows(r, md).map((m) => `| ${m.measure} | ${m.value} | ${m.gate} | ${m.from} | ${m.passed === undefined ? "–" : m.passed ? "pass" : "**FAIL**"} |`),
  );
  // The failures are groundwatch's own sentences (numbers and flags), not user text.
  if (r.gate.failures.length > 0) lines.push("", "**Why it failed:**", "", ...r.gate.failures.map((f) => `- ${f}`));
  // Rows not grounded, and grounded rows that fail the gate (a misattributed citation).
  const bad = r.rows.filter((x) => x.verdict !== "grounded" || rowFailsGate(r, x).length > 0).slice(0, 20);
  if (bad.length > 0) {
    lines.push("", "| id | verdict | score | cause | gate | lowest-scoring unsupported claim | evidence |", "|---|---|---|---|---|---|---|");
    for (const x of bad) {
      const first = findingClaim(x);
      const citations = first ? rowCitations(x, first) : [];
      const claim = first ? `${first.text}${citations.length > 0 ? ` — ${citations.join("; ")}` : ""}` : (x.reason ?? x.error ?? "");
      // The claim's marked words in bold; a claim without spans reads as before.
      const marked = first ? claimSpans(x, first) : [];
      const claimCell = first && marked.length > 0 ? `${mdMarked(first.text, marked, first.start, 240)}${citations.length > 0 ? ` — ${mdText(citations.join("; "), 240)}` : ""}` : mdText(claim, 240);
      const shown = first ? shownEvidence(first) : undefined;
      const evidence = shown ? mdText(evidenceLine(shown), 240) : "–";
      const against = rowFailsGate(r, x);
      lines.push(`| ${mdText(x.id, 80)} | ${mdText(x.verdict)} | ${fixed3(x.score)} | ${x.cause ? mdText(x.cause) : "–"} | ${against.length > 0 ? `fails it (${against.map((c) => criterionMeasure(c.name)).join(", ")})` : "–"} | ${claimCell} | ${evidence} |`);
    }
  }
  // The words a span detector marked, row by row (only when one ran and marked some).
  const spans = r.rows.flatMap((row) => (row.spans ?? []).map((span) => ({ row, span })));
  if (spans.length > 0) {
    lines.push("", "| id | marked words | offsets | p | claim |", "|---|---|---|---|---|");
    for (const { row, span } of spans.slice(0, 50)) lines.push(`| ${mdText(row.id, 80)} | ${mdText(span.text, REPORT_SPAN_TEXT)} | [${span.start}, ${span.end}) | ${span.probability.toFixed(2)} | ${span.claim === null ? "–" : span.claim} |`);
    if (spans.length > 50) lines.push("", `${spans.length - 50} more marked spans in report.json and report.html.`);
  }
  // Labelled rows whose verdict disagrees with their label, grounded ones included (a missed hallucination).
  const disagree = r.rows.filter((x) => labelAgreement(x) === "disagree");
  if (disagree.length > 0) {
    lines.push("", "| id | label | verdict | score |", "|---|---|---|---|");
    for (const x of disagree.slice(0, 50)) lines.push(`| ${mdText(x.id, 80)} | ${x.label} (${x.label === 1 ? "grounded" : "not grounded"}) | ${mdText(x.verdict)} | ${fixed3(x.score)} |`);
    if (disagree.length > 50) lines.push("", `${disagree.length - 50} more rows disagree with their label in report.html.`);
  }
  // Each cited claim with its citations' statuses beside it, errors first.
  const cited = citedClaims(r);
  if (cited.length > 0) {
    lines.push("", "| id | cited claim | verdict | citations |", "|---|---|---|---|");
    for (const { row, claim } of cited.slice(0, 50)) lines.push(`| ${mdText(row.id, 80)} | ${mdText(claim.text, 120)} | ${mdText(claim.verdict)} | ${mdText(rowCitations(row, claim).join("; "), 300)} |`);
    if (cited.length > 50) lines.push("", `${cited.length - 50} more cited claims in report.json and report.html.`);
  }
  if (r.regressions.length > 0) {
    lines.push("", "| regressed row | before | after |", "|---|---|---|");
    for (const g of r.regressions.slice(0, 50)) lines.push(`| ${mdText(g.id, 80)} | ${mdText(g.before)} (${fixed3(g.scoreBefore)}) | ${mdText(g.after)} (${fixed3(g.scoreAfter)}) |`);
  }
  return lines.join("\n") + "\n";
}
