import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { LabelRecord } from "../../src/review/record.ts";
import { labelsPath } from "../../src/review/spool-files.ts";
import { runCli, tempDir } from "../helpers/cli.ts";
import { spoolRecord, writeSegment } from "../helpers/review-terminal.ts";

const labelsOf = (path: string): LabelRecord[] => readFileSync(path, "utf8").trim().split("\n").map((l) => JSON.parse(l) as LabelRecord);
const ids = (out: string): string[] => [...out.matchAll(/^\[\d+\/\d+\] (\S+)/gm)].map((m) => m[1] ?? "");

/** Four answers over two replicas: two flagged (the later first in the files), a grounded sample, and one the other reviewer labelled. */
function spool(): string {
  const dir = tempDir();
  writeSegment(dir, [spoolRecord({ id: "f-late", time: "2026-12-01T11:00:00.000Z" }), spoolRecord({ id: "g-1", kind: "grounded_sample", verdict: "grounded", sampleRate: 0.05 })], "r1");
  writeSegment(dir, [spoolRecord({ id: "f-early", time: "2026-12-01T09:00:00.000Z", replica: "r2" }), spoolRecord({ id: "f-late", time: "2026-12-01T11:00:00.000Z", replica: "r2" })], "r2");
  return dir;
}

describe("groundwatch review in the terminal, scripted (standard input not a terminal)", () => {
  it("shows flagged answers first, oldest first, then the grounded sample; replicas merge", async () => {
    const dir = spool();
    const run = await runCli(["review", "--dir", dir, "--reviewer", "alice"], { stdin: "s\ns\ns\n" });
    expect(run.code).toBe(0);
    expect(ids(run.stdout)).toEqual(["f-early", "f-late", "g-1"]);
    expect(run.stdout).toContain("labelled 0, 3 left");
  });

  it("appends each label at once with the reviewer, agreement and claim marks; undo writes an undo record; a rerun shows what is left", async () => {
    const dir = spool();
    const run = await runCli(["review", "--dir", dir, "--reviewer", "alice"], { stdin: "a\nc 1 1\nu\nc 1 0\nq\n" });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("undone: the label of f-late");
    expect(run.stdout).toContain("labelled 2, 1 left");
    const labels = labelsOf(labelsPath(dir));
    expect(labels.map(({ time: _time, ...l }) => l)).toEqual([
      { v: 1, id: "f-early", reviewer: "alice", label: 0, agreement: "agree", kind: "flagged" },
      { v: 1, id: "f-late", reviewer: "alice", label: 1, agreement: "disagree", claims: [{ index: 0, label: 1 }, { index: 1, label: 1 }], kind: "flagged" },
      { v: 1, id: "f-late", reviewer: "alice", kind: "flagged", undo: true },
      { v: 1, id: "f-late", reviewer: "alice", label: 0, agreement: "agree", claims: [{ index: 0, label: 1 }, { index: 1, label: 0 }], kind: "flagged" },
    ]);
    for (const l of labels) expect(Number.isNaN(Date.parse(l.time))).toBe(false);
    // Another reviewer sees everything; alice sees only the grounded sample.
    const bob = await runCli(["review", "--dir", dir], { stdin: "q\n", env: { GROUNDWATCH_REVIEWER: "bob" } });
    expect(ids(bob.stdout)).toEqual(["f-early"]);
    const again = await runCli(["review", "--dir", dir, "--reviewer", "alice"], { stdin: "d\nq\n" });
    expect(ids(again.stdout)).toEqual(["g-1"]);
    expect(again.stdout).toContain("labelled 1, 0 left");
    expect(labelsOf(labelsPath(dir)).at(-1)).toMatchObject({ id: "g-1", label: 0, agreement: "disagree", kind: "grounded_sample" });
  });

  it("after the last answer, the last label can still be undone until the reviewer quits", async () => {
    const dir = spool();
    const run = await runCli(["review", "--dir", dir, "--reviewer", "alice"], { stdin: "a\na\nd\nx\nu\nq\n" });
    expect(run.stdout).toContain("all answers shown: 3 labelled");
    expect(run.stdout).toContain("nothing left to review: u undo, q quit");
    expect(ids(run.stdout)).toEqual(["f-early", "f-late", "g-1", "g-1"]);
    expect(run.stdout).toContain("labelled 2, 1 left");
    expect(labelsOf(labelsPath(dir)).at(-1)).toMatchObject({ id: "g-1", undo: true });
    // With nothing to review, it says so and ends.
    const none = await runCli(["review", "--dir", tempDir(), "--reviewer", "alice"], { stdin: "" });
    expect(none.code).toBe(0);
    expect(none.stdout).toContain("labelled 0, 0 left");
  });

  it("prints no escape sequence from a hostile spooled answer, and marks evidence with plain markers off a terminal", async () => {
    const dir = tempDir();
    const hostile = "\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\\u001b[2J\u001b[?1049h\r overwritten";
    writeSegment(dir, [spoolRecord({ id: "h-1", route: `/ask${hostile}`, question: hostile, answer: hostile, documents: [{ title: hostile, text: `${hostile} Items can be returned within 30 days.` }] })]);
    const run = await runCli(["review", "--dir", dir, "--reviewer", "alice"], { stdin: "q\n" });
    expect(run.stdout).not.toContain("\u001b");
    expect(run.stdout).not.toContain("\r");
    expect(run.stdout).not.toContain("evil.example");
    expect(run.stdout).toContain("[[");
  });

  it("writes to the --labels file it is given, and says what a bad line means without labelling", async () => {
    const dir = spool();
    const labels = join(tempDir(), "mine.jsonl");
    const run = await runCli(["review", "--dir", dir, "--reviewer", "alice", "--labels", labels], { stdin: "c 1\nzap\n" });
    expect(run.stdout).toContain('"c" needs a 1 (supported) or 0 (not) for each of the 2 claims');
    expect(run.stdout).toContain('unknown command "zap"');
    expect(run.stdout).toContain("labelled 0, 3 left");
    const more = await runCli(["review", "--dir", dir, "--reviewer", "alice", "--labels", labels], { stdin: "a\n" });
    expect(more.stdout).toContain("labelled 1, 2 left");
    expect(labelsOf(labels)).toHaveLength(1);
  });

  it("requires a reviewer and a spool directory (exit 2 naming the flag); unknown subcommands are usage errors", async () => {
    const dir = spool();
    const noReviewer = await runCli(["review", "--dir", dir], { stdin: "" });
    expect(noReviewer.code).toBe(2);
    expect(noReviewer.stderr).toContain("--reviewer is required");
    const noDir = await runCli(["review", "--reviewer", "a"], { stdin: "" });
    expect(noDir.code).toBe(2);
    expect(noDir.stderr).toContain("--dir is required");
    expect((await runCli(["review", "--dir", dir, "--reviewer", "a\u001b[2J"], { stdin: "" })).code).toBe(2);
    expect((await runCli(["review", "frobnicate"], { stdin: "" })).code).toBe(2);
    const env = await runCli(["review", "--reviewer", "a"], { stdin: "q\n", env: { GROUNDWATCH_REVIEW_DIR: dir } });
    expect(env.code).toBe(0);
    expect(ids(env.stdout)).toEqual(["f-early"]);
  });

  it("lists every subcommand in its help", async () => {
    const run = await runCli(["review", "--help"]);
    expect(run.code).toBe(0);
    for (const usage of ["groundwatch review [--dir D]... --reviewer NAME", "groundwatch review --web", "groundwatch review export", "groundwatch review delete"]) expect(run.stdout).toContain(usage);
    expect((await runCli(["--help"])).stdout).toMatch(/^ {2}review {4}/m);
  });
});
