import type { ClaimResult } from "../core/groundedness.ts";
import type { BackendInfo } from "../nli/backend.ts";
import { escapeHtml, escapeXml, mdText } from "./escape.ts";

/** One evaluated row of the set, as stored in report.json. */
export interface EvalRow {
  readonly id: string | number;
  readonly question: string | undefined;
  readonly answer: string;
  readonly verdict: "grounded" | "ungrounded" | "unscorable";
  readonly score: number | null;
  readonly reason?: string;
  readonly claims: readonly ClaimResult[];
  readonly label?: 0 | 1;
  readonly combined?: string;
  readonly error?: string;
}

export interface EvalReport {
  readonly version: 1;
  readonly createdAt: string;
  readonly set: string;
  readonly backend: BackendInfo;
  readonly threshold: number;
  readonly summary: {
    readonly rows: number;
    readonly scorable: number;
    readonly unscorable: number;
    readonly meanGroundedness: number | null;
    readonly hallucinationRate: number | null;
    readonly hallucinationInterval: { readonly low: number; readonly high: number } | null;
  };
  readonly gate: {
    readonly passed: boolean;
    readonly floor?: number;
    readonly maxHallucinationRate?: number;
    readonly failures: readonly string[];
  };
  readonly regressions: ReadonlyArray<{ readonly id: string | number; readonly before: string; readonly after: string; readonly scoreBefore: number | null; readonly scoreAfter: number | null }>;
  readonly rows: readonly EvalRow[];
}

const pct = (x: number | null): string => (x === null ? "–" : `${(100 * x).toFixed(1)}%`);

/** A score as the reports print it; anything but a finite number (a hand-edited baseline) is "–". */
const fixed3 = (x: unknown): string => (typeof x === "number" && Number.isFinite(x) ? x.toFixed(3) : "–");

/**
 * The summary as GitHub-flavoured Markdown (report.md and $GITHUB_STEP_SUMMARY). Every value
 * that did not come from groundwatch itself (ids, answers, claims, the set path, the backend,
 * the baseline's rows) goes through mdText: one line, markup escaped, no HTML.
 */
export function reportMarkdown(r: EvalReport): string {
  const s = r.summary;
  const lines = [
    `## groundwatch eval — ${r.gate.passed ? "PASSED" : "FAILED"}`,
    "",
    `Set ${mdText(r.set)}, ${s.rows} rows, backend ${mdText(r.backend.name)} (${mdText(r.backend.tier)}), threshold ${r.threshold}.`,
    "",
    "| measure | value | gate |",
    "|---|---|---|",
    `| mean groundedness | ${s.meanGroundedness === null ? "–" : s.meanGroundedness.toFixed(3)} | ${r.gate.floor !== undefined ? `≥ ${r.gate.floor}` : "–"} |`,
    `| hallucination rate | ${pct(s.hallucinationRate)}${s.hallucinationInterval ? ` (95% CI ${pct(s.hallucinationInterval.low)}–${pct(s.hallucinationInterval.high)})` : ""} | ${r.gate.maxHallucinationRate !== undefined ? `≤ ${pct(r.gate.maxHallucinationRate)}` : "–"} |`,
    `| unscorable | ${s.unscorable} | – |`,
    `| regressions vs baseline | ${r.regressions.length} | ${r.regressions.length > 0 ? "fail" : "–"} |`,
  ];
  // The failures are groundwatch's own sentences (numbers and flags), not user text.
  if (r.gate.failures.length > 0) lines.push("", "**Why it failed:**", "", ...r.gate.failures.map((f) => `- ${f}`));
  const bad = r.rows.filter((x) => x.verdict !== "grounded").slice(0, 20);
  if (bad.length > 0) {
    lines.push("", "| id | verdict | score | first unsupported claim |", "|---|---|---|---|");
    for (const x of bad) {
      const claim = x.claims.find((c) => c.verdict !== "supported")?.text ?? x.reason ?? x.error ?? "";
      lines.push(`| ${mdText(x.id, 80)} | ${mdText(x.verdict)} | ${fixed3(x.score)} | ${mdText(claim, 120)} |`);
    }
  }
  if (r.regressions.length > 0) {
    lines.push("", "| regressed row | before | after |", "|---|---|---|");
    for (const g of r.regressions.slice(0, 50)) lines.push(`| ${mdText(g.id, 80)} | ${mdText(g.before)} (${fixed3(g.scoreBefore)}) | ${mdText(g.after)} (${fixed3(g.scoreAfter)}) |`);
  }
  return lines.join("\n") + "\n";
}

/** One testcase per row; XML-escaped, with characters XML 1.0 cannot carry dropped. */
export function reportJunit(r: EvalReport): string {
  const failures = r.rows.filter((x) => x.verdict !== "grounded").length;
  const cases = r.rows.map((x) => {
    const name = escapeXml(String(x.id), true);
    if (x.verdict === "grounded") return `    <testcase classname="groundwatch.eval" name="${name}"/>`;
    const claim = x.claims.find((c) => c.verdict !== "supported");
    const message = x.verdict === "unscorable" ? `unscorable: ${x.reason ?? x.error ?? ""}` : `ungrounded (score ${x.score?.toFixed(3)}): ${claim?.verdict ?? ""} claim "${claim?.text ?? ""}"`;
    return `    <testcase classname="groundwatch.eval" name="${name}">\n      <failure message="${escapeXml(message.slice(0, 500), true)}" type="${escapeXml(x.verdict, true)}">${escapeXml(claim?.evidence ? `nearest evidence: ${claim.evidence.text}` : message)}</failure>\n    </testcase>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n  <testsuite name="groundwatch eval" tests="${r.rows.length}" failures="${failures}">\n${cases.join("\n")}\n  </testsuite>\n</testsuites>\n`;
}

/** The answer with every unsupported or contradicted claim highlighted (offsets are into the answer). */
function highlighted(answer: string, claims: readonly ClaimResult[]): string {
  const marks = claims.filter((c) => c.verdict !== "supported").sort((a, b) => a.start - b.start);
  let out = "";
  let at = 0;
  for (const c of marks) {
    if (c.start < at) continue;
    out += escapeHtml(answer.slice(at, c.start));
    out += `<mark class="${c.verdict}" title="${escapeHtml(`${c.verdict}, score ${c.score.toFixed(3)}`)}">${escapeHtml(answer.slice(c.start, c.end))}</mark>`;
    at = c.end;
  }
  return out + escapeHtml(answer.slice(at));
}

/** Score histogram as inline SVG: ten bins, the threshold drawn. */
export function histogramSvg(scores: readonly number[], threshold: number): string {
  const bins = Array.from({ length: 10 }, () => 0);
  for (const s of scores) bins[Math.min(9, Math.floor(s * 10))]! += 1;
  const max = Math.max(1, ...bins);
  const w = 400;
  const h = 160;
  const bars = bins
    .map((n, i) => {
      const bh = (n / max) * (h - 30);
      return `<rect class="bar" x="${20 + i * 37}" y="${h - 20 - bh}" width="33" height="${bh}" fill="${(i + 1) / 10 <= threshold ? "#c0392b" : "#2e86c1"}"><title>${(i / 10).toFixed(1)}–${((i + 1) / 10).toFixed(1)}: ${n}</title></rect>`;
    })
    .join("");
  const tx = 20 + threshold * 370;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" role="img" aria-label="score distribution"><line x1="20" y1="${h - 20}" x2="390" y2="${h - 20}" stroke="#555"/>${bars}<line class="threshold" x1="${tx}" y1="5" x2="${tx}" y2="${h - 20}" stroke="#000" stroke-dasharray="4 3"/><text x="20" y="${h - 5}" font-size="10">0</text><text x="380" y="${h - 5}" font-size="10">1</text><text x="${tx + 3}" y="14" font-size="10">threshold ${threshold.toFixed(2)}</text></svg>`;
}

export function reportHtml(r: EvalReport): string {
  const s = r.summary;
  const rows = r.rows
    .map((x) => {
      const evidence = x.claims
        .filter((c) => c.verdict !== "supported")
        .map((c) => `<li><b>${escapeHtml(c.verdict)}</b> (${c.score.toFixed(3)}): “${escapeHtml(c.text)}”${c.evidence ? `<br><span class="ev">nearest evidence [doc ${c.evidence.doc}]: ${escapeHtml(c.evidence.text.slice(0, 400))}</span>` : ""}${c.notes.length ? `<br><span class="why">${escapeHtml(c.notes.join("; "))}</span>` : ""}</li>`)
        .join("");
      return `<tr class="${escapeHtml(x.verdict)}"><td>${escapeHtml(String(x.id))}</td><td>${escapeHtml(x.verdict)}</td><td>${x.score === null ? "–" : x.score.toFixed(3)}</td><td><div class="answer">${highlighted(x.answer, x.claims)}</div>${evidence ? `<ul>${evidence}</ul>` : ""}${x.reason ? `<div class="why">${escapeHtml(x.reason)}</div>` : ""}${x.error ? `<div class="why">${escapeHtml(x.error)}</div>` : ""}</td></tr>`;
    })
    .join("\n");
  const scores = r.rows.filter((x) => x.score !== null).map((x) => x.score as number);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>groundwatch eval — ${r.gate.passed ? "passed" : "failed"}</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#222}h1{font-size:1.4em}.pass{color:#1e7e34}.fail{color:#c0392b}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:6px;vertical-align:top;text-align:left}
mark.unsupported{background:#ffe08a}mark.contradicted{background:#f5a3a3}.ev{color:#555}.why{color:#777;font-size:12px}
.summary td{border:none;padding:2px 12px 2px 0}
</style></head><body>
<h1>groundwatch eval — <span class="${r.gate.passed ? "pass" : "fail"}">${r.gate.passed ? "PASSED" : "FAILED"}</span></h1>
<table class="summary">
<tr><td>set</td><td>${escapeHtml(r.set)} (${s.rows} rows)</td></tr>
<tr><td>backend</td><td>${escapeHtml(`${r.backend.name} ${r.backend.version}`)} (${escapeHtml(r.backend.tier)})</td></tr>
<tr><td>mean groundedness</td><td>${s.meanGroundedness === null ? "–" : s.meanGroundedness.toFixed(3)}${r.gate.floor !== undefined ? ` (floor ${r.gate.floor})` : ""}</td></tr>
<tr><td>hallucination rate</td><td>${pct(s.hallucinationRate)}${s.hallucinationInterval ? ` (95% CI ${pct(s.hallucinationInterval.low)}–${pct(s.hallucinationInterval.high)})` : ""}${r.gate.maxHallucinationRate !== undefined ? ` (max ${pct(r.gate.maxHallucinationRate)})` : ""}</td></tr>
<tr><td>unscorable</td><td>${s.unscorable}</td></tr>
<tr><td>regressions</td><td>${r.regressions.length}</td></tr>
</table>
${r.gate.failures.length ? `<ul class="fail">${r.gate.failures.map((f) => `<li>${escapeHtml(f)}</li>`).join("")}</ul>` : ""}
<h2>Score distribution</h2>
${histogramSvg(scores, r.threshold)}
<h2>Rows</h2>
<p>Unsupported claims are <mark class="unsupported">highlighted</mark>, contradicted ones <mark class="contradicted">in red</mark>.</p>
<table><tr><th>id</th><th>verdict</th><th>score</th><th>answer and evidence</th></tr>
${rows}
</table>
<p class="why">Generated ${escapeHtml(r.createdAt)} by groundwatch.</p>
</body></html>
`;
}
