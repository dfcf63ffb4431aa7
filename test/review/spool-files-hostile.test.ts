import { lstatSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openReviewSession } from "../../src/review/session.ts";
import { labelsPath, segmentFiles, segmentName } from "../../src/review/spool-files.ts";
import { runCli, tempDir } from "../helpers/cli.ts";
import { fifo, reviewLabel, spoolRecord, writeSpool } from "../helpers/review-spool.ts";

const T1 = "5b8efff798038103d269b633813fc60c";
const f1 = spoolRecord("f1", "flagged", "2026-11-01T10:00:00.000Z");
const g1 = spoolRecord("g1", "grounded_sample", "2026-11-01T11:00:00.000Z");

/** A spool with two labelled answers, plus a segment-named link to /dev/zero and a segment-named FIFO (named to sort after the real segment). */
function hostileSpool(): string {
  const dir = writeSpool(join(tempDir(), "spool"), [f1, g1], [reviewLabel(f1, "ann", 0), reviewLabel(g1, "ann", 1)]);
  symlinkSync("/dev/zero", join(dir, segmentName("r1", Date.parse("2026-11-02T00:00:00Z"), 0)));
  fifo(join(dir, segmentName("r2", Date.parse("2026-11-03T00:00:00Z"), 0)));
  return dir;
}

describe("review commands over a spool where someone planted links and FIFOs", () => {
  it("review export passes over a segment-named link to /dev/zero and a segment-named FIFO, names them on stderr, and exports the rest", async () => {
    const dir = hostileSpool();
    const out = join(tempDir(), "rows.jsonl");
    const run = await runCli(["review", "export", "--dir", dir, "--out", out]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`wrote 2 rows to ${out}\n`);
    const [, zero, pipe] = segmentFiles(dir);
    expect(run.stderr).toBe(`groundwatch review export: passed over ${zero}: not a regular file (a link, FIFO, socket, device or directory)\ngroundwatch review export: passed over ${pipe}: not a regular file (a link, FIFO, socket, device or directory)\n`);
  });

  it("evidence --review-dir reports on the rest and names what it passed over, labels.jsonl as a link to /dev/zero included", async () => {
    const dir = hostileSpool();
    writeFileSync(join(dir, "real-labels.jsonl"), readFileSync(labelsPath(dir)));
    const linked = join(tempDir(), "spool2");
    const spool2 = writeSpool(linked, [f1], []);
    symlinkSync("/dev/zero", labelsPath(spool2));
    const out = join(tempDir(), "evidence.html");
    const run = await runCli(["evidence", "--review-dir", dir, "--review-dir", spool2, "--labels", labelsPath(spool2), "--from", "2026-11-01", "--to", "2026-11-08", "--out", out]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.match(/passed over/g)).toHaveLength(3);
    expect(run.stderr).toContain(`passed over ${labelsPath(spool2)}: not a regular file`);
    expect(readFileSync(out, "utf8")).toContain("Review of the monitor");
  });

  it("the terminal review passes over a segment-named FIFO, says so on stderr, and reviews the rest", async () => {
    const dir = writeSpool(join(tempDir(), "spool"), [f1], []);
    const pipe = fifo(join(dir, segmentName("zz", Date.parse("2026-11-02T00:00:00Z"), 0)));
    const run = await runCli(["review", "--dir", dir, "--reviewer", "ann"], { stdin: "a\nq\n" });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`groundwatch review: passed over ${pipe}: not a regular file`);
    expect(readFileSync(labelsPath(dir), "utf8")).toContain('"id":"f1"');
  });

  it("the terminal review refuses a labels.jsonl that links outside the spool, and appends nothing to its target", async () => {
    const dir = writeSpool(join(tempDir(), "spool"), [f1], []);
    const outside = join(tempDir(), "elsewhere.txt");
    writeFileSync(outside, "not yours\n");
    symlinkSync(outside, labelsPath(dir));
    const run = await runCli(["review", "--dir", dir, "--reviewer", "ann"], { stdin: "a\nq\n" });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`invalid --labels: ${JSON.stringify(labelsPath(dir))} (it is not a regular file`);
    expect(readFileSync(outside, "utf8")).toBe("not yours\n");
    // The web review opens the same session, so refuses it the same way (a ConfigError naming --labels: exit 2).
    await expect(openReviewSession({ dirs: [dir], labelsFile: labelsPath(dir), reviewer: "ann" })).rejects.toThrow(/--labels/);
  });

  it("review delete writes through no link planted beside a segment or the labels file, whatever its name", async () => {
    const dir = writeSpool(join(tempDir(), "spool"), [{ ...f1, id: `${T1}-aaaaaaaaaaaaaaaa`, traceId: T1 }, g1], [reviewLabel({ ...f1, id: `${T1}-aaaaaaaaaaaaaaaa` }, "ann", 0)]);
    const victim = join(tempDir(), "victim.txt");
    writeFileSync(victim, "precious\n");
    // What the old rewrite wrote to before renaming it over the file: `<file>.delete-<pid>.tmp`.
    for (const file of [...segmentFiles(dir), labelsPath(dir)]) symlinkSync(victim, `${file}.delete-${process.pid}.tmp`);
    const pipe = fifo(join(dir, segmentName("zz", Date.parse("2026-11-02T00:00:00Z"), 0)));
    const run = await runCli(["review", "delete", "--dir", dir, "--trace", T1]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`removed 1 spooled answer (from 1 segment) and 1 label of trace ${T1}\n`);
    expect(run.stderr).toBe(`groundwatch review delete: passed over ${pipe}: not a regular file (a link, FIFO, socket, device or directory)\n`);
    expect(readFileSync(victim, "utf8")).toBe("precious\n");
    for (const file of [...segmentFiles(dir).filter((f) => f !== pipe), labelsPath(dir)]) expect(lstatSync(file).isFile()).toBe(true);
  });
});

describe("a label line whose claims are not a list", () => {
  it("is skipped and counted as unreadable by review export and evidence, which still exit 0", async () => {
    const dir = writeSpool(join(tempDir(), "spool"), [f1, g1], [reviewLabel(f1, "ann", 0)]);
    writeFileSync(labelsPath(dir), [{ ...reviewLabel(g1, "ann", 1), claims: 5 }, { ...reviewLabel(g1, "bob", 1), claims: [null] }, { ...reviewLabel(g1, "cy", 1), claims: [{ index: -1, label: 1 }] }].map((l) => `${JSON.stringify(l)}\n`).join(""), { flag: "a" });
    const out = join(tempDir(), "rows.jsonl");
    const run = await runCli(["review", "export", "--dir", dir, "--out", out]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`wrote 1 row to ${out}; left out: 3 unreadable lines skipped\n`);
    const evidence = await runCli(["evidence", "--review-dir", dir, "--from", "2026-11-01", "--to", "2026-11-08", "--out", join(tempDir(), "e.html")]);
    expect(evidence.code, evidence.stderr).toBe(0);
  });
});
