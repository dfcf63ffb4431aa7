import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readCalibrationFile, withCalibratedThresholds } from "../../src/config/calibration-file.ts";
import { ConfigError } from "../../src/config/errors.ts";
import { resolveScoreOptions } from "../../src/config/score-options.ts";
import { resolveMonitorOptions } from "../../src/sdk/options.ts";
import { runCli, tempDir } from "../helpers/cli.ts";
import { cascadeCollector } from "../../src/cli/calibrate/cascade.ts";
import type { CommandIo } from "../../src/cli/shared/io.ts";
import { PassThrough } from "node:stream";

const DOCS = [
  "Returns: unopened items may be returned within 30 days of delivery for a full refund.",
  "Shipping: standard shipping is free on orders over $50; express shipping costs $15.",
  "Warranty: electronics have a one-year warranty covering manufacturing defects.",
];
const GOOD = ["Unopened items may be returned within 30 days of delivery.", "Standard shipping is free on orders over $50.", "Electronics have a one-year warranty covering manufacturing defects."];
const BAD = ["Our loyalty points never expire for gold members.", "The cafeteria serves vegan lunches on Fridays.", "Parking is validated at the front desk for two hours."];

function labelledSet(): string {
  const rows: unknown[] = [];
  for (let i = 0; i < 60; i++) {
    const k = i % 3;
    const grounded = i % 2 === 0;
    rows.push({ id: `r${i}`, context: [DOCS[k]], answer: grounded ? GOOD[k] : BAD[k], label: grounded ? 1 : 0 });
  }
  const path = join(tempDir(), "labelled.jsonl");
  writeFileSync(path, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  return path;
}

describe("calibrate and the cascade's thresholds", () => {
  it("refits them on half the set, checks them on the other, writes them, and a scorer using the calibration reads them back", async () => {
    const out = join(tempDir(), "calibration.json");
    const run = await runCli(["calibrate", "--set", labelledSet(), "--out", out, "--backend", "offline"]);
    expect(run.code).toBe(0);
    const cal = JSON.parse(readFileSync(out, "utf8")) as { cascade: { supportAbove: number; unsupportBelow: number; decides: boolean; check: { saved: number; accuracy: number } } };
    // Off-topic answers score near 0: the unsupported side decides them, right on the check half.
    expect(cal.cascade.decides).toBe(true);
    expect(cal.cascade.unsupportBelow).toBeGreaterThan(0);
    expect(cal.cascade.supportAbove).toBeGreaterThan(cal.cascade.unsupportBelow);
    expect(cal.cascade.check.accuracy).toBeGreaterThanOrEqual(0.97);
    expect(run.stdout).toMatch(/cascade thresholds: supportAbove [\d.]+, unsupportBelow [\d.]+ \(used with --cascade on\)/);
    // Read back where nothing explicit sets them; an explicit one wins.
    const fromFile = resolveMonitorOptions({ env: {}, calibrationFile: out }).score;
    expect(fromFile).toMatchObject({ cascadeSupportAbove: cal.cascade.supportAbove, cascadeUnsupportBelow: cal.cascade.unsupportBelow });
    const explicit = withCalibratedThresholds(resolveScoreOptions({ cascadeUnsupportBelow: 0.01 }), readCalibrationFile(out));
    expect(explicit).toMatchObject({ cascadeSupportAbove: cal.cascade.supportAbove, cascadeUnsupportBelow: 0.01 });
  });

  it("refuses a file whose cascade thresholds are out of order, naming the field", () => {
    const path = join(tempDir(), "calibration.json");
    writeFileSync(path, JSON.stringify({ threshold: 0.5, referenceScores: [0.5], cascade: { supportAbove: 0.2, unsupportBelow: 0.4 } }));
    expect(() => readCalibrationFile(path)).toThrow(ConfigError);
    expect(() => readCalibrationFile(path)).toThrow(/calibrationFile.*"cascade.supportAbove" is not above "cascade.unsupportBelow"/);
  });

  it("with a model backend, fits on the offline tier's scores of each row, not the model's", async () => {
    const io: CommandIo = { stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough(), env: {}, cwd: tempDir() };
    const collector = await cascadeCollector(resolveScoreOptions({ backend: "judge" }), { backend: { name: "judge m", version: "1", tier: "production" } }, io);
    try {
      for (let i = 0; i < 60; i++) {
        const k = i % 3;
        const grounded = i % 2 === 0;
        // The model's result is given as one with no claims: were it used, nothing could be decided.
        const model = { verdict: "ungrounded", score: 0, threshold: 0.5, claims: [], skipped: [], backend: { name: "judge m", version: "1", tier: "production" }, limits: [], entailmentCalls: 0 } as const;
        await collector.add(`r${i}`, grounded ? 1 : 0, model, { answer: grounded ? (GOOD[k] ?? "") : (BAD[k] ?? ""), context: [DOCS[k] ?? ""] });
      }
      const fit = collector.fit();
      expect(fit.decides).toBe(true);
      expect(fit.check.decidedClaims).toBeGreaterThan(0);
    } finally {
      await collector.close();
    }
  });
});
