import type { BoundedResponse, HttpBounds } from "../../net/bounded-fetch.ts";
import { fetchBounded } from "../../net/bounded-fetch.ts";
import { dirname } from "node:path";
import { UsageError, numberFlag, parseFlags, readCalibrationFlag, runCommand } from "../shared/command.ts";
import { EXIT } from "../shared/exit-codes.ts";
import { makeOutputDir, outputFileCreatingDir, writeOutputFile } from "../shared/files.ts";
import type { PaperSize } from "./print-pdf.ts";
import { PAPER_SIZES, pageRule, printPdf } from "./print-pdf.ts";
import type { CommandIo } from "../shared/io.ts";
import { reportMissing, reportSkippedFiles } from "../review/skips.ts";
import { resolveCollectorUrl } from "../review/options.ts";
import { createRemoteStore } from "../review/remote-store.ts";
import { escapeHtml } from "../shared/escape.ts";
import { explainCalibrationFailure } from "../../core/calibration.ts";
import { calibrationOutcomesHtml } from "../report/calibration.ts";
import { describeProduction } from "../../review/export.ts";
import { driftRefusedQuery, scoringInUse, scoringInfoQuery, scoringNotices } from "./scoring.ts";
import { readReview, readReviewStore, reviewOnlyHtml, reviewSection } from "./review.ts";
import type { SeriesCount } from "./period-counts.ts";
import { countRows, countText, periodCountQueries, seriesCounts, sumBy } from "./period-counts.ts";
import { chartResolution, describePeriod, formatDuration, formatTime, promDuration, resolvePeriod } from "./period.ts";
import { fetchFailure } from "../../net/fetch-error.ts";

export const EVIDENCE_HELP = `groundwatch evidence — a report a risk owner can hand a supervisor

Usage:
  groundwatch evidence --prometheus URL (--from DATE [--to DATE] | --since LENGTH [--to DATE])
  groundwatch evidence --review-dir D... (--from DATE [--to DATE] | --since LENGTH [--to DATE])
                       [--route R] [--threshold 0.1] [--calibration calibration.json]
                       [--out report.html] [--pdf [--paper letter|a4]]
                       [--review-dir D]... [--labels FILE] [--url URL [--token T]]

Queries the Prometheus that scrapes groundwatch and writes a self-contained HTML report: the
hallucination rate and mean groundedness per route over the period with the threshold, alert
firings, answers scored and the share of traffic sampled, the backend and tier in use, and the
calibration record (AUROC with its interval and verdict, date, set size, unscorable rows left out,
and where its labels came from: production review, groundwatch's bundled examples, or a set of yours),
with what its threshold does on the rows it was fitted on (its TPR and FPR counted again from the
rows calibration.json records, in red when the file claims others) and to each class of the set
beside the threshold in force when it was fitted (grounded answers passed, not-grounded ones caught
by labelled cause; a class done worse in red).
Answers are counted whole: each counter's value at the period's end less its value before it.
A calibration whose verdict is not "pass" (the interval includes 0.5 or lies below it) is flagged
in red at the top: what the verdict means, that its threshold is not trustworthy, and what to do.
The top of the report also says how the period was scored, as the collector exported it
(groundwatch_scoring_info): the threshold in force, the backend, tier and model, and the calibration's
id. In red: a --calibration file that is not what the collector scored with (another id or
threshold), a calibration fitted on groundwatch's bundled examples or with another backend or model,
a drift reference the collector refused, and a triage-tier backend for all or part of the period.
--out's folder is created when it does not exist.
--review-dir D (repeat it for each replica's spool) adds "Review of the monitor": over the answers
of the period people reviewed (groundwatch review; labels from --labels, default labels.jsonl of
every D; one label per answer, the majority of its reviewers), the precision of the flags and
the miss rate of grounded answers (from the random grounded sample), each with a Wilson 95%
interval, the estimated recall TP / (TP + FN) with a conservative interval from those two, the
counts behind them and the trend per day (per week beyond 14 days). The period's answers come from
Prometheus, else from the spool (each kept answer over its sample rate); the report says which.
With --review-dir, --prometheus may be left out: the report then holds only that section.
--url URL (a collector run with --review-dir; --token T or GROUNDWATCH_TOKEN) reads the spools and
labels of every replica of its deployment over its API in place of --review-dir: the same section;
replicas that do not answer are named on stderr and in the section (the figures cover the others).
--pdf also prints it to PDF (beside the HTML, same name) with headless Chromium (Debian's chromium)
when it is installed; --paper letter (the default, Chromium's own) or a4 sets the paper size, for
the PDF and for printing the HTML from a browser.

The period (all dates and times are UTC, and the report says so):
  --from DATE      its start; a date alone (2026-09-01) is the start of that day, 00:00 UTC
  --to DATE        its end, default now; a date alone (2026-11-30) includes that day: the period
                   runs up to 2026-12-01 00:00 UTC
  --since LENGTH   the LENGTH before --to (before now by default): 30d, 90d, 12h, 2w
                   (m minutes, h hours, d days, w weeks); not with --from
DATE: a date (2026-11-01), an ISO 8601 time (2026-11-01T08:00:00Z, 2026-11-01T09:00+01:00;
UTC when it has no offset) or a Unix time in seconds.
Trend charts use round windows sized to the period: 5 min up to a day, 15 min up to 3 days,
1 h up to 12 days, 6 h up to 75 days, 1 day beyond. A window or route with nothing scored shows
"no data" (no answers scored in this period), never 0%.

Exit codes: 0 written, 1 Prometheus, the collector (--url) or Chromium failed, 2 bad flags.
`;

type Series = Array<{ metric: Record<string, string>; values: Array<[number, string]> }>;

/** Largest answer read from Prometheus per query. */
const MAX_PROMETHEUS_REPLY_BYTES = 64 * 2 ** 20;
/** One query to Prometheus: its headers, its body and any silence in it within 30 s, the answer under the cap. */
const PROMETHEUS_BOUNDS: HttpBounds = { headersMs: 30_000, idleMs: 30_000, totalMs: 30_000, maxBytes: MAX_PROMETHEUS_REPLY_BYTES };

async function prom(base: string, path: string, params: Record<string, string>): Promise<unknown> {
  const url = `${base.replace(/\/+$/, "")}${path}?${new URLSearchParams(params).toString()}`;
  let res: BoundedResponse;
  try {
    res = await fetchBounded(url, {}, PROMETHEUS_BOUNDS);
  } catch (error) {
    throw new Error(`cannot reach Prometheus at ${base}: ${fetchFailure(error)}`);
  }
  // The answer is read under the cap: a query over years of series can be large, never unbounded.
  const text = await res.text({ tooLargeMessage: `Prometheus's answer to ${params.query ?? path} is larger than ${MAX_PROMETHEUS_REPLY_BYTES / 2 ** 20} MiB: narrow --since or the route filter` });
  let body: { status: string; data?: { result: unknown }; error?: string };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new Error(`Prometheus at ${base} answered HTTP ${res.status} with a body that is not JSON`);
  }
  if (body.status !== "success") throw new Error(`Prometheus query failed: ${body.error ?? res.status} (${params.query ?? ""})`);
  return body.data?.result;
}

/**
 * A line chart as inline SVG, the threshold dashed. A window with nothing scored has no point (the
 * ratio is no data, not 0%), so each series is drawn as its unbroken runs; a lone point is a dot.
 */
function lineChart(title: string, series: Series, from: number, to: number, opts: { step: number; max?: number; threshold?: number; percent?: boolean; empty: string }): string {
  const w = 640;
  const h = 220;
  const pad = 36;
  const values = series.flatMap((s) => s.values.map(([, v]) => Number(v))).filter(Number.isFinite);
  const max = opts.max ?? Math.max(1e-9, ...values, opts.threshold ?? 0);
  const x = (t: number): number => pad + ((t - from) / Math.max(1, to - from)) * (w - pad - 10);
  const y = (v: number): number => h - pad + 10 - (Math.min(v, max) / max) * (h - pad - 10);
  const colors = ["#2e86c1", "#c0392b", "#27ae60", "#8e44ad", "#d35400", "#16a085"];
  const lines = series
    .map((s, i) => {
      const color = colors[i % colors.length] ?? "#000";
      const runs: Array<Array<[number, number]>> = [];
      let last = -Infinity;
      for (const [t, raw] of s.values) {
        const v = Number(raw);
        if (!Number.isFinite(v)) continue;
        if (t - last > opts.step * 1.5 || runs.length === 0) runs.push([]);
        runs[runs.length - 1]?.push([t, v]);
        last = t;
      }
      return runs
        .map((run) => {
          const pts = run.map(([t, v]) => [x(t).toFixed(1), y(v).toFixed(1)] as const);
          const [first] = pts;
          if (pts.length === 1 && first) return `<circle class="series" cx="${first[0]}" cy="${first[1]}" r="2.5" fill="${color}"/>`;
          return `<polyline class="series" fill="none" stroke="${color}" stroke-width="2" points="${pts.map((p) => p.join(",")).join(" ")}"/>`;
        })
        .join("");
    })
    .join("");
  const legend = series.map((s, i) => `<span style="color:${colors[i % colors.length]}">■</span> ${escapeHtml(s.metric.groundwatch_route ?? "all")}`).join(" &nbsp; ");
  const fmt = (v: number): string => (opts.percent ? `${(100 * v).toFixed(0)}%` : v.toFixed(2));
  const threshold = opts.threshold !== undefined ? `<line x1="${pad}" x2="${w - 10}" y1="${y(opts.threshold)}" y2="${y(opts.threshold)}" stroke="#000" stroke-dasharray="5 4"/><text x="${w - 120}" y="${y(opts.threshold) - 4}" font-size="11">threshold ${fmt(opts.threshold)}</text>` : "";
  return `<figure><figcaption>${escapeHtml(title)}</figcaption><svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" role="img" aria-label="${escapeHtml(title)}"><rect x="${pad}" y="10" width="${w - pad - 10}" height="${h - pad}" fill="#fafafa" stroke="#ccc"/><text x="2" y="16" font-size="10">${fmt(max)}</text><text x="2" y="${h - pad + 10}" font-size="10">${fmt(0)}</text><text x="${pad}" y="${h - 8}" font-size="10">${formatTime(from)} UTC</text><text x="${w - 10}" y="${h - 8}" font-size="10" text-anchor="end">${formatTime(to)} UTC</text>${threshold}${lines}</svg><div class="legend">${legend || escapeHtml(opts.empty)}</div></figure>`;
}

/**
 * `numerator / denominator`, as the dashboards and alert rules write it: no result when the
 * denominator is 0 (nothing scored is no data, not 0%), and 0 when only the numerator's series is
 * missing (a route with no ungrounded answer yet). Both sides must carry the same labels.
 */
function ratio(numerator: string, denominator: string): string {
  return `(${numerator} or ${denominator} * 0) / (${denominator} > 0)`;
}

/** Runs `groundwatch evidence`; resolves to the exit code. `now` is the clock (--since, the default --to, "generated"). */
export function runEvidence(argv: readonly string[], io: CommandIo, now: () => Date = () => new Date()): Promise<number> {
  return runCommand("evidence", EVIDENCE_HELP, io, async () => {
    const { values: args } = parseFlags(argv, { prometheus: { type: "string" }, from: { type: "string" }, to: { type: "string" }, since: { type: "string" }, route: { type: "string" }, threshold: { type: "string" }, calibration: { type: "string" }, out: { type: "string" }, pdf: { type: "boolean" }, paper: { type: "string" }, "review-dir": { type: "string", multiple: true }, labels: { type: "string" }, url: { type: "string" }, token: { type: "string" } });
    // The spools over a collector's API (--url) in place of --review-dir.
    const remote = resolveCollectorUrl({ url: args.url, collectorToken: args.token, dir: args["review-dir"], labels: args.labels }, io, "--review-dir");
    // Without Prometheus, only a review of the monitor can be reported (from the spools alone).
    if ((args.prometheus !== undefined || (args["review-dir"] === undefined && !remote)) && (!args.prometheus || !/^https?:\/\//.test(args.prometheus))) throw new UsageError("--prometheus must be the http(s) URL of Prometheus", true);
    const period = resolvePeriod({ from: args.from, to: args.to, since: args.since }, now);
    const { from, to } = period;
    const threshold = numberFlag("threshold", args.threshold, (n) => n >= 0 && n <= 1, "a rate from 0 to 1") ?? 0.1;
    const calibration = args.calibration ? readCalibrationFlag("--calibration", args.calibration, io) : undefined;
    // Checked before Prometheus is queried.
    const out = outputFileCreatingDir("--out", args.out ?? "evidence.html", io);
    // The review spools are read before Prometheus is queried: a wrong --review-dir should not cost the queries.
    const reviewDirs = args["review-dir"] ?? [];
    if (args.labels !== undefined && reviewDirs.length === 0) throw new UsageError("--labels needs --review-dir (the spools whose answers the labels are of)", true);
    const review = remote ? await readReviewStore(createRemoteStore(remote), args.route) : reviewDirs.length > 0 ? await readReview(reviewDirs, args.labels, io.cwd, args.route) : undefined;
    if (review) reportMissing("evidence", review.missing ?? [], io.stderr);
    if (review) reportSkippedFiles("evidence", review.skipped, io.stderr);
    if (args.paper !== undefined && !(PAPER_SIZES as readonly string[]).includes(args.paper)) throw new UsageError(`--paper must be ${PAPER_SIZES.join(" or ")} (got ${JSON.stringify(args.paper)})`, true);
    // Without --paper the HTML sets no page size: Chromium prints Letter, a browser its own default.
    const pageCss = args.paper === undefined ? "" : pageRule(args.paper as PaperSize);
    const write = (html: string): number => {
      makeOutputDir("--out", dirname(out));
      writeOutputFile("--out", out, html);
      io.stdout.write(`wrote ${out}\n`);
      if (args.pdf) {
        const pdf = out.replace(/\.html?$/i, "") + ".pdf";
        printPdf(out, pdf);
        io.stdout.write(`wrote ${pdf}\n`);
      }
      return EXIT.ok;
    };
    if (args.prometheus === undefined && review) return write(reviewOnlyHtml(reviewSection(review, [], period.from, period.to), describePeriod(period), args.route, `${formatTime(now().getTime() / 1000)} UTC`, pageCss));
    const route = args.route ? `groundwatch_route="${args.route.replace(/["\\]/g, "\\$&")}"` : 'groundwatch_route=~".+"';
    const resolution = chartResolution(to - from);
    const { step } = resolution;
    const window = promDuration(resolution.window);
    const range = promDuration(to - from);
    const q = (query: string): Promise<Series> => prom(args.prometheus as string, "/api/v1/query_range", { query, start: String(from), end: String(to), step: String(step) }) as Promise<Series>;
    const instant = (query: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> =>
      prom(args.prometheus as string, "/api/v1/query", { query, time: String(to) }) as Promise<Array<{ metric: Record<string, string>; value: [number, string] }>>;
    const scorableIn = `sum by (groundwatch_route) (increase(groundwatch_evaluations_total{groundwatch_verdict=~"grounded|ungrounded", ${route}}[${window}]))`;
    const rate = await q(ratio(`sum by (groundwatch_route) (increase(groundwatch_evaluations_total{groundwatch_verdict="ungrounded", ${route}}[${window}]))`, scorableIn));
    const mean = await q(`sum by (groundwatch_route) (increase(groundwatch_groundedness_score_sum{${route}}[${window}])) / (sum by (groundwatch_route) (increase(groundwatch_groundedness_score_count{${route}}[${window}])) > 0)`);
    // Each point covers its whole window (max_over_time), so an alert that fired between two chart
    // steps is still reported; a plain ALERTS query samples only the instants and can miss it.
    const alerts = await q(`max by (alertname, groundwatch_route, severity) (max_over_time(ALERTS{alertstate="firing", alertname=~"Groundwatch.*"}[${promDuration(step)}]))`);
    // The period's answers in whole numbers, per series of each counter (period-counts.ts): every
    // table below sums the same series, so the route and backend tables agree.
    const counted = async (counter: string): Promise<SeriesCount[]> => {
      const queries = periodCountQueries(counter, route, range, promDuration(2 * (to - from)));
      return seriesCounts(await instant(queries.exact), await instant(queries.estimated));
    };
    const evaluations = await counted("groundwatch_evaluations_total");
    const seen = sumBy(await counted("groundwatch_observations_seen_total"), ["groundwatch_route"]);
    const sampledCounts = sumBy(await counted("groundwatch_observations_sampled_total"), ["groundwatch_route"]);
    const BACKEND = ["groundwatch_backend_name", "groundwatch_backend_tier"];
    // Backends that scored something in the period.
    const byBackend = new Map([...sumBy(evaluations, BACKEND)].filter(([, c]) => c.count > 0));
    const backends = countRows(byBackend, BACKEND, to);
    // What the collector itself says it scored with: the threshold in force and the calibration's id.
    const used = scoringInUse(await instant(scoringInfoQuery(range)));
    const driftRefused = (await instant(driftRefusedQuery(range))).flatMap((r) => (typeof r.metric.groundwatch_reason === "string" ? [r.metric.groundwatch_reason] : []));
    const notices = scoringNotices({ used, calibration, driftRefused, backends });
    const byVerdict = sumBy(evaluations, ["groundwatch_verdict"]);
    const reviewHtml = review ? reviewSection(review, countRows(byVerdict, ["groundwatch_verdict"], to), from, to, [...byVerdict.values()].every((c) => c.exact)) : "";

    const utc = (t: number): string => `${formatTime(t)} UTC`;
    const firings = alerts.map((s) => {
      const times = s.values.map(([t]) => t);
      return { name: s.metric.alertname ?? "", route: s.metric.groundwatch_route ?? "", severity: s.metric.severity ?? "", first: Math.min(...times), last: Math.max(...times), firing: times.length * step };
    });
    const scoredBy = sumBy(evaluations, ["groundwatch_route"]);
    const byRouteVerdict = sumBy(evaluations, ["groundwatch_route", "groundwatch_verdict"]);
    const ofVerdict = (r: string, verdict: string): number => byRouteVerdict.get(`${r}\u0000${verdict}`)?.count ?? 0;
    const routes = [...scoredBy.keys()].sort();
    const pct = (v: number | undefined): string => (v === undefined || !Number.isFinite(v) ? "–" : `${(100 * v).toFixed(1)}%`);
    const share = (part: number | undefined, whole: number | undefined): number | undefined => (whole ? (part ?? 0) / whole : undefined);
    const NOTHING_SCORED = "no answers scored in this period";
    // No rate is not a rate of 0: say why there is none.
    const rateCell = (r: string): string => {
      const v = share(ofVerdict(r, "ungrounded"), ofVerdict(r, "grounded") + ofVerdict(r, "ungrounded"));
      if (v !== undefined) return `<td class="${v > threshold ? "over" : ""}">${pct(v)}</td>`;
      return `<td class="no-data">no data: ${(scoredBy.get(r)?.count ?? 0) > 0 ? "no scorable answers in this period" : NOTHING_SCORED}</td>`;
    };
    const estimated = evaluations.some((c) => !c.exact);
    const countsNote = `<p class="note">Answers are counted whole: each counter's last value in the period less its last value before it (none: it started in the period).${estimated ? " A counter that restarted in the period (its collector restarted) has no such difference: its answers are Prometheus' estimate (increase()), rounded, and the counts they are part of read “about”." : ""}</p>`;
    // The last day the period includes, for the title: a period ending at midnight does not include that day.
    const lastDay = formatTime(to % 86_400 === 0 ? to - 86_400 : to).slice(0, 10);
    const failed = calibration ? explainCalibrationFailure(calibration) : undefined;
    const verdictName = calibration?.verdict ?? "none recorded";
    // A failed calibration is the first thing a reader sees, not a number in a table at the end.
    const alarm =
      calibration && failed
        ? `<div class="alarm" role="alert"><p class="alarm-title">Calibration FAILED (verdict: ${escapeHtml(verdictName)}): the answer threshold is not trustworthy</p>
<p>What the verdict means: ${escapeHtml(failed.meaning)}.</p>
<p>The threshold ${calibration.threshold.toFixed(4)} decides which answers count as ungrounded, so the hallucination rates, trends and alerts in this report rest on a threshold no labelled set supports. Read them as indicative only.</p>
<p>What to do: ${escapeHtml(failed.advice)}.</p></div>`
        : "";
    const u = calibration?.unscorable;
    const unscorableRow = u
      ? `<tr><td>unscorable rows</td><td>${Math.round(u.rows)}${u.rows === 0 ? "" : u.excluded === undefined ? ", fitted as score 0 (written by a calibrate that did not exclude them)" : u.excluded > 0 ? `, ${Math.round(u.excluded)} left out of the AUROC and threshold` : ", fitted as score 0 (--unscorable as-ungrounded)"}</td></tr>`
      : "";
    // Where the calibration's labels came from: production review (review export), groundwatch's own examples, or a set of the user's.
    const dataset = calibration?.dataset;
    const labelsRow = dataset ? `<tr><td>labels</td><td>${escapeHtml(dataset.production ? describeProduction(dataset.production) : dataset.bundled ? "groundwatch's bundled examples: a demo of calibrate, not labels of your service's answers" : "a labelled set of yours, not exported from production review (groundwatch review export)")}</td></tr>` : "";
    const passed = dataset?.bundled ? " — on groundwatch's bundled examples: a demo, not evidence about your service" : " — the interval excludes 0.5";
    const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>groundwatch evidence ${escapeHtml(formatTime(from).slice(0, 10))} – ${escapeHtml(lastDay)}</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<style>body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#222;max-width:900px}table{border-collapse:collapse}td,th{border-bottom:1px solid #ddd;padding:4px 10px;text-align:left}figure{margin:1em 0}figcaption{font-weight:600}.legend{font-size:12px}.over{color:#c0392b;font-weight:600}.no-data{color:#777}.alarm{border:4px solid #b00020;background:#fde0e0;color:#5c0010;padding:4px 16px;margin:1em 0}.alarm-title{color:#b00020;font-size:1.25em;font-weight:700}@media print{.alarm{-webkit-print-color-adjust:exact;print-color-adjust:exact}}${pageCss}</style>
</head><body>
<h1>Groundedness monitoring evidence</h1>
<p>Period: ${escapeHtml(describePeriod(period))}${args.route ? `, route ${escapeHtml(args.route)}` : ", all routes"}. All times are UTC. Source: ${escapeHtml(args.prometheus ?? "")}. Hallucination rate = ungrounded share of scorable answers; alert threshold ${pct(threshold)}.</p>
${notices}${alarm}<h2>Per route over the period</h2>
<table><tr><th>route</th><th>answers scored</th><th>traffic sampled</th><th>hallucination rate</th></tr>
${routes.map((r) => `<tr><td>${escapeHtml(r)}</td><td>${countText(scoredBy.get(r) ?? { count: 0, exact: true })}</td><td>${pct(share(sampledCounts.get(r)?.count, seen.get(r)?.count))}</td>${rateCell(r)}</tr>`).join("\n") || `<tr><td colspan="4" class="no-data">${NOTHING_SCORED}</td></tr>`}
</table>
${countsNote}
<h2>Trends</h2>
${lineChart(`Hallucination rate (${resolution.label})`, rate, from, to, { step, max: 1, threshold, percent: true, empty: `no data: ${NOTHING_SCORED}` })}
${lineChart(`Mean groundedness (${resolution.label})`, mean, from, to, { step, max: 1, percent: false, empty: `no data: ${NOTHING_SCORED}` })}
<h2>Alert firings</h2>
${firings.length ? `<p class="note">Alerts are read per ${escapeHtml(formatDuration(step))} window: an alert counts in a window when it fired at any moment of it, so the times are the ends of those windows.</p><table><tr><th>alert</th><th>route</th><th>severity</th><th>first window firing (ends)</th><th>last window firing (ends)</th><th>windows firing, in all</th></tr>${firings.map((f) => `<tr><td>${escapeHtml(f.name)}</td><td>${escapeHtml(f.route)}</td><td>${escapeHtml(f.severity)}</td><td>${escapeHtml(utc(f.first))}</td><td>${escapeHtml(utc(f.last))}</td><td>${escapeHtml(formatDuration(f.firing))}</td></tr>`).join("")}</table>` : "<p>No groundwatch alert fired in this period.</p>"}
${reviewHtml}<h2>Scoring backend</h2>
${backends.length ? `<table><tr><th>backend</th><th>tier</th><th>answers</th></tr>${[...byBackend].map(([key, c]) => `<tr><td>${escapeHtml(key.split("\u0000")[0] ?? "")}</td><td>${escapeHtml(key.split("\u0000")[1] ?? "")}</td><td>${countText(c)}</td></tr>`).join("")}</table>${backends.some((b) => b.metric.groundwatch_backend_tier === "triage") ? "<p class=\"over\">Answers scored by a triage-tier backend are indicative, not decision-grade (see the top of this report).</p>" : ""}` : "<p>No answers scored in this period.</p>"}
<h2>Calibration record</h2>
${calibration ? `<table><tr><td>threshold</td><td>${calibration.threshold} (${escapeHtml(calibration.criterion ?? "")})</td></tr><tr><td>AUROC</td><td>${calibration.auroc ? `${calibration.auroc.value.toFixed(3)} (95% CI ${calibration.auroc.low.toFixed(3)}–${calibration.auroc.high.toFixed(3)})` : "–"}</td></tr>${calibration.relevanceThresholds ? `<tr><td>relevance thresholds</td><td>context ${calibration.relevanceThresholds.context?.toFixed(4) ?? "not fitted"}, answer ${calibration.relevanceThresholds.answer?.toFixed(4) ?? "not fitted"}</td></tr>` : ""}${calibration.cascadeThresholds ? `<tr><td>cascade thresholds</td><td>${calibration.cascadeThresholds.supportAbove < 1 || calibration.cascadeThresholds.unsupportBelow > 0 ? `supported without a model call at an offline score of ${calibration.cascadeThresholds.supportAbove} or above, unsupported at ${calibration.cascadeThresholds.unsupportBelow} or below (with the cascade on)` : "none fitted: every claim goes to the model"}</td></tr>` : ""}<tr><td>verdict</td><td class="${failed ? "over" : ""}">${escapeHtml(verdictName)}${failed ? " — not trustworthy (see the warning at the top)" : passed}</td></tr><tr><td>labelled set</td><td>${calibration.rows !== undefined ? Math.round(calibration.rows) : "–"} answers</td></tr>${unscorableRow}<tr><td>calibrated</td><td>${escapeHtml(calibration.createdAt ?? "–")}</td></tr><tr><td>backend</td><td>${escapeHtml(calibration.backend ? `${calibration.backend.name} ${calibration.backend.version ?? ""} (${calibration.backend.tier ?? "?"})` : "–")}</td></tr><tr><td>data set</td><td>${escapeHtml(calibration.dataset ? `${calibration.dataset.path}, sha256 ${calibration.dataset.sha256.slice(0, 12)}…${calibration.dataset.bundled ? " — groundwatch's bundled examples, not your data" : ""}` : "fingerprint unknown")}</td></tr>${labelsRow}<tr><td>calibration id</td><td>${escapeHtml(calibration.id)}</td></tr></table>${calibrationOutcomesHtml(calibration)}` : "<p>No calibration file was given (--calibration): the threshold is not backed by a labelled set in this report.</p>"}
<p style="font-size:12px;color:#777">Generated ${escapeHtml(utc(now().getTime() / 1000))} by groundwatch evidence.</p>
</body></html>
`;
    return write(html);
  });
}
