import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { FitRow } from "../../src/core/calibration-fit.ts";
import { ratesAt } from "../../src/core/calibration-fit.ts";
import { runCli, tempDir } from "../helpers/cli.ts";
import { verdictSet } from "../helpers/verdict-set.ts";

// Issue 36: doctor said PASS for a calibration whose threshold passed 34% of the grounded answers it
// claimed to pass 100% of. It now counts the file's claims again from its fitted rows, and re-scores
// a sample of those rows from the labelled set with the scorer configured.

interface CalibrationJson {
  threshold: number;
  tpr: number;
  fpr: number;
  precision: number;
  counts: Record<string, number>;
  fittedRows: Array<FitRow & { id: string }>;
}

async function calibrated(): Promise<{ set: string; out: string; file: CalibrationJson }> {
  const set = verdictSet();
  const out = join(tempDir(), "calibration.json");
  const run = await runCli(["calibrate", "--set", set, "--out", out, "--backend", "offline"]);
  expect(run.code, run.stderr).toBe(0);
  return { set, out, file: JSON.parse(readFileSync(out, "utf8")) as CalibrationJson };
}

describe("doctor checks what a calibration claims of its threshold", () => {
  it("passes a calibration whose rates its threshold gives, and whose sampled rows re-score to the recorded verdicts", async () => {
    const { out } = await calibrated();
    const run = await runCli(["doctor", "--backend", "offline", "--calibration", out, "--recheck", "12"]);
    expect(run.stdout).toMatch(/\[PASS\] calibration rates\s+threshold [\d.]+ gives TPR [\d.]+% \(\d+ of 19 grounded answers pass\), FPR [\d.]+% \(\d+ of 15 not-grounded answers pass\), precision [\d.]+% on its 34 fitted rows, as the file says/);
    expect(run.stdout).toMatch(/\[PASS\] re-scored sample\s+re-scored 12 of 34 fitted rows at threshold [\d.]+: every verdict and score as recorded/);
  });

  it("fails a file whose claimed rates are not what its threshold gives on its rows (the threshold rounded up past tied scores)", async () => {
    const { out, file } = await calibrated();
    // As the old calibrate wrote it: the threshold rounded up past the lowest grounded score, the rates of the score before rounding.
    const lowest = Math.min(...file.fittedRows.filter((r) => r.label === 1 && !r.blocked).map((r) => r.score));
    const rounded = Number((lowest + 5e-7).toFixed(6));
    expect(rounded).toBeGreaterThan(lowest);
    writeFileSync(out, JSON.stringify({ ...file, threshold: rounded, tpr: 1, fpr: 0, counts: undefined }));
    const shown = ratesAt(file.fittedRows, rounded);
    const run = await runCli(["doctor", "--backend", "offline", "--calibration", out, "--recheck", "0"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`[FAIL] calibration rates  the file claims TPR 100.0%, FPR 0.0%, but its threshold ${rounded} gives TPR ${(100 * shown.tpr).toFixed(1)}% (${shown.groundedPassed} of 19 grounded answers pass)`);
    expect(run.stdout).toContain("run groundwatch calibrate again");
  });

  it("fails a re-score whose verdicts differ from the recorded ones, naming the rows", async () => {
    const { out, file } = await calibrated();
    // The file says one grounded row passes that the scorer holds ungrounded (as a file fitted with another scorer would).
    const victim = file.fittedRows.find((r) => r.label === 0 && r.blocked === "contradicted");
    if (!victim) throw new Error("the set has a contradicted row");
    const rows = file.fittedRows.map((r) => (r === victim ? { id: r.id, label: r.label, score: 0.99 } : r));
    const rates = ratesAt(rows, file.threshold);
    const counts = { groundedPassed: rates.groundedPassed, groundedFlagged: rates.groundedFlagged, ungroundedPassed: rates.ungroundedPassed, ungroundedFlagged: rates.ungroundedFlagged };
    writeFileSync(out, JSON.stringify({ ...file, fittedRows: rows, tpr: rates.tpr, fpr: rates.fpr, precision: rates.precision, counts }));
    const run = await runCli(["doctor", "--backend", "offline", "--calibration", out, "--recheck", "100"]);
    expect(run.stdout).toContain("[PASS] calibration rates");
    expect(run.stdout).toContain(`[FAIL] re-scored sample   re-scored 34 of 34 fitted rows at threshold ${file.threshold}: 1 verdict differs from what the file records: ${victim.id} (recorded grounded; now ungrounded, contradicted)`);
    expect(run.code).toBe(1);
  });

  it("says why it cannot re-score: the set changed, or the file predates fitted rows", async () => {
    const { out, set } = await calibrated();
    writeFileSync(set, readFileSync(set, "utf8") + JSON.stringify({ id: "late", context: ["x"], answer: "y", label: 1 }) + "\n");
    const changed = await runCli(["doctor", "--backend", "offline", "--calibration", out]);
    expect(changed.stdout).toMatch(/\[WARN\] re-scored sample .* is not the set the calibration was fitted on \(its sha256 differs\): not re-scored/);
    const old = join(tempDir(), "old.json");
    writeFileSync(old, JSON.stringify({ threshold: 0.42, tpr: 1, fpr: 0.138, referenceScores: [0.5] }));
    const older = await runCli(["doctor", "--backend", "offline", "--calibration", old]);
    expect(older.stdout).toContain("[WARN] calibration rates  the file claims TPR 100.0%, FPR 13.8% but does not record the rows they were counted on");
  });
});
