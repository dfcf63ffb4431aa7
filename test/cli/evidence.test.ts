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
