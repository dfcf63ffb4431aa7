import * as nodeFs from "node:fs";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { SpoolLine } from "../../src/review/spool-fs.ts";
import { SpoolFileRefused, appendSpoolLine, lastSpoolLine, openSpoolFile, readSpoolFile, readSpoolLines } from "../../src/review/spool-fs.ts";
import { tempDir } from "../helpers/cli.ts";
import { fifo } from "../helpers/review-spool.ts";

const lines = (path: string): { lines: SpoolLine[]; result: ReturnType<typeof readSpoolFile> } => {
  const got: SpoolLine[] = [];
  const result = readSpoolFile(path, (l) => void got.push(l));
  return { lines: got, result };
};

describe("spool files are opened safely", () => {
  it("passes over a link to /dev/zero without reading it", () => {
    const link = join(tempDir(), "labels.jsonl");
    symlinkSync("/dev/zero", link);
    expect(lines(link)).toEqual({ lines: [], result: { skipped: "not_regular" } });
  });

  it("passes over a link to a regular file: a spool name is never followed", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "outside.jsonl"), '{"v":1}\n');
    symlinkSync(join(dir, "outside.jsonl"), join(dir, "labels.jsonl"));
    expect(lines(join(dir, "labels.jsonl")).result).toEqual({ skipped: "not_regular" });
  });

  it("passes over a FIFO at once, with no writer on the other side", () => {
    const path = fifo(join(tempDir(), "segment-r1-0000000000000-0.jsonl"));
    expect(lines(path).result).toEqual({ skipped: "not_regular" });
  });

  it("passes over a directory and a file over the cap, and says when nothing is there", () => {
    const dir = tempDir();
    mkdirSync(join(dir, "sub"));
    writeFileSync(join(dir, "big"), "x\n".repeat(100));
    expect(lines(join(dir, "sub")).result).toEqual({ skipped: "not_regular" });
    expect(readSpoolFile(join(dir, "big"), () => undefined, { maxBytes: 199 })).toEqual({ skipped: "too_large" });
    expect(readSpoolFile(join(dir, "big"), () => undefined, { maxBytes: 200 })).toEqual({ read: true });
    expect(lines(join(dir, "none")).result).toEqual({ absent: true });
  });

  it("refuses to append through a link or to a FIFO, and leaves the target as it was", () => {
    const dir = tempDir();
    const outside = join(dir, "outside.txt");
    writeFileSync(outside, "mine\n");
    symlinkSync(outside, join(dir, "labels.jsonl"));
    expect(() => appendSpoolLine(join(dir, "labels.jsonl"), "label\n")).toThrow(SpoolFileRefused);
    expect(readFileSync(outside, "utf8")).toBe("mine\n");
    const pipe = fifo(join(dir, "pipe"));
    expect(() => appendSpoolLine(pipe, "label\n")).toThrow(SpoolFileRefused);
  });

  it("appends whole lines to a regular file, creating it with the mode asked for", () => {
    const path = join(tempDir(), "segment.jsonl");
    appendSpoolLine(path, "one\n", { mode: 0o600 });
    appendSpoolLine(path, Buffer.from("two\n"));
    expect(readFileSync(path, "utf8")).toBe("one\ntwo\n");
    expect(nodeFs.statSync(path).mode & 0o777).toBe(0o600);
  });

  it("reads lines across chunk boundaries with their byte ranges, a partial last line marked unterminated", () => {
    const path = join(tempDir(), "f");
    const long = "é".repeat(700_000); // 1.4 MB: past one read chunk
    writeFileSync(path, `a\n${long}\n\nb`);
    const got = lines(path).lines;
    expect(got.map((l) => [l.text?.length, l.start, l.end, l.terminated])).toEqual([
      [1, 0, 1, true],
      [700_000, 2, 1_400_002, true],
      [0, 1_400_003, 1_400_003, true],
      [1, 1_400_004, 1_400_005, false],
    ]);
  });

  it("stops at a budget at a line's end, and returns where the next read starts", () => {
    const path = join(tempDir(), "f");
    writeFileSync(path, "0123456789\n".repeat(10));
    const opened = openSpoolFile(path, "read");
    if (!("file" in opened)) throw new Error("not opened");
    const seen: string[] = [];
    const next = readSpoolLines(nodeFs, opened.file.fd, 0, opened.file.size, (l) => void seen.push(l.text ?? ""), { budget: 25 });
    expect(next).toBe(seen.length * 11);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.length).toBeLessThan(10);
    expect(lastSpoolLine(nodeFs, opened.file.fd, opened.file.size)).toBe("0123456789");
    nodeFs.closeSync(opened.file.fd);
  });
});
