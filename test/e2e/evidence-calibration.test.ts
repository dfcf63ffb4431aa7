import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readCalibrationFile } from "../../src/config/calibration-file.ts";
import { loadOfflineModel } from "../../src/nli/offline/backend.ts";
import { runCli, tempDir } from "../helpers/cli.ts";
import { prometheusAvailable, startPrometheus } from "../helpers/prometheus.ts";
import { metric, startServe } from "../helpers/serve.ts";

const DOC = "Returns: unopened items may be returned within 30 days of delivery for a full refund.";
const GOOD = "Unopened items may be returned within 30 days of delivery.";
const BAD = "Items may be returned within 90 days in any condition.";
const EXAMPLE = join(import.meta.dirname, "../../examples/labelled.jsonl");

/** A labelled set of the user's own, calibrated with the offline backend; returns calibration.json's path. */
async function calibrateOwn(dir: string): Promise<string> {
  const set = join(dir, "mine.jsonl");
  writeFileSync(set, Array.from({ length: 8 }, (_, i) => JSON.stringify({ id: i, context: [DOC], answer: i % 2 ? BAD : GOOD, label: i % 2 ? 0 : 1 })).join("\n") + "\n");
  const out = join(dir, "calibration.json");
  const run = await runCli(["calibrate", "--set", set, "--out", out, "--backend", "offline"]);
  expect(run.code, run.stderr).toBe(0);
  return out;
}

// Issue 25: evidence could not say which threshold the collector used, nor notice a calibration file
// that was not the collector's; a calibration on groundwatch's own examples passed everywhere.
describe.skipIf(!prometheusAvailable())("evidence against a real Prometheus scraping groundwatch serve", () => {
  it("reports the threshold and calibration the collector used, and flags a calibration file it did not use", { timeout: 120_000 }, async () => {
    const dir = tempDir();
    const used = await calibrateOwn(dir);
    const cal = readCalibrationFile(used);
    // Another calibration: the same record with another threshold, so another id.
    const other = join(dir, "other.json");
    writeFileSync(other, JSON.stringify({ ...JSON.parse(readFileSync(used, "utf8")), threshold: 0.9 }));
    const start = Math.floor(Date.now() / 1000) - 5;
    const serve = await startServe(["--port", "0", "--sample-rate", "1", "--calibration", used], {}).started;
    expect(serve.output()).toContain(`(${used}, id ${cal.id})`);
    expect(serve.output()).not.toContain("WARNING");
    const prom = await startPrometheus(serve.url.replace("http://", ""));
    const post = async (): Promise<void> => {
      const res = await fetch(`${serve.url}/v1/observations`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify([GOOD, BAD].map((answer) => ({ route: "/api/returns", context: [DOC], answer }))) });
      expect(res.status).toBe(202);
    };
    await post();
    // Prometheus has scraped what the collector scored with.
    await expect.poll(async () => (await prom.query("groundwatch_scoring_info")).map((r) => r.metric.groundwatch_calibration_id), { timeout: 60_000, interval: 250 }).toEqual([cal.id]);
    // A second batch once the first is scraped, so the period's increase() has two samples to count from.
    await post();
    await expect.poll(async () => Number((await prom.query("sum(groundwatch_evaluations_total)"))[0]?.value[1] ?? 0), { timeout: 60_000, interval: 250 }).toBe(4);
    const evidence = async (file: string): Promise<string> => {
      const out = join(dir, "evidence.html");
      const run = await runCli(["evidence", "--prometheus", prom.url, "--from", String(start), "--to", String(Math.floor(Date.now() / 1000) + 1), "--calibration", file, "--out", out]);
      expect(run.code, run.stderr).toBe(0);
      const html = readFileSync(out, "utf8");
      return html.slice(0, html.indexOf("<h2>Per route over the period</h2>"));
    };
    const top = await evidence(used);
    expect(top).toContain(`The collector scored this period with threshold ${cal.threshold}, backend offline/${loadOfflineModel().version} (triage), calibration id ${cal.id}.`);
    expect(top).not.toContain("is not what the collector scored with");
    expect(top).toContain("All of this period was scored by the triage backend");
    const flagged = await evidence(other);
    expect(flagged).toContain(`The calibration file passed to this report (${other}, id ${readCalibrationFile(other).id}, threshold 0.9) is not what the collector scored with: the collector did not use this calibration file.`);
  });
});

describe("groundwatch serve with a calibration on groundwatch's bundled examples", () => {
  it("warns on its banner, and refuses and counts the drift reference on /metrics", { timeout: 60_000 }, async () => {
    const dir = tempDir();
    // Under another name: the bytes, not the path, make it the example.
    const set = join(dir, "labels.jsonl");
    copyFileSync(EXAMPLE, set);
    const cal = join(dir, "calibration.json");
    expect((await runCli(["calibrate", "--set", set, "--out", cal, "--backend", "offline"])).code).toBe(0);
    const serve = await startServe(["--port", "0", "--calibration", cal], {}).started;
    expect(serve.output()).toMatch(/WARNING +calibration: calibrated on groundwatch's bundled examples \(.*labels\.jsonl\), not your data/);
    expect(serve.output()).toMatch(/drift +no reference — REFUSED, the calibration's reference is refused: it was fitted on groundwatch's bundled examples/);
    const text = await (await fetch(`${serve.url}/metrics`)).text();
    expect(metric(text, "groundwatch_drift_reference_refused_total", 'groundwatch_reason="bundled_examples"')).toBe(1);
  });
});
