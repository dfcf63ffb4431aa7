import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, tempDir } from "../helpers/cli.ts";
import { precisionFixture, writeSpool } from "../helpers/review-spool.ts";

type Written = { referenceScores: number[]; driftReference?: { weighting?: string; routes?: Array<{ route: string; scores: number[]; weights: number[] }>; refused?: { reason: string; rows: number } } };

/** The precision fixture's spool (one route, /ask: 12 flagged answers, 10 reviewed; 25 grounded samples at 5%, 20 reviewed; one late flagged answer, reviewed) exported with `flags`, the labels of answers `keep` passes. */
async function exported(flags: string[] = [], keep: (id: string) => boolean = () => true): Promise<string> {
  const dir = tempDir();
  const { records, labels } = precisionFixture();
  const spool = writeSpool(join(dir, "spool"), records, labels.filter((l) => keep(l.id)));
  const set = join(dir, "reviewed.jsonl");
  const run = await runCli(["review", "export", "--dir", spool, "--out", set, ...flags]);
  expect(run.code, run.stderr).toBe(0);
  return set;
}

async function calibrate(set: string): Promise<{ stdout: string; stderr: string; written: Written }> {
  const out = join(tempDir(), "calibration.json");
  const run = await runCli(["calibrate", "--set", set, "--backend", "offline", "--out", out]);
  expect(run.code, run.stderr).toBeLessThan(2);
  return { stdout: run.stdout, stderr: run.stderr, written: JSON.parse(readFileSync(out, "utf8")) as Written };
}

// Issue 36: calibrate wrote a review export's scores, every flagged answer and a 5% grounded sample pooled, as the drift reference of every route.
describe("calibrate's drift reference from a review export", () => {
  it("weights each reviewed answer by the chance it had of being in the set, per route, and says so", async () => {
    const { stdout, written } = await calibrate(await exported());
    expect(written.referenceScores).toEqual([]);
    const [ask] = written.driftReference?.routes ?? [];
    expect(written.driftReference?.weighting).toBe("sample_rate");
    expect(ask?.route).toBe("/ask");
    // 11 of 13 flagged answers reviewed: each stands for 13/11; 20 of 25 grounded samples at 5%: each for 25.
    const weights = [...new Set(ask?.weights.map((w) => w.toFixed(6)))].sort();
    expect(weights).toEqual([(13 / 11).toFixed(6), (25).toFixed(6)]);
    expect(ask?.scores).toHaveLength(31);
    expect(stdout).toContain("drift reference: per route, each reviewed answer weighted by the rate it was sampled at (/ask: 31 rows, worth 21 answers)\n");
    expect(stdout).not.toContain("worth fewer than drift.minScores");
  });

  it("says which routes' references are worth too few answers for drift to use", async () => {
    // 5 of the 25 grounded samples reviewed: each stands for 100 answers, and the route's reference rests on those 5.
    const { stdout } = await calibrate(await exported([], (id) => !/^g([5-9]|\d\d)$/.test(id)));
    expect(stdout).toMatch(/^ {2}worth fewer than drift\.minScores \(20\) answers, so drift on that route will use its first window instead: \/ask: 16 rows, worth \d+ answers; review more of its grounded sample to give it one$/m);
  });

  it("refuses a set whose rows cannot stand for live traffic, writing why and saying it", async () => {
    const disagreements = await calibrate(await exported(["--only", "disagreements"]));
    expect(disagreements.written).toMatchObject({ referenceScores: [], driftReference: { refused: { reason: "selected_by_label", rows: 4 } } });
    expect(disagreements.stderr).toContain("groundwatch calibrate: WARNING: no drift reference written: the set was exported for its labels (review export --only disagreements: 4 rows)");

    const set = await exported();
    const plain = [1, 2].map((i) => JSON.stringify({ id: `plain-${i}`, context: ["The office is in Paris."], answer: "The office is in Paris.", label: 1 }));
    writeFileSync(set, `${readFileSync(set, "utf8")}${plain.join("\n")}\n`);
    const mixed = await calibrate(set);
    expect(mixed.written.driftReference).toEqual({ refused: { reason: "mixed_set", rows: 2 } });
    expect(mixed.stderr).toContain("the set mixes answers from production review with 2 rows of another labelled set");

    // Rows exported by an older groundwatch: their review has no sample rate.
    const older = await exported();
    writeFileSync(older, readFileSync(older, "utf8").split("\n").filter((l) => l !== "").map((l) => { const row = JSON.parse(l) as { review: Record<string, unknown> }; delete row.review.sampleRate; delete row.review.reviewedShare; return JSON.stringify(row); }).join("\n") + "\n");
    const unweighted = await calibrate(older);
    expect(unweighted.written.driftReference).toEqual({ refused: { reason: "no_sample_rate", rows: 31 } });
    expect(unweighted.stderr).toContain("31 rows from production review do not say their route and the rate they were sampled at");
  });
});
