import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import type { PromRow } from "../../src/cli/evidence/scoring.ts";
import { scoringInUse, scoringNotices } from "../../src/cli/evidence/scoring.ts";
import { readCalibrationFile } from "../../src/config/calibration-file.ts";
import { chartResolution, describePeriod, formatDuration, MAX_CHART_POINTS, parseTime, promDuration, resolvePeriod } from "../../src/cli/evidence/period.ts";
import { runCli, tempDir } from "../helpers/cli.ts";
import { verdictSet } from "../helpers/verdict-set.ts";
import { precisionFixture, writeSpool } from "../helpers/review-spool.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";

/** One request the fake Prometheus received: its path and query parameters. */
interface PromRequest {
  readonly path: string;
  readonly params: Record<string, string>;
}

/**
 * A Prometheus that answers every query with one series for a hostile route, or with what `respond`
 * returns for a request; closed when the test ends.
 */
async function fakePrometheus(route: string, respond?: (request: PromRequest) => unknown[]): Promise<{ url: string; queries: string[]; requests: PromRequest[] }> {
  const queries: string[] = [];
  const requests: PromRequest[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const request = { path: url.pathname, params: Object.fromEntries(url.searchParams) };
    queries.push(url.searchParams.get("query") ?? "");
    requests.push(request);
    const range = url.pathname.endsWith("query_range");
    const result = respond ? respond(request) : [{ metric: { groundwatch_route: route, alertname: route, severity: route, groundwatch_backend_name: route, groundwatch_backend_tier: route }, ...(range ? { values: [[1_700_000_000, "0.5"]] } : { value: [1_700_000_000, "3"] }) }];
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ status: "success", data: { result } }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, queries, requests };
}

const HOSTILE = '<img src=x onerror=alert(1)>"\u202e\u0000';
const PERIOD = ["--from", "1699990000", "--to", "1700000000"];

// Regression (issue 13): dataset.rows and other values from calibration.json went into the
// evidence HTML unescaped, and a calibration file with a byte order mark could not be read.
describe("groundwatch evidence: untrusted values", () => {
  it("escapes every value from calibration.json and Prometheus, and reads a file with a byte order mark", async () => {
    const prom = await fakePrometheus(HOSTILE);
    const dir = tempDir();
    const calibration = join(dir, "calibration.json");
    const raw = { threshold: 0.5, referenceScores: [0.1], criterion: HOSTILE, createdAt: HOSTILE, dataset: { rows: HOSTILE }, auroc: { value: HOSTILE, low: 0.1, high: 0.9 }, backend: { name: HOSTILE, version: "1", tier: HOSTILE } };
    writeFileSync(calibration, `\ufeff${JSON.stringify(raw)}`);
    const out = join(dir, "evidence.html");
    const run = await runCli(["evidence", "--prometheus", prom.url, ...PERIOD, "--calibration", calibration, "--route", HOSTILE, "--out", out]);
    expect(run.code, run.stderr).toBe(0);
    const html = readFileSync(out, "utf8");
    for (const bad of ["<img", "\u202e", "\u0000"]) expect(html, JSON.stringify(bad)).not.toContain(bad);
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;&quot;");
    // A value of the wrong type is shown as missing, not interpolated.
    expect(html).toContain("<tr><td>labelled set</td><td>– answers</td></tr>");
    expect(html).toContain("<tr><td>AUROC</td><td>–</td></tr>");
  });

  it("names a calibration file that is not JSON without echoing it, exit 2", async () => {
    const calibration = join(tempDir(), "calibration.json");
    writeFileSync(calibration, "threshold: SECRET");
    const run = await runCli(["evidence", "--prometheus", "http://127.0.0.1:9", ...PERIOD, "--calibration", calibration]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`groundwatch evidence: cannot read --calibration ${calibration}: not valid JSON\n`);
  });

  it("names an --out that is a directory, exit 2, before querying Prometheus", async () => {
    const prom = await fakePrometheus("/r");
    const dir = tempDir();
    const run = await runCli(["evidence", "--prometheus", prom.url, ...PERIOD, "--out", dir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`groundwatch evidence: cannot write --out ${dir}: it is a directory\n`);
    expect(prom.queries).toEqual([]);
  });
});

/** calibration.json as calibrate writes it; "weak" is issue 14's: AUROC interval 0.295–1.0 on 6 rows. */
function calibrationJson(verdict: "weak" | "pass" | "anti-correlated", extra: Record<string, unknown> = {}): string {
  const auroc = { weak: { value: 0.667, low: 0.295, high: 1 }, pass: { value: 0.95, low: 0.88, high: 1 }, "anti-correlated": { value: 0.1, low: 0, high: 0.3 } }[verdict];
  const path = join(tempDir(), "calibration.json");
  writeFileSync(path, JSON.stringify({ threshold: 0.42, criterion: "youden", createdAt: "2026-11-01T00:00:00.000Z", backend: { name: "offline", version: "1", tier: "triage" }, dataset: { rows: 6, positives: 3, negatives: 3, unscorable: 2 }, excluded: { unscorable: 2 }, auroc, verdict, labelsToSettle: verdict === "weak" ? 40 : 0, referenceScores: [0.1], ...extra }));
  return path;
}

// Issue 14: a failed calibration appeared as a plain threshold and AUROC.
describe("groundwatch evidence: a calibration that did not pass", () => {
  it("is flagged at the top, in red: what the verdict means, that the threshold is not trustworthy, what to do", async () => {
    const prom = await fakePrometheus("/r");
    const out = join(tempDir(), "evidence.html");
    const run = await runCli(["evidence", "--prometheus", prom.url, ...PERIOD, "--calibration", calibrationJson("weak"), "--out", out]);
    expect(run.code, run.stderr).toBe(0);
    const html = readFileSync(out, "utf8");
    const alarm = /<div class="alarm" role="alert">([\s\S]*?)<\/div>/.exec(html)?.[1] ?? "";
    expect(alarm).toContain("Calibration FAILED (verdict: weak): the answer threshold is not trustworthy");
    expect(alarm).toContain("the AUROC&#39;s 95% interval (0.295–1.000) includes 0.5");
    expect(alarm).toContain("The threshold 0.4200 decides which answers count as ungrounded");
    expect(alarm).toContain("calibrate estimated that about 40 more labelled rows would settle it");
    // Before the figures it qualifies, and red.
    expect(html.indexOf('class="alarm"')).toBeLessThan(html.indexOf("<h2>Per route over the period</h2>"));
    expect(html).toMatch(/\.alarm\{border:4px solid #b00020;background:#fde0e0/);
    expect(html).toContain('<tr><td>verdict</td><td class="over">weak — not trustworthy (see the warning at the top)</td></tr>');
    expect(html).toContain("<tr><td>unscorable rows</td><td>2, 2 left out of the AUROC and threshold</td></tr>");
  });

  it("says to check the labels' direction for an anti-correlated one, and flags a file with no verdict", async () => {
    const prom = await fakePrometheus("/r");
    const out = join(tempDir(), "evidence.html");
    expect((await runCli(["evidence", "--prometheus", prom.url, ...PERIOD, "--calibration", calibrationJson("anti-correlated"), "--out", out])).code).toBe(0);
    expect(readFileSync(out, "utf8")).toMatch(/Calibration FAILED \(verdict: anti-correlated\)[\s\S]*higher scores went with answers labelled NOT grounded[\s\S]*check which way the labels point/);
    expect((await runCli(["evidence", "--prometheus", prom.url, ...PERIOD, "--calibration", calibrationJson("weak", { auroc: null, verdict: undefined }), "--out", out])).code).toBe(0);
    expect(readFileSync(out, "utf8")).toContain("Calibration FAILED (verdict: none recorded)");
  });

  it("is not flagged when the calibration passed; an older file's unscorable rows are said to be fitted as 0", async () => {
    const prom = await fakePrometheus("/r");
    const out = join(tempDir(), "evidence.html");
    expect((await runCli(["evidence", "--prometheus", prom.url, ...PERIOD, "--calibration", calibrationJson("pass", { excluded: undefined }), "--out", out])).code).toBe(0);
    const html = readFileSync(out, "utf8");
    expect(html).not.toContain('class="alarm"');
    expect(html).toContain('<tr><td>verdict</td><td class="">pass — the interval excludes 0.5</td></tr>');
    expect(html).toContain("<tr><td>unscorable rows</td><td>2, fitted as score 0 (written by a calibrate that did not exclude them)</td></tr>");
  });

  // Issue 36: serving a calibration lowered detection, and nothing in the evidence showed it.
  it("shows what the threshold does on its fitted rows and to each class beside the threshold in force, and flags claims its rows do not bear out", async () => {
    const prom = await fakePrometheus("/r");
    const cal = join(tempDir(), "calibration.json");
    const old = join(tempDir(), "old.json");
    writeFileSync(old, JSON.stringify({ threshold: 0.5, referenceScores: [0.5] }));
    expect((await runCli(["calibrate", "--set", verdictSet({ partlyWrong: true }), "--out", cal, "--backend", "offline", "--compare", old])).code).toBe(0);
    const out = join(tempDir(), "evidence.html");
    expect((await runCli(["evidence", "--prometheus", prom.url, ...PERIOD, "--calibration", cal, "--out", out])).code).toBe(0);
    const html = readFileSync(out, "utf8");
    const threshold = (JSON.parse(readFileSync(cal, "utf8")) as { threshold: number }).threshold;
    expect(html).toContain(`<tr><td>threshold</td><td>${threshold} (youden)</td></tr>`);
    expect(html).toContain("What the threshold does on the 36 rows it was fitted on, by the scorer's verdicts: TPR 100.0% (19 of 19 grounded answers pass), FPR 11.8% (2 of 17 not-grounded answers pass)");
    expect(html).toContain(`Beside the threshold in force when it was fitted: 0.5 (${old} (--compare))`);
    expect(html).toContain('<tr><td>grounded answers passed</td><td>19</td><td>11 of 19 (57.9%)</td><td class="">19 of 19 (100.0%)</td></tr>');
    expect(html).toContain('<tr><td>not grounded, generation: caught</td><td>8</td><td>7 of 8 (87.5%)</td><td class="over">6 of 8 (75.0%)</td></tr>');
    // A file claiming rates its threshold does not give on its own rows is called out.
    const file = JSON.parse(readFileSync(cal, "utf8")) as Record<string, unknown>;
    writeFileSync(cal, JSON.stringify({ ...file, tpr: 1, fpr: 0, counts: undefined }));
    expect((await runCli(["evidence", "--prometheus", prom.url, ...PERIOD, "--calibration", cal, "--out", out])).code).toBe(0);
    expect(readFileSync(out, "utf8")).toMatch(/<p class="over">What the threshold does on the 36 rows[^<]*the file claims TPR 100\.0%, FPR 0\.0%, but its threshold/);
  });
});

const DAY = 86_400;
const utc = (iso: string): number => Date.parse(iso) / 1000;
const CLOCK = (): Date => new Date("2026-11-30T14:05:09.400Z");

// Issue 14 (CLI conventions): --to 2026-11-30 left out the 30th, there was no relative period,
// charts were labelled "12528s windows", and a period with nothing scored showed 0%.
describe("evidence periods: --from, --to and --since", () => {
  it("reads a date alone as a whole UTC day: the start of it for --from, the end of it (next midnight) for --to", () => {
    expect(parseTime("from", "2026-11-30", "start")).toEqual({ time: utc("2026-11-30T00:00:00Z"), day: "2026-11-30" });
    expect(parseTime("to", "2026-11-30", "end")).toEqual({ time: utc("2026-12-01T00:00:00Z"), day: "2026-11-30" });
    // Month and year ends roll over.
    expect(parseTime("to", "2026-12-31", "end").time).toBe(utc("2027-01-01T00:00:00Z"));
    expect(parseTime("to", "2028-02-28", "end").time).toBe(utc("2028-02-29T00:00:00Z"));
  });

  it("keeps a full timestamp exact, whatever the edge: its offset, UTC without one, fractions and Unix seconds", () => {
    for (const edge of ["start", "end"] as const) {
      expect(parseTime("to", "2026-11-30T08:15:00Z", edge)).toEqual({ time: utc("2026-11-30T08:15:00Z") });
      expect(parseTime("to", "2026-11-30T09:15+01:00", edge).time).toBe(utc("2026-11-30T08:15:00Z"));
      expect(parseTime("to", "2026-11-30T03:15:00-0500", edge).time).toBe(utc("2026-11-30T08:15:00Z"));
      expect(parseTime("to", "2026-11-30T08:15:00", edge).time).toBe(utc("2026-11-30T08:15:00Z"));
      expect(parseTime("to", "2026-11-30 08:15:30.5", edge).time).toBe(utc("2026-11-30T08:15:30Z") + 0.5);
      expect(parseTime("to", "1700000000", edge)).toEqual({ time: 1_700_000_000 });
    }
  });

  it("refuses what is not a date, naming the flag: a day that does not exist, a date without dashes, words", () => {
    expect(() => parseTime("from", "2026-02-30", "start")).toThrow('--from is not a date (no such day): "2026-02-30"');
    expect(() => parseTime("to", "2026-11-30T24:00:00Z", "end")).toThrow("--to is not a date (no such time)");
    expect(() => parseTime("to", "20261130", "end")).toThrow("write it as 2026-11-30; a number is read as Unix seconds");
    expect(() => parseTime("to", "yesterday", "end")).toThrow('--to is not a date: "yesterday" (use 2026-11-30, 2026-11-30T08:00:00Z or Unix seconds)');
  });

  it("includes the --to day, and defaults --to to the clock's time", () => {
    expect(resolvePeriod({ from: "2026-09-01", to: "2026-11-30" }, CLOCK)).toEqual({ from: utc("2026-09-01T00:00:00Z"), to: utc("2026-12-01T00:00:00Z"), fromDay: "2026-09-01", toDay: "2026-11-30", toNow: false });
    // The same day for both is that one day.
    expect(resolvePeriod({ from: "2026-11-30", to: "2026-11-30" }, CLOCK)).toMatchObject({ from: utc("2026-11-30T00:00:00Z"), to: utc("2026-12-01T00:00:00Z") });
    expect(resolvePeriod({ from: "2026-11-01" }, CLOCK)).toEqual({ from: utc("2026-11-01T00:00:00Z"), to: utc("2026-11-30T14:05:09Z"), fromDay: "2026-11-01", toNow: true });
  });

  it("reads --since in minutes, hours, days and weeks, up to --to or the clock's time", () => {
    const now = utc("2026-11-30T14:05:09Z");
    expect(resolvePeriod({ since: "30d" }, CLOCK)).toEqual({ from: now - 30 * DAY, to: now, since: 30 * DAY, toNow: true });
    expect(resolvePeriod({ since: "90d" }, CLOCK)).toMatchObject({ from: now - 90 * DAY, to: now });
    expect(resolvePeriod({ since: "12h" }, CLOCK)).toMatchObject({ from: now - 12 * 3600 });
    expect(resolvePeriod({ since: "2w" }, CLOCK)).toMatchObject({ from: now - 14 * DAY });
    expect(resolvePeriod({ since: "45m" }, CLOCK)).toMatchObject({ from: now - 45 * 60 });
    expect(resolvePeriod({ since: "7d", to: "2026-11-30" }, CLOCK)).toEqual({ from: utc("2026-11-24T00:00:00Z"), to: utc("2026-12-01T00:00:00Z"), since: 7 * DAY, toDay: "2026-11-30", toNow: false });
  });

  it("refuses --since with --from, a missing start, a bad length and an empty period, with usage errors", () => {
    expect(() => resolvePeriod({ since: "30d", from: "2026-11-01" }, CLOCK)).toThrow("give --from or --since, not both");
    expect(() => resolvePeriod({ to: "2026-11-30" }, CLOCK)).toThrow("give the period: --from DATE [--to DATE], or --since 30d");
    for (const bad of ["30", "0d", "30y", "1.5d", "-3d", "d"]) expect(() => resolvePeriod({ since: bad }, CLOCK), bad).toThrow(`--since must be a length such as 30d, 12h or 2w (m minutes, h hours, d days, w weeks), got ${JSON.stringify(bad)}`);
    expect(() => resolvePeriod({ from: "2026-11-30", to: "2026-11-29" }, CLOCK)).toThrow("--to must be after --from");
    expect(() => resolvePeriod({ from: "2026-12-01" }, CLOCK)).toThrow("--from must be in the past (--to defaults to now)");
  });

  it("describes the period in UTC, with its length", () => {
    expect(describePeriod(resolvePeriod({ from: "2026-09-01", to: "2026-11-30" }, CLOCK))).toBe("2026-09-01 to 2026-11-30, both days included (2026-09-01 00:00 to 2026-12-01 00:00 UTC, 91 days)");
    expect(describePeriod(resolvePeriod({ since: "30d" }, CLOCK))).toBe("the last 30 days (2026-10-31 14:05:09 to 2026-11-30 14:05:09 UTC)");
    expect(describePeriod(resolvePeriod({ since: "36h", to: "2026-11-30" }, CLOCK))).toBe("the 1 day 12 h up to the end of 2026-11-30 (2026-11-29 12:00 to 2026-12-01 00:00 UTC)");
    expect(describePeriod(resolvePeriod({ from: "2026-11-30T08:00:00Z", to: "2026-11-30" }, CLOCK))).toBe("2026-11-30 08:00 UTC to the end of 2026-11-30 (2026-11-30 08:00 to 2026-12-01 00:00 UTC, 16 h)");
    expect(describePeriod(resolvePeriod({ from: "2026-11-01" }, CLOCK))).toBe("the start of 2026-11-01 to now (2026-11-01 00:00 to 2026-11-30 14:05:09 UTC, 29 days 14 h)");
    expect(describePeriod(resolvePeriod({ from: "2026-11-30T08:00Z", to: "2026-11-30T08:45Z" }, CLOCK))).toBe("2026-11-30 08:00 to 2026-11-30 08:45 UTC (45 min)");
  });
});

describe("evidence charts: round steps and readable windows", () => {
  it("picks round steps, at most MAX_CHART_POINTS points, and labels windows in minutes, hours or days", () => {
    const cases: Array<[span: number, step: number, label: string]> = [
      [15, 1, "5 min windows"],
      [3600, 15, "5 min windows"],
      [6 * 3600, 300, "5 min windows"],
      [DAY, 300, "5 min windows"],
      [3 * DAY, 900, "15 min windows"],
      [7 * DAY, 3600, "1 h windows"],
      [30 * DAY, 6 * 3600, "6 h windows"],
      [90 * DAY, DAY, "1 day windows"],
      [365 * DAY, DAY, "1 day windows"],
    ];
    for (const [span, step, label] of cases) {
      expect(chartResolution(span), String(span)).toMatchObject({ step, label });
      if (span <= 300 * DAY) expect(span / step).toBeLessThanOrEqual(MAX_CHART_POINTS);
    }
    // Issue 14's example: an 87-day period was drawn in "12528s windows".
    expect(chartResolution(87 * DAY)).toEqual({ step: DAY, window: DAY, label: "1 day windows" });
  });

  it("formats durations for people, and for PromQL in its largest whole unit", () => {
    expect([300, 900, 3600, 6 * 3600, DAY, 91 * DAY, 1.5 * DAY, 90, 12_528, 0.2].map(formatDuration)).toEqual(["5 min", "15 min", "1 h", "6 h", "1 day", "91 days", "1 day 12 h", "1 min 30 s", "3 h 28 min", "under 1 s"]);
    expect([300, 3600, DAY, 90 * DAY, 90, 12_528].map(promDuration)).toEqual(["5m", "1h", "1d", "90d", "90s", "12528s"]);
  });
});

describe("groundwatch evidence: the period and no-data queries", () => {
  it("queries up to the end of a date-only --to, in round windows, and says so in UTC", async () => {
    const prom = await fakePrometheus("/r");
    const out = join(tempDir(), "evidence.html");
    const run = await runCli(["evidence", "--prometheus", prom.url, "--from", "2026-11-01", "--to", "2026-11-30", "--out", out]);
    expect(run.code, run.stderr).toBe(0);
    const [start, end] = [utc("2026-11-01T00:00:00Z"), utc("2026-12-01T00:00:00Z")];
    const ranges = prom.requests.filter((r) => r.path === "/api/v1/query_range");
    const instants = prom.requests.filter((r) => r.path === "/api/v1/query");
    expect(ranges.length).toBeGreaterThan(0);
    expect(instants.length).toBeGreaterThan(0);
    for (const r of ranges) expect(r.params).toMatchObject({ start: String(start), end: String(end), step: String(6 * 3600) });
    for (const r of instants) expect(r.params.time).toBe(String(end));
    // 30 days: 6 h windows in the charts and the alerts, the whole period in the table.
    expect(prom.queries.filter((q) => q.includes("[6h]")).length).toBe(3);
    // An alert that fired between two chart points still counts: each point covers its window.
    expect(prom.queries).toContainEqual(expect.stringContaining('max_over_time(ALERTS{alertstate="firing", alertname=~"Groundwatch.*"}[6h])'));
    // The table's counts (exact and estimated, of three counters), and what the collector scored with (scoring info, drift refusals), over the whole period.
    expect(prom.queries.filter((q) => q.includes("[30d]")).length).toBe(8);
    const html = readFileSync(out, "utf8");
    expect(html).toContain("<title>groundwatch evidence 2026-11-01 – 2026-11-30</title>");
    expect(html).toContain("Period: 2026-11-01 to 2026-11-30, both days included (2026-11-01 00:00 to 2026-12-01 00:00 UTC, 30 days), all routes. All times are UTC.");
    expect(html).toContain("<figcaption>Hallucination rate (6 h windows)</figcaption>");
    expect(html).toContain("<figcaption>Mean groundedness (6 h windows)</figcaption>");
    expect(html).not.toMatch(/\d+s windows/);
  });

  it("takes --since up to now, and refuses it with --from before querying", async () => {
    const prom = await fakePrometheus("/r");
    const out = join(tempDir(), "evidence.html");
    const before = Math.floor(Date.now() / 1000);
    const run = await runCli(["evidence", "--prometheus", prom.url, "--since", "90d", "--out", out]);
    const after = Math.ceil(Date.now() / 1000);
    expect(run.code, run.stderr).toBe(0);
    const [range] = prom.requests.filter((r) => r.path === "/api/v1/query_range");
    const end = Number(range?.params.end);
    expect(end).toBeGreaterThanOrEqual(before);
    expect(end).toBeLessThanOrEqual(after);
    expect(Number(range?.params.start)).toBe(end - 90 * DAY);
    expect(range?.params.step).toBe(String(DAY));
    const html = readFileSync(out, "utf8");
    expect(html).toContain("Period: the last 90 days (");
    expect(html).toContain("<figcaption>Hallucination rate (1 day windows)</figcaption>");

    const asked = prom.requests.length;
    const both = await runCli(["evidence", "--prometheus", prom.url, "--since", "30d", "--from", "2026-11-01", "--out", out]);
    expect(both.code).toBe(2);
    expect(both.stderr).toBe('groundwatch evidence: give --from or --since, not both: --since sets the start of the period from its end\nRun "groundwatch evidence --help" for usage.\n');
    expect((await runCli(["evidence", "--prometheus", prom.url, "--since", "30", "--out", out])).stderr).toContain("--since must be a length such as 30d");
    expect(prom.requests.length).toBe(asked);
  });

  it("divides by (denominator > 0), never clamp_min: a period with nothing scored says so, not 0%", async () => {
    // Prometheus has the route's counters but nothing was scored: every ratio is no result.
    const prom = await fakePrometheus("/r", ({ params }) => (params.query?.startsWith("(last_over_time(groundwatch_evaluations_total") ? [{ metric: { groundwatch_route: "/r", groundwatch_verdict: "grounded" }, value: [1_700_000_000, "0"] }] : []));
    const out = join(tempDir(), "evidence.html");
    const run = await runCli(["evidence", "--prometheus", prom.url, ...PERIOD, "--out", out]);
    expect(run.code, run.stderr).toBe(0);
    for (const q of prom.queries) expect(q).not.toContain("clamp_min");
    // The trends' two; the period's rates are divided here, from whole counts.
    const ratios = prom.queries.filter((q) => q.includes(" / "));
    expect(ratios.length).toBe(2);
    for (const q of ratios) expect(q).toMatch(/ \/ \(sum by \(groundwatch_route\) \(increase\([^)]*\[\w+\]\)\) > 0\)$/);
    const html = readFileSync(out, "utf8");
    expect(html).toContain('<tr><td>/r</td><td>0</td><td>–</td><td class="no-data">no data: no answers scored in this period</td></tr>');
    expect(html.match(/<div class="legend">no data: no answers scored in this period<\/div>/g)?.length).toBe(2);
    expect(html).not.toContain(">0.0%<");
    expect(html).toContain("<p>No answers scored in this period.</p>");

    // Nothing at all: the table says so too.
    const empty = await fakePrometheus("/r", () => []);
    expect((await runCli(["evidence", "--prometheus", empty.url, ...PERIOD, "--out", out])).code).toBe(0);
    expect(readFileSync(out, "utf8")).toContain('<tr><td colspan="4" class="no-data">no answers scored in this period</td></tr>');
  });

  it("breaks a trend line where a window had nothing scored, rather than joining across it", async () => {
    const t0 = 1_699_990_000;
    const values = [[t0, "0.1"], [t0 + 50, "0.2"], [t0 + 200, "0.3"], [t0 + 250, "0.4"], [t0 + 500, "0.5"]];
    const prom = await fakePrometheus("/r", ({ path, params }) => (path.endsWith("query_range") && params.query?.includes("ungrounded") ? [{ metric: { groundwatch_route: "/r" }, values }] : []));
    const out = join(tempDir(), "evidence.html");
    expect((await runCli(["evidence", "--prometheus", prom.url, ...PERIOD, "--out", out])).code).toBe(0);
    const chart = /<figcaption>Hallucination rate \(5 min windows\)<\/figcaption>([\s\S]*?)<\/figure>/.exec(readFileSync(out, "utf8"))?.[1] ?? "";
    // A 10 000 s period is drawn at 1 min steps: a gap over a step and a half starts a new run; a lone point is a dot.
    expect(chart.match(/<polyline class="series"/g)?.length).toBe(2);
    expect(chart.match(/<circle class="series"/g)?.length).toBe(1);
  });
});

// Issue 25: evidence said "pass" for a calibration on groundwatch's own examples, never said which
// threshold the collector used, and called a period scored wholly by the triage backend "part".
describe("groundwatch evidence: how the period was scored, as the collector exported it", () => {
  const INFO = { groundwatch_backend_name: "offline", groundwatch_backend_tier: "triage", groundwatch_backend_model: "m1", groundwatch_threshold: "0.42" };
  /** A Prometheus whose scoring info, answers by backend and drift refusals are given. */
  const scoredBy = (info: Array<Record<string, string>>, backends: Array<[string, string, number]>, refused: string[] = []): Promise<{ url: string }> =>
    fakePrometheus("/r", ({ params }) => {
      const q = params.query ?? "";
      const row = (metric: Record<string, string>, v: number): unknown => ({ metric, value: [1_700_000_000, String(v)] });
      if (q.includes("groundwatch_scoring_info")) return info.map((m) => row(m, 1));
      if (q.includes("groundwatch_drift_reference_refused_total")) return refused.map((r) => row({ groundwatch_reason: r }, 1));
      if (q.startsWith("(last_over_time(groundwatch_evaluations_total")) return backends.map(([name, tier, n]) => row({ groundwatch_route: "/r", groundwatch_verdict: "grounded", groundwatch_backend_name: name, groundwatch_backend_tier: tier }, n));
      return [];
    });
  const report = async (prom: { url: string }, calibration?: string): Promise<{ html: string; top: string }> => {
    const out = join(tempDir(), "evidence.html");
    const run = await runCli(["evidence", "--prometheus", prom.url, ...PERIOD, ...(calibration ? ["--calibration", calibration] : []), "--out", out]);
    expect(run.code, run.stderr).toBe(0);
    const html = readFileSync(out, "utf8");
    return { html, top: html.slice(0, html.indexOf("<h2>Per route over the period</h2>")) };
  };
  const ownCalibration = (extra: Record<string, unknown> = {}): string => calibrationJson("pass", { backend: { name: "offline", version: "m1", tier: "triage" }, dataset: { path: "mine.jsonl", rows: 6, sha256: "e".repeat(64), bundled: false }, ...extra });

  it("states the threshold, backend and calibration the collector used, and flags a calibration file it did not use, at the top", async () => {
    const used = ownCalibration();
    const id = readCalibrationFile(used).id;
    const prom = await scoredBy([{ ...INFO, groundwatch_calibration_id: id }], [["offline", "triage", 12]]);
    const same = await report(prom, used);
    expect(same.top).toContain(`The collector scored this period with threshold 0.42, backend offline/m1 (triage), calibration id ${id}.`);
    expect(same.top).not.toContain("is not what the collector scored with");
    // Another file (another id), and the same file with an explicit threshold in force.
    const other = ownCalibration({ threshold: 0.55 });
    const flagged = await report(prom, other);
    expect(flagged.top).toContain(`The calibration file passed to this report (${other}, id ${readCalibrationFile(other).id}, threshold 0.55) is not what the collector scored with: the collector did not use this calibration file.`);
    const explicit = await report(await scoredBy([{ ...INFO, groundwatch_threshold: "0.3", groundwatch_calibration_id: id }], [["offline", "triage", 12]]), used);
    expect(explicit.top).toContain("the collector used this calibration with another threshold (set explicitly)");
  });

  it('says "all of this period" for the triage backend alone, and "part" with the counts when it shared the period', async () => {
    const all = await report(await scoredBy([{ ...INFO, groundwatch_calibration_id: "none" }], [["offline", "triage", 12]]));
    expect(all.top).toContain("All of this period was scored by the triage backend: every figure in this report is indicative, not decision-grade.");
    const part = await report(await scoredBy([], [["offline", "triage", 10], ["onnx", "production", 20]]));
    expect(part.top).toContain("Part of this period (10 of 30 answers) was scored by a triage-tier backend");
    expect(part.top).toContain("Prometheus holds no groundwatch_scoring_info series for this period");
  });

  it("flags a calibration fitted on groundwatch's bundled examples, and a drift reference the collector refused", async () => {
    const bundled = ownCalibration({ dataset: { path: "examples/labelled.jsonl", rows: 40, sha256: "f".repeat(64), bundled: true } });
    const { top, html } = await report(await scoredBy([{ ...INFO, groundwatch_calibration_id: readCalibrationFile(bundled).id }], [["onnx", "production", 5]], ["bundled_examples"]), bundled);
    expect(top).toMatch(/<div class="alarm" role="alert">[\s\S]*calibrated on groundwatch&#39;s bundled examples \(examples\/labelled\.jsonl\), not your data/);
    expect(top).toContain("Drift: the collector refused the calibration&#39;s reference scores (the calibration was fitted on groundwatch&#39;s bundled examples)");
    expect(html).toContain("examples/labelled.jsonl, sha256 ffffffffffff… — groundwatch&#39;s bundled examples, not your data");
  });
});

// Issue 36: the calibration record did not say its labels came from production review, and called a
// calibration on groundwatch's own examples a plain "pass".
describe("groundwatch evidence: where the calibration's labels came from", () => {
  const record = async (dataset: Record<string, unknown>): Promise<{ labels: string; verdict: string }> => {
    const prom = await fakePrometheus("/r", () => []);
    const out = join(tempDir(), "evidence.html");
    const run = await runCli(["evidence", "--prometheus", prom.url, ...PERIOD, "--calibration", calibrationJson("pass", { dataset: { path: "reviewed.jsonl", rows: 472, sha256: "a".repeat(64), bundled: false, ...dataset } }), "--out", out]);
    expect(run.code, run.stderr).toBe(0);
    const html = readFileSync(out, "utf8");
    return { labels: /<tr><td>labels<\/td><td>([^<]*)<\/td><\/tr>/.exec(html)?.[1] ?? "(no labels row)", verdict: /<tr><td>verdict<\/td><td[^>]*>([^<]*)<\/td><\/tr>/.exec(html)?.[1] ?? "" };
  };

  it("says the labels came from production review: how many answers, by how many reviewers, scored when", async () => {
    const { labels, verdict } = await record({ production: { rows: 472, reviewers: 2, from: "2026-11-01T09:00:00.000Z", to: "2026-11-20T18:00:00.000Z" } });
    expect(labels).toBe("labels from production review: 472 answers by 2 reviewers, from 2026-11-01T09:00:00.000Z to 2026-11-20T18:00:00.000Z");
    expect(verdict).toBe("pass — the interval excludes 0.5");
  });

  it("says a set of the user's own is not from production review, and a calibration on groundwatch's examples is a demo, not a pass", async () => {
    expect((await record({})).labels).toBe("a labelled set of yours, not exported from production review (groundwatch review export)");
    const bundled = await record({ path: "examples/labelled.jsonl", bundled: true });
    expect(bundled.labels).toBe("groundwatch&#39;s bundled examples: a demo of calibrate, not labels of your service&#39;s answers");
    expect(bundled.verdict).toBe("pass — on groundwatch's bundled examples: a demo, not evidence about your service");
  });
});

// Issue 36: the report said "398.4 flagged answers" (counts from increase(), which extrapolates), and
// its route and backend tables, each from its own extrapolated query, disagreed by one answer.
describe("groundwatch evidence: counts in whole answers, the same in every table", () => {
  const SERIES: Array<[route: string, verdict: string, backend: string, count: number]> = [
    ["/a", "grounded", "onnx", 300],
    ["/a", "ungrounded", "onnx", 98],
    ["/b", "grounded", "onnx", 130],
  ];
  /**
   * A Prometheus as a real one answers: increase() extrapolated to the window's edges (fractions,
   * each query its own), and the counters' values at the period's ends whole, per series.
   */
  const prometheus = (estimated: Array<[string, string, string, number]> = []): Promise<{ url: string; queries: string[] }> =>
    fakePrometheus("/r", ({ path, params }) => {
      const q = params.query ?? "";
      if (path.endsWith("query_range")) return [];
      const row = (metric: Record<string, string>, v: number | string): unknown => ({ metric, value: [1_700_000_000, String(v)] });
      const series = ([route, verdict, backend]: [string, string, string, number]): Record<string, string> => ({ groundwatch_route: route, groundwatch_verdict: verdict, groundwatch_backend_name: backend, groundwatch_backend_tier: "production" });
      if (q.startsWith("(last_over_time(groundwatch_evaluations_total")) return SERIES.map((s) => row(series(s), s[3]));
      if (q.startsWith("increase(groundwatch_evaluations_total")) return estimated.map((s) => row(series(s), s[3]));
      if (q.startsWith("(last_over_time(groundwatch_observations_seen_total")) return [row({ groundwatch_route: "/a" }, 796), row({ groundwatch_route: "/b" }, 130)];
      if (q.startsWith("(last_over_time(groundwatch_observations_sampled_total")) return [row({ groundwatch_route: "/a" }, 398), row({ groundwatch_route: "/b" }, 130)];
      // What increase() over the period would have said.
      if (q.startsWith("sum by (groundwatch_route) (increase(groundwatch_observations_scored_total")) return [row({ groundwatch_route: "/a" }, 398.4), row({ groundwatch_route: "/b" }, 130.4)];
      if (q.startsWith("sum by (groundwatch_backend_name, groundwatch_backend_tier) (increase(")) return [row({ groundwatch_backend_name: "onnx", groundwatch_backend_tier: "production" }, 529.3)];
      if (q.startsWith("sum by (groundwatch_verdict) (increase(")) return [row({ groundwatch_verdict: "grounded" }, 430.9), row({ groundwatch_verdict: "ungrounded" }, 98.4)];
      return [];
    });
  const report = async (prom: { url: string }): Promise<string> => {
    const dir = tempDir();
    const { records, labels } = precisionFixture();
    const spool = writeSpool(join(dir, "spool"), records, labels);
    const out = join(dir, "evidence.html");
    const run = await runCli(["evidence", "--prometheus", prom.url, "--from", "2026-11-01", "--to", "2026-11-07", "--review-dir", spool, "--out", out]);
    expect(run.code, run.stderr).toBe(0);
    return readFileSync(out, "utf8");
  };

  it("reads each counter's value at the period's ends, so the route table, the backend table and the review agree to the answer", async () => {
    const prom = await prometheus();
    const html = await report(prom);
    // The counts are read from the counters' values, never from increase().
    expect(prom.queries.filter((q) => q.includes("increase(") && !q.includes("resets(") && !q.includes(" / "))).toEqual([]);
    const routes = [...html.matchAll(/<tr><td>(\/[ab])<\/td><td>([^<]*)<\/td><td>([^<]*)<\/td><td class="[^"]*">([^<]*)<\/td><\/tr>/g)].map((m) => m.slice(1));
    expect(routes).toEqual([
      ["/a", "398", "50.0%", "24.6%"],
      ["/b", "130", "100.0%", "0.0%"],
    ]);
    expect(html).toContain("<tr><td>onnx</td><td>production</td><td>528</td></tr>");
    expect(html).toContain("98 flagged answers in the period");
    expect(html).toContain("430 grounded answers in the period");
    expect(html).not.toMatch(/\d\.\d (flagged|grounded) answers/);
    expect(html).toContain("Answers are counted whole: each counter's last value in the period less its last value before it");
    expect(html).not.toContain("about");
  });

  it("says about for counts a restarted collector's series is part of (Prometheus' estimate, rounded), in every table alike", async () => {
    const html = await report(await prometheus([["/a", "grounded", "onnx", 7]]));
    expect(html).toContain("<tr><td>/a</td><td>about 405</td>");
    expect(html).toContain("<tr><td>/b</td><td>130</td>");
    expect(html).toContain("<tr><td>onnx</td><td>production</td><td>about 535</td></tr>");
    expect(html).toContain("about 437 grounded answers in the period");
    expect(html).toContain("A counter that restarted in the period (its collector restarted) has no such difference");
  });
});

// Prometheus's answers are remote replies: what evidence does with the scoring info must stay linear.
// Sizes that keep the larger input's arrays and strings under V8's 128 KiB large-object size (test/helpers/growth.ts).
describe("groundwatch evidence: the collector's scoring info, read in linear time", () => {
  const row = (label: string, i: number): PromRow => ({ metric: { groundwatch_backend_name: label, groundwatch_backend_tier: "triage", groundwatch_backend_model: label, groundwatch_threshold: `0.${i}`, groundwatch_calibration_id: label }, value: [1, "1"] });
  const notices = (rows: PromRow[]): string => scoringNotices({ used: scoringInUse(rows), calibration: undefined, driftRefused: rows.map((r) => r.metric.groundwatch_backend_name ?? ""), backends: rows });
  it("in the length of its labels", () => {
    expectLinear("scoring info, label length", measureGrowth((n) => [row(`<'"&\u202e`.repeat(n), 1)], notices, { n: 32, maxN: 32 }));
  });
  it("in the number of its series", () => {
    expectLinear("scoring info, series", measureGrowth((n) => Array.from({ length: n }, (_, i) => row(`b${i}`, i)), notices, { n: 64, maxN: 64 }));
  });
});

// Issue 25: --pdf left .chromium-profile/ beside the report, had no A4 option, and --out could not name a new folder.
describe.skipIf(!existsSync("/usr/bin/chromium") && !process.env.CI)("groundwatch evidence --pdf", () => {
  /**
   * A temporary folder of this test's own as the process's (TMPDIR, which os.tmpdir() reads on each
   * call), restored when the test ends: Chromium's profile goes there, where no other test or process
   * printing a PDF at the same time puts one.
   */
  const ownTmpdir = (): string => {
    const dir = tempDir();
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = dir;
    onTestFinished(() => {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    });
    return dir;
  };

  it("creates --out's folder, prints A4 with --paper a4, and leaves nothing but the report and its PDF", { timeout: 90_000 }, async () => {
    const prom = await fakePrometheus("/r");
    const dir = tempDir();
    const tmp = ownTmpdir();
    const run = await runCli(["evidence", "--prometheus", prom.url, ...PERIOD, "--out", join(dir, "reports", "q3", "evidence.html"), "--pdf", "--paper", "a4"]);
    expect(run.code, run.stderr).toBe(0);
    expect(readdirSync(dir)).toEqual(["reports"]);
    expect(readdirSync(join(dir, "reports", "q3")).sort()).toEqual(["evidence.html", "evidence.pdf"]);
    expect(tmpdir()).toBe(tmp);
    expect(readdirSync(tmp)).toEqual([]);
    // A4 is 595 x 842 points; Letter 612 x 792.
    const pdf = readFileSync(join(dir, "reports", "q3", "evidence.pdf")).toString("latin1");
    expect(pdf).toMatch(/\/MediaBox \[0 0 59[45]\.\d+ 84[12]\.\d+\]/);
    expect(readFileSync(join(dir, "reports", "q3", "evidence.html"), "utf8")).toContain("@page{size:A4}");
  });

  it("prints Letter without --paper, and refuses another paper size before querying", async () => {
    const prom = await fakePrometheus("/r");
    const bad = await runCli(["evidence", "--prometheus", prom.url, ...PERIOD, "--out", join(tempDir(), "e.html"), "--pdf", "--paper", "a3"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--paper must be letter or a4 (got "a3")');
    expect(prom.queries).toEqual([]);
    const out = join(tempDir(), "e.html");
    const run = await runCli(["evidence", "--prometheus", prom.url, ...PERIOD, "--out", out, "--pdf"]);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(out.replace(/html$/, "pdf")).toString("latin1")).toMatch(/\/MediaBox \[0 0 612 792\]/);
  }, 90_000);
});
