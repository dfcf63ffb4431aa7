import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { UsageError } from "../shared/command.ts";
import { majorityLabels } from "../../review/export.ts";
import type { MonitorPrecision, ReviewedProportion } from "../../review/precision.ts";
import { monitorPrecision } from "../../review/precision.ts";
import type { SpoolRecord } from "../../review/record.ts";
import type { SkippedSpoolFile } from "../../review/spool-files.ts";
import { currentLabels } from "../../review/spool-files.ts";
import type { MissingReplica, ReviewStore } from "../../review/store.ts";
import { createDirectoryStore } from "../../review/store.ts";
import { describeMissing } from "../review/remote-store.ts";
import { escapeHtml } from "../shared/escape.ts";
import { formatTime } from "./period.ts";

// `groundwatch evidence --review-dir`: the "Review of the monitor" section — how often a flag was
// right, how often a grounded answer was not, the recall they imply, the counts behind each, and the trend.

/** A Prometheus instant-query row. */
type PromRow = { metric: Record<string, string>; value: [number, string] };

/**
 * The period's flagged and grounded answers from Prometheus' rows by verdict: flagged are the
 * ungrounded ones (an unscorable answer is neither, and the spool never keeps one); undefined when
 * Prometheus has no such series (the spool's records then estimate them).
 */
export function reviewCounts(rows: readonly PromRow[]): { flagged: number; grounded: number } | undefined {
  const by = new Map(rows.flatMap((r) => (typeof r.metric.groundwatch_verdict === "string" && Number.isFinite(Number(r.value[1])) ? [[r.metric.groundwatch_verdict, Number(r.value[1])] as const] : [])));
  if (by.size === 0) return undefined;
  return { flagged: by.get("ungrounded") ?? 0, grounded: by.get("grounded") ?? 0 };
}

/** What evidence reads for the section: the spools, the labels in force as one label per answer, and what was left out. */
export interface ReviewRead {
  /** Where the answers came from: the spool directories, or the collector and its replicas. */
  readonly dirs: readonly string[];
  /** Where the labels came from. */
  readonly labelsFile: string;
  /** Replicas that did not answer (--url): the section says the figures cover the others. */
  readonly missing?: readonly MissingReplica[] | undefined;
  readonly records: SpoolRecord[];
  readonly labels: ReturnType<typeof majorityLabels>;
  readonly unreadable: number;
  /** Files under spool names passed over (links, FIFOs, devices, over the read cap), the labels file included. */
  readonly skipped: readonly SkippedSpoolFile[];
}

/** Reads the spools of `dirs` (replicas merge) and the labels (`labels`, else labels.jsonl of every dir); `route` keeps that route's answers. */
export function readReview(dirs: readonly string[], labels: string | undefined, cwd: string, route: string | undefined): Promise<ReviewRead> {
  const abs = dirs.map((d) => resolve(cwd, d));
  for (const [i, dir] of abs.entries()) if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--review-dir ${dirs[i] ?? dir}: no such directory`);
  return readReviewStore(createDirectoryStore({ dirs: abs, labelsFile: labels !== undefined ? resolve(cwd, labels) : undefined, unreadableLabels: "report" }), route);
}

/** Reads a review store (spool directories, or a deployment's collectors: --url); `route` keeps that route's answers. */
export async function readReviewStore(store: ReviewStore, route: string | undefined): Promise<ReviewRead> {
  const read = await store.load();
  const records = route === undefined ? [...read.records] : read.records.filter((r) => r.route === route);
  return {
    dirs: [read.source.answers],
    labelsFile: read.source.labels,
    missing: read.missing,
    records,
    labels: majorityLabels(currentLabels(read.labels)),
    unreadable: read.unreadable.spoolLines + read.unreadable.labelLines,
    skipped: read.skippedFiles,
  };
}

const pct = (v: number): string => `${(100 * v).toFixed(1)}%`;
const interval = (p: ReviewedProportion): string => (p.interval ? `${pct(p.interval.low)}–${pct(p.interval.high)}` : "–");
const rateCell = (p: ReviewedProportion): string => (p.rate === null ? '<td class="no-data">none reviewed</td>' : `<td>${pct(p.rate)}</td>`);

/**
 * The "Review of the monitor" section of the evidence report. `exact`: Prometheus' counts are whole
 * differences of the counters' values (evidence's period-counts.ts); false when part of them is
 * Prometheus' estimate. Counts estimated (from the spool, or in part by Prometheus) read "about".
 */
export function reviewSectionHtml(p: MonitorPrecision, read: ReviewRead, exact = true): string {
  const { flagged: f, grounded: g } = p;
  const about = p.countsFrom === "spool" || !exact;
  const count = (v: number): string => `${about ? "about " : ""}${Math.round(v)}`;
  const source =
    p.countsFrom === "prometheus"
      ? `Answers in the period: from Prometheus (groundwatch_evaluations_total by verdict: each series' last value in the period less its last value before it${exact ? "" : "; a series whose collector restarted in the period is Prometheus' estimate, so the counts read “about”"}).`
      : "Answers in the period: estimated from the spool (each kept answer divided by the rate it was kept at: 1 for flagged, the grounded sample rate for grounded ones), since Prometheus has no groundwatch_evaluations_total for the period.";
  const recallRow = p.recall
    ? `<tr><td>estimated recall</td><td>${pct(p.recall.value)}</td><td>${pct(p.recall.low)}–${pct(p.recall.high)} (conservative)</td><td>TP = ${(f.rate ?? 0).toFixed(3)} × ${count(f.answers)} flagged = ${((f.rate ?? 0) * f.answers).toFixed(1)}, FN = ${(g.rate ?? 0).toFixed(3)} × ${count(g.answers)} grounded = ${((g.rate ?? 0) * g.answers).toFixed(1)}; recall = TP / (TP + FN)</td></tr>`
    : `<tr><td>estimated recall</td><td class="no-data">not estimated: it needs reviewed flagged answers and reviewed grounded samples</td><td>–</td><td>–</td></tr>`;
  const trend = p.trend.buckets
    // Each bucket as the range it covers: buckets run from the period's start, not from midnight.
    .map((b) => `<tr><td>${escapeHtml(`${formatTime(b.start)} – ${formatTime(b.end)}`)}</td><td>${b.flagged.reviewed}</td>${rateCell(b.flagged)}<td>${b.grounded.reviewed}</td>${rateCell(b.grounded)}</tr>`)
    .join("\n");
  const missing = describeMissing(read.missing ?? []);
  const left = [read.labels.ties.length > 0 ? `${read.labels.ties.length} answer${read.labels.ties.length === 1 ? "" : "s"} whose reviewers are evenly split left out` : "", read.unreadable > 0 ? `${read.unreadable} unreadable line${read.unreadable === 1 ? "" : "s"} skipped` : ""].filter((s) => s !== "");
  return `<h2>Review of the monitor</h2>
<p>People reviewed answers groundwatch kept for review (every flagged answer, and a random sample of grounded ones) from ${escapeHtml(read.dirs.join(", "))}, labels from ${escapeHtml(read.labelsFile)}. One label per answer: the majority of its reviewers${left.length > 0 ? ` (${escapeHtml(left.join("; "))})` : ""}. Intervals are Wilson 95% intervals; the recall's is conservative: its lowest value from the lowest precision and the highest miss rate, its highest from the reverse. ${escapeHtml(source)}</p>
${missing !== undefined ? `<p class="over">Partial: ${escapeHtml(missing)}.</p>\n` : ""}<table class="review"><tr><th>measure</th><th>value</th><th>95% interval</th><th>counts behind it</th></tr>
<tr><td>precision of the flags</td>${rateCell(f)}<td>${interval(f)}</td><td>${f.notGrounded} of ${f.reviewed} reviewed flagged answers called not grounded; ${count(f.answers)} flagged answers in the period</td></tr>
<tr><td>miss rate of grounded answers</td>${rateCell(g)}<td>${interval(g)}</td><td>${g.notGrounded} of ${g.reviewed} reviewed grounded samples called not grounded; ${count(g.answers)} grounded answers in the period</td></tr>
${recallRow}
</table>
<h3>Trend (per ${p.trend.bucket}, UTC)</h3>
<table class="review-trend"><tr><th>${p.trend.bucket} (from – to, UTC)</th><th>flagged reviewed</th><th>precision</th><th>grounded reviewed</th><th>miss rate</th></tr>
${trend}
</table>
`;
}

/** The section for the period, given the period's answers by verdict (rows of groundwatch_verdict and count) and whether they are exact. */
export function reviewSection(read: ReviewRead, counts: readonly PromRow[], from: number, to: number, exact = true): string {
  const c = reviewCounts(counts);
  return reviewSectionHtml(monitorPrecision({ records: read.records, labels: read.labels.labels, from, to, ...(c ? { counts: c } : {}) }), read, exact);
}

/** A report with only the review section: evidence with --review-dir and without Prometheus. */
export function reviewOnlyHtml(section: string, period: string, route: string | undefined, generated: string, pageCss: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>groundwatch evidence: review of the monitor</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<style>body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#222;max-width:900px}table{border-collapse:collapse}td,th{border-bottom:1px solid #ddd;padding:4px 10px;text-align:left}.no-data{color:#777}${pageCss}</style>
</head><body>
<h1>Groundedness monitoring evidence: review of the monitor</h1>
<p>Period: ${escapeHtml(period)}${route !== undefined ? `, route ${escapeHtml(route)}` : ", all routes"}. All times are UTC. No Prometheus was given (--prometheus): this report holds only what the review spools and labels show.</p>
${section}<p style="font-size:12px;color:#777">Generated ${escapeHtml(generated)} by groundwatch evidence.</p>
</body></html>
`;
}
