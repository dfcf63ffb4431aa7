import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveMonitorOptions } from "../../src/sdk/options.ts";
import { runCli, tempDir } from "../helpers/cli.ts";

const DOCS = [
  "Returns: unopened items may be returned within 30 days of delivery for a full refund.",
  "Shipping: standard shipping is free on orders over $50; express shipping costs $15.",
  "Warranty: electronics have a one-year warranty covering manufacturing defects.",
];
const GOOD = ["Unopened items may be returned within 30 days of delivery.", "Standard shipping is free on orders over $50.", "Electronics have a one-year warranty covering manufacturing defects."];
const BAD = ["Items may be returned within 90 days in any condition.", "International shipping is free to every country in Europe.", "The warranty covers accidental damage, theft and water damage for ten years."];

function labelledSet(flip = false): string {
  const rows: unknown[] = [];
  for (let i = 0; i < 24; i++) {
    const k = i % 3;
    const grounded = i % 2 === 0;
    rows.push({ id: `r${i}`, context: [DOCS[k]], answer: grounded ? GOOD[k] : BAD[k], label: flip ? (grounded ? 0 : 1) : grounded ? 1 : 0 });
  }
  const path = join(tempDir(), "labelled.jsonl");
  writeFileSync(path, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  return path;
}

describe("groundwatch calibrate", () => {
  it("reports AUROC with its interval, picks a threshold, and writes calibration.json", async () => {
    const set = labelledSet();
    const out = join(tempDir(), "calibration.json");
    const run = await runCli(["calibrate", "--set", set, "--criterion", "youden", "--out", out, "--backend", "offline"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/AUROC 1\.000 \[0\.\d{3}, 1\.000\] on 24 rows \(12 grounded, 12 not\) — perfect separation; interval continuity-corrected/);
    expect(run.stdout).toContain("PASS: the interval excludes 0.5");
    const cal = JSON.parse(readFileSync(out, "utf8")) as Record<string, unknown>;
    expect(cal).toMatchObject({ criterion: "youden", tpr: 1, fpr: 0, verdict: "pass", backend: { name: "offline", tier: "triage" }, dataset: { rows: 24, positives: 12, negatives: 12 } });
    expect((cal.referenceScores as number[]).length).toBe(24);
    // The SDK and the collector take the threshold and the drift reference from it.
    const resolved = resolveMonitorOptions({ env: {}, calibrationFile: out });
    expect(resolved.score.threshold).toBe(cal.threshold);
    expect(resolved.drift.reference).toHaveLength(24);
  });

  // Issue 14: unscorable rows were fitted as score 0, so a correct refusal labelled 1 became a review candidate.
  it("leaves unscorable rows out of the fit, counts them, and never lists them as review candidates", async () => {
    const set = labelledSet();
    const refusals = [
      { id: "refusal-1", context: [DOCS[0]], answer: "I don't know.", label: 1 },
      { id: "refusal-2", context: [DOCS[1]], answer: "I don't know.", label: 1 },
      { id: "no-context", context: [""], answer: GOOD[2], label: 0 },
    ];
    writeFileSync(set, readFileSync(set, "utf8") + refusals.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const out = join(tempDir(), "calibration.json");
    const run = await runCli(["calibrate", "--set", set, "--out", out, "--backend", "offline", "--audit-size", "40"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("excluded 3 unscorable rows from the fit (2 labelled grounded, 1 not)");
    expect(run.stdout).toMatch(/AUROC 1\.000 \[0\.\d{3}, 1\.000\] on 24 rows \(12 grounded, 12 not\)/);
    expect(run.stdout).not.toMatch(/refusal-|no-context/);
    const cal = JSON.parse(readFileSync(out, "utf8")) as { dataset: unknown; excluded: unknown; unscorablePolicy: string; referenceScores: number[]; audit: Array<{ id: string }> };
    expect(cal).toMatchObject({ dataset: { rows: 24, positives: 12, negatives: 12, unscorable: 3 }, excluded: { unscorable: 3 }, unscorablePolicy: "exclude" });
    expect(cal.referenceScores).toHaveLength(24);
    expect(cal.audit.length).toBeGreaterThan(0);
    expect(cal.audit.map((a) => a.id)).not.toEqual(expect.arrayContaining([expect.stringMatching(/refusal|no-context/)]));

    // --unscorable as-ungrounded fits them as score 0 (the old behaviour); they are still never review candidates,
    // and never drift reference scores (live unscorable answers have no score).
    const asUngrounded = await runCli(["calibrate", "--set", set, "--out", out, "--backend", "offline", "--audit-size", "40", "--unscorable", "as-ungrounded"]);
    expect(asUngrounded.stdout).toContain("fitted 3 unscorable rows as score 0, flagged at every threshold (2 labelled grounded, 1 not; --unscorable as-ungrounded)");
    expect(asUngrounded.stdout).toMatch(/on 27 rows \(14 grounded, 13 not\)/);
    expect(asUngrounded.stdout).not.toMatch(/refusal-|no-context/);
    const cal2 = JSON.parse(readFileSync(out, "utf8")) as typeof cal;
    expect(cal2).toMatchObject({ dataset: { rows: 27, unscorable: 3 }, excluded: { unscorable: 0 }, unscorablePolicy: "as-ungrounded" });
    expect(cal2.referenceScores).toHaveLength(24);
    expect(cal2.audit.map((a) => a.id)).not.toEqual(expect.arrayContaining([expect.stringMatching(/refusal|no-context/)]));
  });

  it("refuses an unknown --unscorable policy, and says when excluding leaves one label", async () => {
    const bad = await runCli(["calibrate", "--set", labelledSet(), "--unscorable", "zero", "--backend", "offline"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--unscorable must be one of exclude, as-ungrounded (got "zero")');
    const path = join(tempDir(), "refusals.jsonl");
    writeFileSync(path, [{ id: 1, context: [DOCS[0]], answer: GOOD[0], label: 1 }, { id: 2, context: [DOCS[0]], answer: "I don't know.", label: 0 }].map((r) => JSON.stringify(r)).join("\n") + "\n");
    const one = await runCli(["calibrate", "--set", path, "--out", join(tempDir(), "c.json"), "--backend", "offline"]);
    expect(one.code).toBe(2);
    expect(one.stderr).toContain("the set needs both labels after excluding 1 unscorable row (--unscorable exclude): it has 1 grounded and 0 not grounded rows");
  });

  it("names anti-correlated labels instead of fitting a nonsense threshold, and exits 1", async () => {
    const run = await runCli(["calibrate", "--set", labelledSet(true), "--out", join(tempDir(), "c.json"), "--backend", "offline"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("FAIL: ANTI-CORRELATED");
    expect(run.stdout).toContain("label review candidates");
  });

  it("fails a weak result and says how many more labels would settle it", async () => {
    const path = join(tempDir(), "weak.jsonl");
    const rows = [
      { id: 1, context: [DOCS[0]], answer: GOOD[0], label: 1 },
      { id: 2, context: [DOCS[1]], answer: BAD[1], label: 1 },
      { id: 3, context: [DOCS[2]], answer: GOOD[2], label: 0 },
      { id: 4, context: [DOCS[0]], answer: BAD[0], label: 0 },
      { id: 5, context: [DOCS[1]], answer: GOOD[1], label: 1 },
      { id: 6, context: [DOCS[2]], answer: BAD[2], label: 0 },
    ];
    writeFileSync(path, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const run = await runCli(["calibrate", "--set", path, "--out", join(tempDir(), "c.json"), "--backend", "offline"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/FAIL: the interval includes 0\.5 — this set has not established a signal\. (About \d+ more labelled rows would settle it|No realistic set would settle it)/);
  });

  it("refuses a set with one label, a bad label, and an unknown criterion", async () => {
    const path = join(tempDir(), "one.jsonl");
    writeFileSync(path, `${JSON.stringify({ id: 1, context: "x", answer: "y", label: 1 })}\n`);
    expect((await runCli(["calibrate", "--set", path, "--backend", "offline"])).stderr).toContain("the set needs both labels");
    writeFileSync(path, `${JSON.stringify({ id: 1, context: "x", answer: "y", label: "yes" })}\n`);
    expect((await runCli(["calibrate", "--set", path, "--backend", "offline"])).stderr).toContain('line 1: "label" must be 1 (grounded) or 0 (not grounded) (got "yes")');
    const bad = await runCli(["calibrate", "--set", path, "--criterion", "best"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--criterion must be one of youden, f1, accuracy, target_fpr, target_recall");
  });

  // Regression: a repeated id was accepted, so a review candidate could name two rows.
  it("refuses a set that repeats a row id, naming both lines", async () => {
    const path = join(tempDir(), "dup.jsonl");
    writeFileSync(path, [{ id: 7, context: "x", answer: "y", label: 1 }, { id: "7", context: "x", answer: "z", label: 0 }].map((r) => JSON.stringify(r)).join("\n") + "\n");
    const run = await runCli(["calibrate", "--set", path, "--out", join(tempDir(), "calibration.json"), "--backend", "offline"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("line 2: id \"7\" is already used on line 1");
  });
});
