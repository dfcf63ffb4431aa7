import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { segmentName } from "../../src/review/spool-files.ts";
import type { TailLine } from "../../src/review/spool-tail.ts";
import { readSpoolNewestFirst, replicaSegmentsNewestFirst } from "../../src/review/spool-tail.ts";
import { tempDir } from "../helpers/cli.ts";
import { fifo } from "../helpers/review-spool.ts";

const T0 = Date.parse("2026-11-01T00:00:00Z");

/** Every line `readSpoolNewestFirst` delivers, as text, "<long>" (over the line cap) or "<torn>". */
function linesOf(dir: string, replica: string, maxLineBytes = 1 << 20, budgetBytes = Infinity): string[] {
  const out: string[] = [];
  readSpoolNewestFirst(dir, replica, (line: TailLine) => void out.push("torn" in line ? "<torn>" : (line.text ?? "<long>")), { budgetBytes, maxLineBytes });
  return out;
}

describe("reading a replica's spool from the newest line back", () => {
  it("delivers every line newest first across segments and chunk edges, skips blank lines, and marks a torn last line and an over-long one", () => {
    const dir = join(tempDir(), "spool");
    mkdirSync(dir);
    const long = "x".repeat(600 * 1024); // spans three 256 KiB chunks
    writeFileSync(join(dir, segmentName("r1", T0, 0)), `a1\n${long}\n  \nä2\n`);
    writeFileSync(join(dir, segmentName("r1", T0 + 5, 1)), `b1\n${"y".repeat(3000)}\nb3\n{"torn`);
    writeFileSync(join(dir, segmentName("r2", T0 + 9, 0)), "other\n");
    expect(linesOf(dir, "r1")).toEqual(["<torn>", "b3", "y".repeat(3000), "b1", "ä2", long, "a1"]);
    expect(linesOf(dir, "r1", 2000)).toEqual(["<torn>", "b3", "<long>", "b1", "ä2", "<long>", "a1"]);
    expect(linesOf(dir, "r2")).toEqual(["other"]);
  });

  it("reads a file without any newline as one torn line, and an empty one as nothing", () => {
    const dir = join(tempDir(), "spool");
    mkdirSync(dir);
    writeFileSync(join(dir, segmentName("r1", T0, 0)), "");
    writeFileSync(join(dir, segmentName("r1", T0, 1)), "no newline");
    expect(linesOf(dir, "r1")).toEqual(["<torn>"]);
  });

  it("stops when told to, and after its byte budget, having read no further", () => {
    const dir = join(tempDir(), "spool");
    mkdirSync(dir);
    for (let s = 0; s < 4; s++) writeFileSync(join(dir, segmentName("r1", T0 + s, s)), Array.from({ length: 100 }, (_, i) => `line ${s}.${i}\n`).join(""));
    const seen: string[] = [];
    const told = readSpoolNewestFirst(dir, "r1", (l) => (seen.push("text" in l ? (l.text ?? "") : "") === 3 ? "stop" : undefined), { budgetBytes: Infinity, maxLineBytes: 100 });
    expect(seen).toEqual(["line 3.99", "line 3.98", "line 3.97"]);
    expect(told.stopped).toBe(true);
    const oneSegment = 100 * "line 3.99\n".length - 10 * 1; // lines 3.0–3.9 are a byte shorter
    const budget = readSpoolNewestFirst(dir, "r1", () => undefined, { budgetBytes: 10, maxLineBytes: 100 });
    expect(budget).toEqual({ bytesRead: oneSegment, stopped: true });
  });

  it("passes over a link or a FIFO under a segment name, and says so", () => {
    const dir = join(tempDir(), "spool");
    mkdirSync(dir);
    writeFileSync(join(dir, "target"), "secret\n");
    symlinkSync(join(dir, "target"), join(dir, segmentName("r1", T0, 0)));
    fifo(join(dir, segmentName("r1", T0, 1)));
    writeFileSync(join(dir, segmentName("r1", T0, 2)), "ok\n");
    const skipped: string[] = [];
    const lines: string[] = [];
    readSpoolNewestFirst(dir, "r1", (l) => void lines.push("text" in l ? (l.text ?? "") : "<torn>"), { budgetBytes: Infinity, maxLineBytes: 100, onSkippedFile: (_p, reason) => skipped.push(reason) });
    expect(lines).toEqual(["ok"]);
    expect(skipped).toContain("not_regular");
    expect(replicaSegmentsNewestFirst(dir, "r1")).toHaveLength(3);
  });
});
