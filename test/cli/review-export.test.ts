import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readCalibrationFile } from "../../src/config/calibration-file.ts";
import { runCli, tempDir } from "../helpers/cli.ts";
import { reviewLabel, spoolRecord, writeSpool } from "../helpers/review-spool.ts";

/** 6 flagged and 6 grounded samples, each labelled by ann; bob splits one answer 1–1 with her, and agrees on another. */
function spoolWithLabels(dir: string): string {
  const flagged = Array.from({ length: 6 }, (_, i) => spoolRecord(`f${i}`, "flagged", `2026-11-0${i + 1}T10:00:00.000Z`));
  const grounded = Array.from({ length: 6 }, (_, i) => spoolRecord(`g${i}`, "grounded_sample", `2026-11-0${i + 2}T11:00:00.000Z`));
  // ann agrees with groundwatch except on f5 (she says grounded) and g5 (she says not grounded).
  const labels = [...flagged.map((r, i) => reviewLabel(r, "ann", i === 5 ? 1 : 0)), ...grounded.map((r, i) => reviewLabel(r, "ann", i === 5 ? 0 : 1)), reviewLabel(flagged[0]!, "bob", 1), reviewLabel(grounded[0]!, "bob", 1)];
  return writeSpool(dir, [...flagged, ...grounded], labels);
}

describe("groundwatch review export", () => {
  it("writes the reviewed answers as rows, counting the tie it leaves out", async () => {
    const dir = tempDir();
    const spool = spoolWithLabels(join(dir, "spool"));
    const out = join(dir, "reviewed.jsonl");
    const run = await runCli(["review", "export", "--dir", spool, "--out", out]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`wrote 11 rows to ${out}; left out: 1 tied (reviewers evenly split)\n`);
    const rows = readFileSync(out, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { id: string; label: number; review: { reviewers: string[]; agreement: string } });
    expect(rows.map((r) => r.id)).not.toContain("f0");
    expect(rows.find((r) => r.id === "g0")?.review.reviewers).toEqual(["ann", "bob"]);
  });

  it("keeps only the disagreements with --only disagreements, and rejects a bad --only", async () => {
    const dir = tempDir();
    const spool = spoolWithLabels(join(dir, "spool"));
    const out = join(dir, "regressions.jsonl");
    const run = await runCli(["review", "export", "--dir", spool, "--out", out, "--only", "disagreements"]);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(out, "utf8").trim().split("\n").map((l) => (JSON.parse(l) as { id: string }).id)).toEqual(["f5", "g5"]);
    const bad = await runCli(["review", "export", "--dir", spool, "--out", out, "--only", "some"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--only must be one of all, disagreements (got "some")');
  });

  it("feeds calibrate and eval as it is, and both name the production provenance", async () => {
    const dir = tempDir();
    const spool = spoolWithLabels(join(dir, "spool"));
    const set = join(dir, "reviewed.jsonl");
    expect((await runCli(["review", "export", "--dir", spool, "--out", set])).code).toBe(0);
    const calibration = join(dir, "calibration.json");
    const cal = await runCli(["calibrate", "--set", set, "--backend", "offline", "--out", calibration]);
    expect(cal.code, cal.stderr).toBeLessThan(2);
    const sentence = "labels from production review: 11 answers by 2 reviewers, from 2026-11-02T10:00:00.000Z to 2026-11-07T11:00:00.000Z";
    expect(cal.stdout).toContain(`${sentence} (dataset.production in calibration.json)`);
    const production = { rows: 11, reviewers: 2, from: "2026-11-02T10:00:00.000Z", to: "2026-11-07T11:00:00.000Z" };
    expect((JSON.parse(readFileSync(calibration, "utf8")) as { dataset: { production: unknown; bundled: boolean } }).dataset).toMatchObject({ production, bundled: false });
    expect(readCalibrationFile(calibration).dataset?.production).toEqual(production);
    const out = join(dir, "report");
    const ev = await runCli(["eval", "--set", set, "--backend", "offline", "--no-gate", "--out", out]);
    expect(ev.code, ev.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as { production: unknown; notices: string[] };
    expect(report.production).toEqual(production);
    expect(report.notices).toContain(sentence);
    for (const file of ["report.md", "report.html", "junit.xml"]) expect(readFileSync(join(out, file), "utf8"), file).toContain("labels from production review: 11 answers by 2 reviewers");
  });

  it("says nothing of production for a set without review fields", async () => {
    const dir = tempDir();
    const out = join(dir, "report");
    const ev = await runCli(["eval", "--set", "examples/labelled.jsonl", "--backend", "offline", "--no-gate", "--out", out]);
    expect(ev.code, ev.stderr).toBe(0);
    expect(readFileSync(join(out, "report.json"), "utf8")).not.toContain("production review");
  });
});

describe("groundwatch eval --min-label-agreement on a regressions set", () => {
  it("fails the gate while groundwatch still disagrees with the reviewers, naming the criterion in every report", async () => {
    const dir = tempDir();
    const spool = spoolWithLabels(join(dir, "spool"));
    const set = join(dir, "regressions.jsonl");
    expect((await runCli(["review", "export", "--dir", spool, "--out", set, "--only", "disagreements"])).code).toBe(0);
    const out = join(dir, "report");
    const ev = await runCli(["eval", "--set", set, "--backend", "offline", "--max-hallucination-rate", "1", "--min-label-agreement", "0.5", "--out", out]);
    expect(ev.code, ev.stderr).toBe(1);
    const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as { gate: { criteria: Array<{ name: string; measured: number | null; passed: boolean }>; failures: string[] } };
    expect(report.gate.criteria.find((c) => c.name === "minLabelAgreement")).toMatchObject({ measured: 0, passed: false });
    expect(report.gate.failures).toContain("label agreement 0.0% (0 of 2 labelled rows scored agree with their label) is below the minimum 50.0%");
    expect(readFileSync(join(out, "report.md"), "utf8")).toContain("label agreement ≥ 50.0% (flag --min-label-agreement)");
    expect(readFileSync(join(out, "junit.xml"), "utf8")).toContain("label agreement");
  });

  it("passes when enough labelled rows agree, and fails a set without labels as not measurable", async () => {
    const dir = tempDir();
    const spool = spoolWithLabels(join(dir, "spool"));
    const set = join(dir, "reviewed.jsonl");
    expect((await runCli(["review", "export", "--dir", spool, "--out", set])).code).toBe(0);
    const ev = await runCli(["eval", "--set", set, "--backend", "offline", "--max-hallucination-rate", "1", "--min-label-agreement", "0.8", "--out", join(dir, "r1")]);
    expect(ev.code, ev.stdout).toBe(0);
    const unlabelled = join(dir, "unlabelled.jsonl");
    writeFileSync(unlabelled, `${JSON.stringify({ id: 1, question: "q", context: "The sky is blue.", answer: "The sky is blue." })}\n`);
    const none = await runCli(["eval", "--set", unlabelled, "--backend", "offline", "--min-label-agreement", "0.8", "--out", join(dir, "r2")]);
    expect(none.code).toBe(1);
    expect(none.stdout).toContain("label agreement not measurable: no row has a label and a verdict to compare it with");
  });

  it("is refused with --no-gate", async () => {
    const run = await runCli(["eval", "--set", "examples/labelled.jsonl", "--no-gate", "--min-label-agreement", "0.9"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--no-gate runs without a gate, so --min-label-agreement would not apply");
  });
});
