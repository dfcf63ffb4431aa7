import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scoringNotices } from "../../src/cli/evidence/scoring.ts";
import { loadOfflineModel } from "../../src/nli/offline/backend.ts";
import { createScorer } from "../../src/sdk/create-scorer.ts";
import { tempDir } from "../helpers/cli.ts";
import { RETURNS_DOC, postJson, startTestCollector } from "../helpers/collector.ts";
import { metric } from "../helpers/serve.ts";

const GOOD = "You may return unopened items within 30 days of delivery.";
const BAD = "You may return any item within 90 days, opened or not.";

/** calibration.json as calibrate writes it from a review export, with `driftReference`. */
function reviewCalibration(driftReference: unknown): string {
  const path = join(tempDir(), "calibration.json");
  const backend = { name: "offline", version: loadOfflineModel().version, tier: "triage" };
  writeFileSync(path, JSON.stringify({ version: 1, backend, threshold: 0.42, dataset: { path: "reviewed.jsonl", rows: 60, sha256: "f".repeat(64), bundled: false }, auroc: { value: 0.96, low: 0.9, high: 1 }, verdict: "pass", referenceScores: [], driftReference }));
  return path;
}

async function scoreOf(answer: string): Promise<number> {
  const scorer = await createScorer({ backend: "offline" });
  try {
    const r = await scorer.score({ answer, context: [RETURNS_DOC] });
    if (r.score === null) throw new Error("unscorable");
    return r.score;
  } finally {
    await scorer.close();
  }
}

// Issue 36: serve compared every route's live scores with one pooled review sample.
describe("groundwatch serve with a per-route drift reference from production review", () => {
  it("compares each route with its own reference on /metrics, and counts a route the reference does not name", { timeout: 60_000 }, async () => {
    const [good, bad] = [await scoreOf(GOOD), await scoreOf(BAD)];
    const ref = (route: string, score: number): unknown => ({ route, scores: Array.from({ length: 30 }, () => score), weights: Array.from({ length: 30 }, () => 1) });
    const calibrationFile = reviewCalibration({ weighting: "sample_rate", routes: [ref("/returns", good), ref("/complaints", bad)] });
    const serve = await startTestCollector({ monitor: { calibrationFile, drift: { windowSize: 20, minScores: 20 } } });
    const observations = Array.from({ length: 20 }, () => [
      { route: "/returns", context: [RETURNS_DOC], answer: GOOD },
      { route: "/complaints", context: [RETURNS_DOC], answer: BAD },
      { route: "/new", context: [RETURNS_DOC], answer: GOOD },
    ]).flat();
    expect((await postJson(`${serve.url}/v1/observations`, observations)).status).toBe(202);
    await expect.poll(async () => metric(await (await fetch(`${serve.url}/metrics`)).text(), "groundwatch_drift_p_value", 'groundwatch_route="/complaints"'), { timeout: 30_000, interval: 100 }).toBe(1);
    const text = await (await fetch(`${serve.url}/metrics`)).text();
    expect(metric(text, "groundwatch_drift_p_value", 'groundwatch_route="/returns"')).toBe(1);
    expect(text).not.toMatch(/groundwatch_drift_p_value\{[^}]*groundwatch_route="\/new"/);
    expect(metric(text, "groundwatch_drift_reference_refused_total", 'groundwatch_reason="no_route_reference"')).toBe(1);
  });

  it("is refused on /metrics with its reason when its rows cannot stand for live traffic, and evidence says why", { timeout: 60_000 }, async () => {
    const serve = await startTestCollector({ monitor: { calibrationFile: reviewCalibration({ refused: { reason: "mixed_set", rows: 4 } }) } });
    const text = await (await fetch(`${serve.url}/metrics`)).text();
    expect(metric(text, "groundwatch_drift_reference_refused_total", 'groundwatch_reason="mixed_set"')).toBe(1);
    const html = scoringNotices({ used: [], calibration: undefined, driftRefused: ["mixed_set", "no_route_reference"], backends: [] });
    expect(html).toContain("Drift: the collector refused the calibration&#39;s reference scores (the calibration&#39;s set mixed answers from production review with another labelled set)");
    expect(html).toContain("the calibration&#39;s per-route reference does not name some of the routes scored in this period");
  });
});
