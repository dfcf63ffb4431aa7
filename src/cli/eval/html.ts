import type { AnswerSpan, ClaimResult } from "../../core/result.ts";
import { spanSegments } from "../../core/spans.ts";
import { escapeHtml } from "../shared/escape.ts";
import { citationSummaryText } from "../report/citations.ts";
import { evidenceLine, shownEvidence } from "../report/evidence.ts";
import { labelAgreement, labelCell, labelSummary } from "../report/labels.ts";
import { REPORT_SPANS_SHOWN, REPORT_SPAN_TEXT, claimSpans, describeRun, measureRows, outcome, rowCitations, rowRelevance } from "./findings.ts";
import { criterionMeasure, rowFailsGate } from "./gate.ts";
import type { EvalReport } from "./types.ts";

/** A span's <mark>: its probability (and claim) in the title. */
function spanMark(s: AnswerSpan, words: string): string {
  return `<mark class="span" title="${escapeHtml(`unsupported words, p=${s.probability.toFixed(3)}${s.claim === null ? "" : `, claim ${s.claim}`}`)}">${escapeHtml(words)}</mark>`;
}

/**
 * The answer with every unsupported, misattributed or contradicted claim highlighted (offsets are
 * into the answer), and inside it the words a span detector marked, each in a <mark class="span">.
 * One pass: the answer is cut at its spans once (core/spans.ts spanSegments) and each piece again at
 * the claims' edges, so it is linear in the answer, claims and spans. Without spans, as before.
 */
function highlighted(answer: string, claims: readonly ClaimResult[], spans: readonly AnswerSpan[] = []): string {
  const marks: ClaimResult[] = [];
  let last = 0;
  for (const c of claims.filter((c) => c.verdict !== "supported").sort((a, b) => a.start - b.start)) {
    if (c.start < last) continue;
    marks.push(c);
    last = c.end;
  }
  let out = "";
  let k = 0; // the next claim mark
  let open = false;
  let pos = 0;
  const piece = (text: string, span: number | null): string => (span === null || text === "" ? escapeHtml(text) : spanMark(spans[span] as AnswerSpan, text));
  for (const seg of spanSegments(answer, spans)) {
    const end = pos + seg.text.length;
    for (let at = pos; at < end; ) {
      const m = marks[k];
      if (m !== undefined && !open && m.start <= at) {
        out += `<mark class="${m.verdict}" title="${escapeHtml(`${m.verdict}, score ${m.score.toFixed(3)}`)}">`;
        open = true;
      }
      const to = Math.min(end, m === undefined ? end : open ? m.end : m.start);
      out += piece(answer.slice(at, to), seg.span);
      at = to;
      if (m !== undefined && open && at >= m.end) {
        out += "</mark>";
        open = false;
        k++;
      }
    }
    pos = end;
  }
  // A claim mark open at the answer's end, and marks of claims past it (as the answer held none of their words).
  if (open) {
    out += "</mark>";
    k++;
  }
  for (const m of marks.slice(k)) if (m.start >= answer.length) out += `<mark class="${m.verdict}" title="${escapeHtml(`${m.verdict}, score ${m.score.toFixed(3)}`)}"></mark>`;
  return out;
}

/** The counts a histogram's axis marks: 0, the tallest bin's and, from 4 up, a whole number halfway. */
function countTicks(max: number): number[] {
  return max >= 4 ? [0, Math.round(max / 2), max] : [0, max];
}

/**
 * Score histogram as inline SVG: ten bins of the scored answers, each bar with its count above it,
 * a count axis (answers) with its ticks, the score axis from 0 to 1, and the threshold drawn.
 */
export function histogramSvg(scores: readonly number[], threshold: number): string {
  const bins = Array.from({ length: 10 }, () => 0);
  for (const s of scores) bins[Math.min(9, Math.floor(s * 10))]! += 1;
  const max = Math.max(1, ...bins);
  // The plot area: bins 37 px apart, 370 px for scores 0 to 1; margins for the axes' labels.
  const left = 44;
  const top = 22;
  const plotW = 370;
  const plotH = 126;
  const w = left + plotW + 10;
  const h = top + plotH + 32;
  const base = top + plotH;
  const yOf = (count: number): number => base - (count / max) * plotH;
  const xOf = (score: number): number => left + score * plotW;
  const bars = bins
    .map((n, i) => {
      const x = left + i * 37;
      const bar = `<rect class="bar" x="${x}" y="${yOf(n)}" width="33" height="${base - yOf(n)}" fill="${(i + 1) / 10 <= threshold ? "#c0392b" : "#2e86c1"}"><title>${(i / 10).toFixed(1)}–${((i + 1) / 10).toFixed(1)}: ${n}</title></rect>`;
      return n > 0 ? `${bar}<text class="count" x="${x + 16.5}" y="${yOf(n) - 3}" font-size="10" text-anchor="middle">${n}</text>` : bar;
    })
    .join("");
  const ticks = countTicks(max)
    .map((c) => `<line class="tick" x1="${left - 6}" y1="${yOf(c)}" x2="${left - 2}" y2="${yOf(c)}" stroke="#555"/><text class="tick" x="${left - 8}" y="${yOf(c) + 3}" font-size="10" text-anchor="end">${c}</text>`)
    .join("");
  const yAxis = `<line class="axis" x1="${left - 2}" y1="${top}" x2="${left - 2}" y2="${base}" stroke="#555"/>${ticks}<text class="axis-title" transform="rotate(-90)" x="${-(top + plotH / 2)}" y="12" font-size="10" text-anchor="middle">answers</text>`;
  const xAxis = `<line class="axis" x1="${left}" y1="${base}" x2="${xOf(1)}" y2="${base}" stroke="#555"/>${[0, 0.5, 1].map((s) => `<text x="${xOf(s)}" y="${base + 12}" font-size="10" text-anchor="middle">${s}</text>`).join("")}<text class="axis-title" x="${xOf(0.5)}" y="${h - 4}" font-size="10" text-anchor="middle">score</text>`;
  const tx = xOf(threshold);
  // The threshold's label on whichever side of its line has room.
  const label = threshold > 0.75 ? `<text x="${tx - 3}" y="14" font-size="10" text-anchor="end">threshold ${threshold.toFixed(2)}</text>` : `<text x="${tx + 3}" y="14" font-size="10">threshold ${threshold.toFixed(2)}</text>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" role="img" aria-label="score distribution: scored answers per score bin">${yAxis}${xAxis}${bars}<line class="threshold" x1="${tx}" y1="5" x2="${tx}" y2="${base}" stroke="#000" stroke-dasharray="4 3"/>${label}</svg>`;
}

export function reportHtml(r: EvalReport): string {
  const labels = labelSummary(r.rows);
  const rows = r.rows
    .map((x) => {
      // Claims not supported, and cited claims (each citation's status beside its marker).
      const evidence = x.claims
        .filter((c) => c.verdict !== "supported" || (c.citations ?? []).length > 0 || (c.spans ?? []).length > 0)
        .map((c) => {
          const citations = rowCitations(x, c);
          const cites = citations.length > 0 ? `<ul class="cites">${citations.map((line, k) => `<li class="${escapeHtml(c.citations?.[k]?.status ?? "")}">${escapeHtml(line)}</li>`).join("")}</ul>` : "";
          const shown = shownEvidence(c);
          const own = claimSpans(x, c);
          const marked = own.length > 0 ? `<br><span class="why">marked: ${own.slice(0, REPORT_SPANS_SHOWN).map((s) => `${spanMark(s, s.text.slice(0, REPORT_SPAN_TEXT))} p=${s.probability.toFixed(2)}`).join(", ")}${own.length > REPORT_SPANS_SHOWN ? ` (${own.length - REPORT_SPANS_SHOWN} more)` : ""}</span>` : "";
          return `<li><b>${escapeHtml(c.verdict)}</b> (${c.score.toFixed(3)}${c.cause ? `, cause ${escapeHtml(c.cause)}` : ""}): “${escapeHtml(c.text)}”${shown ? `<br><span class="ev">${evidenceLine(shown, (sentence) => escapeHtml(sentence.slice(0, 400)))}</span>` : ""}${c.notes.length ? `<br><span class="why">${escapeHtml(c.notes.join("; "))}</span>` : ""}${marked}${cites}</li>`;
        })
        .join("");
      const against = rowFailsGate(r, x);
      const gate = against.length > 0 ? `<span class="fail">fails the gate (${escapeHtml(against.map((c) => criterionMeasure(c.name)).join(", "))})</span>` : "–";
      const label = labels ? `<td class="${labelAgreement(x) === "disagree" ? "fail" : ""}">${escapeHtml(labelCell(x))}</td>` : "";
      const relevance = rowRelevance(x);
      return `<tr class="${escapeHtml(x.verdict)}"><td>${escapeHtml(String(x.id))}</td><td>${escapeHtml(x.verdict)}${x.cause ? `<br><span class="why">cause: ${escapeHtml(x.cause)}</span>` : ""}</td><td>${x.score === null ? "–" : x.score.toFixed(3)}</td>${label}<td>${gate}</td><td><div class="answer">${highlighted(x.answer, x.claims, x.spans)}</div>${x.citations ? `<div class="why">${escapeHtml(citationSummaryText(x.citations))}</div>` : ""}${relevance ? `<div class="why">${escapeHtml(relevance)}</div>` : ""}${evidence ? `<ul>${evidence}</ul>` : ""}${x.reason ? `<div class="why">${escapeHtml(x.reason)}</div>` : ""}${x.error ? `<div class="why">${escapeHtml(x.error)}</div>` : ""}</td></tr>`;
    })
    .join("\n");
  const scores = r.rows.filter((x) => x.score !== null).map((x) => x.score as number);
  const word = outcome(r);
  const cls = r.gate.status === "report-only" ? "report-only" : r.gate.passed ? "pass" : "fail";
  // Only when a span detector ran: how its marks look.
  const spanned = r.rows.some((x) => x.spans !== undefined);
  const notices = r.notices.map((n, i) => `<div class="${r.triage && i === 0 ? "notice triage" : "notice"}">${r.triage && i === 0 ? "<b>TRIAGE-GRADE</b> " : "<b>Note:</b> "}${escapeHtml(n)}</div>`).join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>groundwatch eval — ${escapeHtml(word)}${r.triage ? " (triage-grade)" : ""}</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#222}h1{font-size:1.4em}.pass{color:#1e7e34}.fail{color:#c0392b}.report-only{color:#555}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:6px;vertical-align:top;text-align:left}
mark.unsupported{background:#ffe08a}mark.contradicted{background:#f5a3a3}mark.misattributed{background:#f9c98b}.cites li.not_retrieved,.cites li.misattributed{color:#c0392b}.ev{color:#555}.why{color:#777;font-size:12px}
.summary td,.summary th{border:none;padding:2px 12px 2px 0}.notice{border:2px solid #b9770e;background:#fef5e7;padding:8px 12px;margin:0 0 10px}.notice.triage{border-color:#c0392b;background:#fdedec;font-size:1.1em}
.gate{margin:0 0 12px}${spanned ? "\nmark.span{background:none;color:#a31515;font-weight:bold;text-decoration:underline wavy #c0392b}" : ""}
</style></head><body>
<h1>groundwatch eval — <span class="${cls}">${escapeHtml(word)}</span></h1>
${notices}
<p class="gate"><b>Gate:</b> ${escapeHtml(r.gate.description)}.</p>
<p>${describeRun(r, escapeHtml)}</p>
<table class="summary">
<tr><th>measure</th><th>value</th><th>gate</th><th>gate from</th><th>result</th></tr>
${measureRows(r).map((m) => `<tr><td>${escapeHtml(m.measure)}</td><td>${escapeHtml(m.value)}</td><td>${escapeHtml(m.gate)}</td><td>${escapeHtml(m.from)}</td>${m.passed === undefined ? "<td>–</td>" : `<td class="${m.passed ? "pass" : "fail"}">${m.passed ? "pass" : "FAIL"}</td>`}</tr>\n`).join("")}</table>
${r.gate.failures.length ? `<ul class="fail">${r.gate.failures.map((f) => `<li>${escapeHtml(f)}</li>`).join("")}</ul>` : ""}
<h2>Score distribution</h2>
${histogramSvg(scores, r.threshold)}
<h2>Rows</h2>
<p>Unsupported claims are <mark class="unsupported">highlighted</mark>, misattributed ones (supported by another document than the one cited) <mark class="misattributed">in orange</mark>, contradicted ones <mark class="contradicted">in red</mark>. Each cited claim lists its citations, each with its status.${spanned ? ' Words a span detector marked unsupported are <mark class="span">underlined in red</mark>, their probability in the mark\'s title.' : ""}</p>
<table><tr><th>id</th><th>verdict</th><th>score</th>${labels ? "<th>label</th>" : ""}<th>gate</th><th>answer and evidence</th></tr>
${rows}
</table>
<p class="why">Generated ${escapeHtml(r.createdAt)} by groundwatch.</p>
</body></html>
`;
}
