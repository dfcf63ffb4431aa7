import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { runCli, tempDir } from "../helpers/cli.ts";

/** A Prometheus that answers every query with one series for a hostile route; closed when the test ends. */
async function fakePrometheus(route: string): Promise<{ url: string; queries: string[] }> {
  const queries: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    queries.push(url.searchParams.get("query") ?? "");
    const range = url.pathname.endsWith("query_range");
    const result = [{ metric: { groundwatch_route: route, alertname: route, severity: route, groundwatch_backend_name: route, groundwatch_backend_tier: route }, ...(range ? { values: [[1_700_000_000, "0.5"]] } : { value: [1_700_000_000, "3"] }) }];
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ status: "success", data: { result } }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, queries };
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
});
