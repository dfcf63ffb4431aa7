import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readCalibrationFile } from "../../src/config/calibration-file.ts";
import { runCli, tempDir } from "../helpers/cli.ts";
import { verdictSet } from "../helpers/verdict-set.ts";

// Issue 36: on 472 reviewed answers calibrate printed TPR 100.0% and FPR 13.8%, while eval
// --calibration on the same rows passed 44 of 131 grounded answers: the threshold was stored
// rounded up past 29 grounded answers' score, and answers with a contradicted claim (ungrounded at
// any threshold) were counted by score alone.

/** calibrate's printed rates: "TPR …, FPR …, precision …" after "threshold T (criterion): ". */
const ratesOf = (stdout: string): string => /^threshold \S+ \(\w+\): (TPR .*)$/m.exec(stdout)?.[1] ?? "(no rates printed)";

describe("calibrate's rates are the verdicts the scorer gives", () => {
  it("prints the TPR and FPR that eval --calibration counts on the same set, contradicted answers and repeated scores included", async () => {
    const set = verdictSet();
    for (const criterion of ["youden", "f1", "accuracy", "target_recall"]) {
      const out = join(tempDir(), "calibration.json");
      const cal = await runCli(["calibrate", "--set", set, "--out", out, "--backend", "offline", "--criterion", criterion, "--target-recall", "0.8"]);
      expect(cal.code, cal.stderr).toBeLessThan(2);
      const file = JSON.parse(readFileSync(out, "utf8")) as { threshold: number; fittedRows: Array<{ score: number; label: number; blocked?: string }> };
      // The set exercises what the old arithmetic got wrong: a contradicted answer scoring at or over the threshold, and one score shared by several grounded rows.
      expect(file.fittedRows.some((r) => r.blocked === "contradicted" && r.score >= file.threshold), criterion).toBe(true);
      const shared = new Map<number, number>();
      for (const r of file.fittedRows) if (r.label === 1) shared.set(r.score, (shared.get(r.score) ?? 0) + 1);
      expect(Math.max(...shared.values())).toBeGreaterThanOrEqual(3);
      const ev = await runCli(["eval", "--set", set, "--calibration", out, "--backend", "offline", "--out", tempDir()]);
      expect(ev.stdout, ev.stderr).toContain(ratesOf(cal.stdout));
      // The file reads back as the threshold calibrate counted with.
      expect(readCalibrationFile(out, "--calibration", { requireReferenceScores: false }).threshold).toBe(file.threshold);
    }
  });

  it("says, before writing, what the new threshold does to each class beside the threshold in force, and warns when it catches fewer", async () => {
    const set = verdictSet({ partlyWrong: true });
    const out = join(tempDir(), "calibration.json");
    const old = join(tempDir(), "old.json");
    writeFileSync(old, JSON.stringify({ threshold: 0.5, referenceScores: [0.5] }));
    const run = await runCli(["calibrate", "--set", set, "--out", out, "--backend", "offline", "--compare", old]);
    const file = JSON.parse(readFileSync(out, "utf8")) as { threshold: number; comparison: { inForce: { threshold: number }; classes: Array<{ name: string; rows: number; right: { inForce: number; proposed: number } }> } };
    // The fitted threshold is lower than 0.5: every grounded answer passes, one partly wrong answer more gets through.
    expect(file.threshold).toBeLessThan(0.42);
    expect(run.stdout).toContain(`beside the threshold in force (0.5: ${old} (--compare))`);
    expect(run.stdout).toMatch(/grounded \(label 1\): passed\s+11 of 19 \(57\.9%\)\s+→ 19 of 19 \(100\.0%\)\s+\(\+8\)/);
    expect(run.stdout).toMatch(/not grounded, generation: caught\s+7 of 8 \(87\.5%\)\s+→ 6 of 8 \(75\.0%\)\s+\(-1\)/);
    expect(run.stdout).toMatch(/not grounded, retrieval: caught\s+7 of 7 \(100\.0%\)\s+→ 7 of 7/);
    expect(run.stdout).toMatch(/not grounded, unlabelled: caught\s+2 of 2/);
    expect(run.stdout.indexOf("what it does to each class")).toBeLessThan(run.stdout.indexOf("wrote "));
    expect(run.stderr).toContain("the new threshold does worse than the one in force on generation answers: 1 fewer caught");
    expect(file.comparison.inForce.threshold).toBe(0.5);
    expect(file.comparison.classes.find((c) => c.name === "generation")).toEqual({ name: "generation", label: 0, rows: 8, right: { inForce: 7, proposed: 6 } });
    // Without --compare, the calibration being replaced is the one in force.
    const again = await runCli(["calibrate", "--set", set, "--out", out, "--backend", "offline"]);
    expect(again.stdout).toContain(`beside the threshold in force (${file.threshold}: ${out}, the calibration this run replaces)`);
    expect(again.stderr).not.toContain("does worse");
  });

  it("reads --compare before scoring a row", async () => {
    const run = await runCli(["calibrate", "--set", verdictSet(), "--out", join(tempDir(), "c.json"), "--backend", "offline", "--compare", join(tempDir(), "missing.json")]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("cannot read --compare");
    expect(run.stdout).toBe("");
  });
});
