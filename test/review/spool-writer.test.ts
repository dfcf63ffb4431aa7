import * as nodeFs from "node:fs";
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { SpoolRecord } from "../../src/review/record.ts";
import { readSpools, segmentFiles, segmentName } from "../../src/review/spool-files.ts";
import type { SpoolFs, SpoolWriterOptions } from "../../src/review/spool-writer.ts";
import { createSpoolWriter } from "../../src/review/spool-writer.ts";
import { tempDir } from "../helpers/cli.ts";
import { spoolRecord } from "../helpers/review-spool.ts";
import { spawnGroup } from "../helpers/processes.ts";

const DAY = 86_400_000;
const T0 = Date.parse("2026-12-01T00:00:00.000Z");

const record = (id: string, timeMs = T0, answer = "An answer."): SpoolRecord => ({ ...spoolRecord(id, "flagged", new Date(timeMs).toISOString()), answer });
const lineBytes = (r: SpoolRecord): number => Buffer.byteLength(`${JSON.stringify(r)}\n`);

function writer(dir: string, over: Partial<SpoolWriterOptions> = {}) {
  let now = T0;
  const w = createSpoolWriter({ dir, replica: "r1", maxBytes: 1024 * 1024, segmentBytes: 64 * 1024, retentionMs: 30 * DAY, clock: () => now, ...over });
  return { w, advance: (ms: number) => (now += ms) };
}

describe("review spool writer", () => {
  it("writes one line per record into a 0700 directory of 0600 segments, and starts a new segment before one would pass segmentBytes", () => {
    const dir = join(tempDir(), "spool");
    const size = lineBytes(record("a-0"));
    const { w } = writer(dir, { segmentBytes: size * 2 });
    for (let i = 0; i < 5; i++) expect(w.append(record(`a-${i}`))).toEqual({ written: true });
    w.close();
    const files = segmentFiles(dir);
    expect(files.map((f) => readFileSync(f, "utf8").split("\n").filter(Boolean).length)).toEqual([2, 2, 1]);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const f of files) expect(statSync(f).mode & 0o777).toBe(0o600);
    expect(readSpools([dir]).records.map((r) => r.id)).toEqual(["a-0", "a-1", "a-2", "a-3", "a-4"]);
  });

  it("stops writing at the byte cap, reports bytes for each record skipped, and deletes nothing to make room", () => {
    const dir = join(tempDir(), "spool");
    const size = lineBytes(record("a-0"));
    const { w } = writer(dir, { maxBytes: size * 3, segmentBytes: size * 2 });
    const results = Array.from({ length: 6 }, (_, i) => w.append(record(`a-${i}`)));
    expect(results.filter((r) => r.written)).toHaveLength(3);
    expect(results.slice(3)).toEqual([1, 2, 3].map(() => ({ written: false, reason: "bytes" })));
    expect(readSpools([dir]).records.map((r) => r.id)).toEqual(["a-0", "a-1", "a-2"]);
  });

  it("skips a record longer than a segment as too_large and goes on writing the next", () => {
    const dir = join(tempDir(), "spool");
    const { w } = writer(dir, { segmentBytes: 1000 });
    expect(w.append(record("big", T0, "x".repeat(2000)))).toEqual({ written: false, reason: "too_large" });
    expect(w.append(record("small"))).toEqual({ written: true });
    expect(readSpools([dir]).records.map((r) => r.id)).toEqual(["small"]);
  });

  it("removes segments whose newest record is older than the retention, on open and at rotation, and counts their bytes free again", () => {
    const dir = join(tempDir(), "spool");
    const size = lineBytes(record("old-0"));
    const first = writer(dir, { segmentBytes: size, maxBytes: size * 3 });
    expect(first.w.append(record("old-0", T0))).toEqual({ written: true });
    expect(first.w.append(record("old-1", T0))).toEqual({ written: true });
    first.advance(31 * DAY);
    // Rotation to the third segment removes both expired ones (the open one is never removed).
    expect(first.w.append(record("new-0", T0 + 31 * DAY))).toEqual({ written: true });
    expect(readSpools([dir]).records.map((r) => r.id)).toEqual(["new-0"]);
    expect(first.w.append(record("new-1", T0 + 31 * DAY))).toEqual({ written: true });
    first.w.close();
    expect(readSpools([dir]).records.map((r) => r.id)).toEqual(["new-0", "new-1"]);
    // On open: a writer 31 days later removes what is now expired before writing.
    const second = writer(dir, { clock: () => T0 + 62 * DAY });
    expect(segmentFiles(dir)).toEqual([]);
    second.w.close();
  });

  it("continues after existing segments when reopened: a new segment with the next sequence, nothing duplicated, a torn last line left for readers to skip", () => {
    const dir = join(tempDir(), "spool");
    const first = writer(dir);
    first.w.append(record("a-0"));
    first.w.append(record("a-1"));
    first.w.close();
    const [only] = segmentFiles(dir);
    nodeFs.appendFileSync(only ?? "", '{"v":1,"id":"a-2","kin');
    const second = writer(dir);
    second.w.append(record("a-3"));
    second.w.close();
    expect(readdirSync(dir).sort()).toEqual([segmentName("r1", T0, 0), segmentName("r1", T0, 1)]);
    const read = readSpools([dir]);
    expect(read.records.map((r) => r.id)).toEqual(["a-0", "a-1", "a-3"]);
    expect(read.unreadable).toBe(1);
  });

  it("turns a failed write into io_error without throwing, and writes again once the file system recovers", () => {
    const dir = join(tempDir(), "spool");
    let failing = true;
    const fs: SpoolFs = { ...nodeFs, writeSync: ((...args: Parameters<typeof nodeFs.writeSync>) => {
      if (failing) throw Object.assign(new Error("no space"), { code: "ENOSPC" });
      return nodeFs.writeSync(...args);
    }) as typeof nodeFs.writeSync };
    const { w } = writer(dir, { fs });
    expect(w.append(record("a-0"))).toEqual({ written: false, reason: "io_error" });
    failing = false;
    expect(w.append(record("a-1"))).toEqual({ written: true });
    expect(readSpools([dir]).records.map((r) => r.id)).toEqual(["a-1"]);
  });

  it("survives a SIGKILL mid-run: every record but at most the last is readable, none twice, and a new writer continues", async () => {
    const dir = join(tempDir(), "spool");
    const child = spawnGroup(process.execPath, ["--import", "tsx", "test/fixtures/review/spool-appender.ts", dir, "crash", "0"]);
    await child.waitFor(/appending/);
    // Let it write across a few segments, then kill it wherever it is.
    await expect.poll(() => segmentFiles(dir).length, { timeout: 30_000 }).toBeGreaterThan(3);
    child.signal("SIGKILL");
    expect((await child.exited).signal).toBe("SIGKILL");
    const read = readSpools([dir]);
    const ids = read.records.map((r) => Number(r.id.slice(4)));
    expect(ids.length).toBeGreaterThan(0);
    expect(ids).toEqual(ids.map((_, i) => i));
    expect(read.unreadable).toBeLessThanOrEqual(1);
    const next = createSpoolWriter({ dir, replica: "crash", maxBytes: 1024 ** 3, segmentBytes: 64 * 1024, retentionMs: DAY, clock: () => Date.now() });
    expect(next.append({ ...record(`rec-${ids.length}`), time: new Date().toISOString() })).toEqual({ written: true });
    next.close();
    const after = readSpools([dir]).records.map((r) => r.id);
    expect(after).toHaveLength(ids.length + 1);
    expect(new Set(after).size).toBe(after.length);
  });

  it("leaves files other than segments alone", () => {
    const dir = join(tempDir(), "spool");
    nodeFs.mkdirSync(dir);
    writeFileSync(join(dir, "labels.jsonl"), "{}\n");
    const { w } = writer(dir, { clock: () => T0 + 365 * DAY });
    w.append(record("a-0", T0 + 365 * DAY));
    w.close();
    expect(readdirSync(dir)).toContain("labels.jsonl");
  });
});
