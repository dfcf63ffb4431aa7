import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { runCli, tempDir } from "../helpers/cli.ts";
import { precisionFixture, writeSpool } from "../helpers/review-spool.ts";
import { wilson } from "../helpers/wilson.ts";

/** A Prometheus whose groundwatch_evaluations_total rose by `byVerdict` over the period (one series a verdict; none when empty); every other query has no data. */
async function prometheus(byVerdict: Record<string, number>): Promise<string> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const query = url.searchParams.get("query") ?? "";
    const result = query.startsWith("(last_over_time(groundwatch_evaluations_total") ? Object.entries(byVerdict).map(([v, n]) => ({ metric: { groundwatch_route: "/ask", groundwatch_verdict: v }, value: [1_700_000_000, String(n)] })) : [];
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ status: "success", data: { result } }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}


const pct = (v: number): string => `${(100 * v).toFixed(1)}%`;
const recall = (p: number, m: number, f: number, g: number): number => (p * f) / (p * f + m * g);

// Issue 28: reviewed production answers become an eval set, a production calibration and the monitor's own precision.
describe("the review loop: spool and labels → export → calibrate and eval → evidence", () => {
  it("carries production provenance through calibrate and eval, and evidence shows precision and recall as computed by hand", async () => {
    const dir = tempDir();
    const { records, labels } = precisionFixture();
    const spool = writeSpool(join(dir, "spool"), records, labels);

    const set = join(dir, "reviewed.jsonl");
    const exported = await runCli(["review", "export", "--dir", spool, "--out", set]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toBe(`wrote 31 rows to ${set}\n`);
    const provenance = "labels from production review: 31 answers by 1 reviewer, from 2026-11-01T09:00:00.000Z to 2026-11-08T00:00:00.000Z";

    const calibration = join(dir, "calibration.json");
    const cal = await runCli(["calibrate", "--set", set, "--backend", "offline", "--out", calibration]);
    expect(cal.code, cal.stderr).toBeLessThan(2);
    expect(cal.stdout).toContain(provenance);
    expect((JSON.parse(readFileSync(calibration, "utf8")) as { dataset: { production: unknown } }).dataset.production).toEqual({ rows: 31, reviewers: 1, from: "2026-11-01T09:00:00.000Z", to: "2026-11-08T00:00:00.000Z" });

    const report = join(dir, "report");
    const ev = await runCli(["eval", "--set", set, "--backend", "offline", "--no-gate", "--out", report]);
    expect(ev.code, ev.stderr).toBe(0);
    expect(readFileSync(join(report, "report.md"), "utf8")).toContain(provenance);

    // The period: November 1 to 7 inclusive; Prometheus counts 100 flagged (ungrounded) and 900 grounded answers.
    const out = join(dir, "evidence.html");
    const run = await runCli(["evidence", "--prometheus", await prometheus({ ungrounded: 100, grounded: 900, unscorable: 7 }), "--from", "2026-11-01", "--to", "2026-11-07", "--review-dir", spool, "--calibration", calibration, "--out", out]);
    expect(run.code, run.stderr).toBe(0);
    const html = readFileSync(out, "utf8");
    // The calibration record says where its labels came from.
    expect(html).toContain(`<tr><td>labels</td><td>${provenance}</td></tr>`);
    const [pl, ph] = wilson(8, 10);
    const [ml, mh] = wilson(1, 20);
    expect(html).toContain("<h2>Review of the monitor</h2>");
    expect(html).toContain(`<tr><td>precision of the flags</td><td>${pct(0.8)}</td><td>${pct(pl)}–${pct(ph)}</td><td>8 of 10 reviewed flagged answers called not grounded; 100 flagged answers in the period</td></tr>`);
    expect(html).toContain(`<tr><td>miss rate of grounded answers</td><td>${pct(0.05)}</td><td>${pct(ml)}–${pct(mh)}</td><td>1 of 20 reviewed grounded samples called not grounded; 900 grounded answers in the period</td></tr>`);
    expect(html).toContain(`<td>estimated recall</td><td>${pct(recall(0.8, 0.05, 100, 900))}</td><td>${pct(recall(pl, mh, 100, 900))}–${pct(recall(ph, ml, 100, 900))} (conservative)</td>`);
    // The same figures, written out: 80.0% (49.0–94.3), 5.0% (0.9–23.6), recall 64.0% (18.7–92.2).
    expect(html).toContain("<td>64.0%</td><td>18.7%–92.2% (conservative)</td>");
    expect(html).toContain("from Prometheus (groundwatch_evaluations_total by verdict: each series&#39; last value in the period less its last value before it)");
    expect(html).toContain("<h3>Trend (per day, UTC)</h3>");
    // Each bucket shows the range it covers (here the period starts at midnight).
    expect(html).toContain("<tr><td>2026-11-01 00:00 – 2026-11-02 00:00</td><td>2</td><td>100.0%</td><td>3</td><td>33.3%</td></tr>");
  });

  it("estimates the period's answers from the spool when Prometheus has none, and says so", async () => {
    const dir = tempDir();
    const { records, labels } = precisionFixture();
    const spool = writeSpool(join(dir, "spool"), records, labels);
    const out = join(dir, "evidence.html");
    const run = await runCli(["evidence", "--prometheus", await prometheus({}), "--from", "2026-11-01", "--to", "2026-11-07", "--review-dir", spool, "--labels", join(spool, "labels.jsonl"), "--out", out]);
    expect(run.code, run.stderr).toBe(0);
    const html = readFileSync(out, "utf8");
    const [pl, ph] = wilson(8, 10);
    const [ml, mh] = wilson(1, 20);
    // 12 flagged kept at rate 1; 25 grounded kept at 5% stand for 500: estimates, said so.
    expect(html).toContain("about 12 flagged answers in the period");
    expect(html).toContain("about 500 grounded answers in the period");
    expect(html).toContain(`<td>estimated recall</td><td>${pct(recall(0.8, 0.05, 12, 500))}</td><td>${pct(recall(pl, mh, 12, 500))}–${pct(recall(ph, ml, 12, 500))} (conservative)</td>`);
    expect(html).toContain("estimated from the spool");
  });

  it("names a --review-dir that does not exist, exit 2, before querying Prometheus", async () => {
    const run = await runCli(["evidence", "--prometheus", "http://127.0.0.1:9", "--from", "2026-11-01", "--review-dir", "/nonexistent/spool", "--out", join(tempDir(), "e.html")]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("groundwatch evidence: --review-dir /nonexistent/spool: no such directory\n");
  });
});

describe("groundwatch evidence --review-dir without Prometheus", () => {
  it("writes a report of the review alone, the period's answers estimated from the spool", async () => {
    const dir = tempDir();
    const { records, labels } = precisionFixture();
    const spool = writeSpool(join(dir, "spool"), records, labels);
    const out = join(dir, "evidence.html");
    const run = await runCli(["evidence", "--from", "2026-11-01", "--to", "2026-11-07", "--review-dir", spool, "--out", out]);
    expect(run.code, run.stderr).toBe(0);
    const html = readFileSync(out, "utf8");
    expect(html).toContain("No Prometheus was given (--prometheus)");
    expect(html).toContain("<tr><td>precision of the flags</td><td>80.0%</td><td>49.0%–94.3%</td>");
    expect(html).toContain("estimated from the spool");
    expect(html).not.toContain("Per route over the period");
  });

  it("still needs --prometheus without --review-dir", async () => {
    const run = await runCli(["evidence", "--from", "2026-11-01", "--out", join(tempDir(), "e.html")]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--prometheus must be the http(s) URL of Prometheus");
  });
});
