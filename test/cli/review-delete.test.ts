import * as nodeFs from "node:fs";
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { deleteTrace } from "../../src/cli/review/delete.ts";
import { runReview } from "../../src/cli/review/index.ts";
import { EXIT } from "../../src/cli/shared/exit-codes.ts";
import type { LabelRecord, SpoolRecord } from "../../src/review/record.ts";
import { appendLabel, labelsPath, readLabelRecords, readSpools, segmentFiles, segmentName } from "../../src/review/spool-files.ts";
import { createSpoolWriter } from "../../src/review/spool-writer.ts";
import type { SpoolFileOps } from "../../src/review/spool-fs.ts";
import { tempDir } from "../helpers/cli.ts";
import { spawnGroup } from "../helpers/processes.ts";
import { spoolRecord } from "../helpers/review-spool.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";

const T1 = "5b8efff798038103d269b633813fc60c";
const T2 = "6c9f0008a9149214e37ac744924fd71d";

const record = (traceId: string, spanId: string, answer = "An answer."): SpoolRecord => ({ ...spoolRecord(`${traceId}-${spanId}`, "flagged", "2026-12-01T00:00:00.000Z"), traceId, spanId, answer });
const label = (id: string): LabelRecord => ({ v: 1, id, reviewer: "ana", time: "2026-12-01T00:00:00.000Z", label: 0, agreement: "agree", kind: "flagged" });

async function review(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (c: Buffer) => (out += c.toString()));
  stderr.on("data", (c: Buffer) => (err += c.toString()));
  const code = await runReview(argv, { stdin: Readable.from([]), stdout, stderr, env: {}, cwd: process.cwd() });
  return { code, stdout: out, stderr: err };
}

describe("groundwatch review delete", () => {
  it("removes every spooled answer of the trace from every segment, and their labels, and says how many", async () => {
    const dir = join(tempDir(), "spool");
    const size = Buffer.byteLength(`${JSON.stringify(record(T1, "aaaaaaaaaaaaaaaa"))}\n`);
    const writer = createSpoolWriter({ dir, replica: "r1", maxBytes: 1024 * 1024, segmentBytes: size * 2, retentionMs: 1e12, clock: () => Date.parse("2026-12-01T00:00:00.000Z") });
    writer.append(record(T1, "aaaaaaaaaaaaaaaa"));
    writer.append(record(T2, "aaaaaaaaaaaaaaaa", `An answer that mentions ${T1} in its text.`));
    writer.append(record(T1, "bbbbbbbbbbbbbbbb"));
    writer.append(record(T2, "bbbbbbbbbbbbbbbb"));
    writer.close();
    // Segments: [T1 a], [T2 a naming T1 in its text], [T1 b, T2 b]; a torn line naming T1 at the end of the second.
    const [, second] = segmentFiles(dir);
    appendFileSync(second ?? "", `{"v":1,"id":"${T1}-cccc`);
    const labels = labelsPath(dir);
    appendLabel(labels, label(`${T1}-aaaaaaaaaaaaaaaa`));
    appendLabel(labels, label(`${T2}-aaaaaaaaaaaaaaaa`));
    appendLabel(labels, label(`${T1}-bbbbbbbbbbbbbbbb`));

    const run = await review(["delete", "--dir", dir, "--trace", T1.toUpperCase()]);
    expect(run.code).toBe(EXIT.ok);
    expect(run.stdout).toBe(`removed 3 spooled answers (from 3 segments) and 2 labels of trace ${T1}\n`);
    const read = readSpools([dir]);
    expect(read.records.map((r) => r.id)).toEqual([`${T2}-aaaaaaaaaaaaaaaa`, `${T2}-bbbbbbbbbbbbbbbb`]);
    expect(read.unreadable).toBe(0);
    expect(readLabelRecords(labels).labels.map((l) => l.id)).toEqual([`${T2}-aaaaaaaaaaaaaaaa`]);
    for (const f of segmentFiles(dir)) expect(statSync(f).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).filter((f) => f.includes(".tmp"))).toEqual([]);

    // Nothing of the trace is left to remove.
    const again = await review(["delete", "--dir", dir, "--trace", T1]);
    expect(again.stdout).toBe(`removed 0 spooled answers (from 0 segments) and 0 labels of trace ${T1}\n`);
  });

  it("removes a segment left with nothing, and leaves files without the trace untouched", async () => {
    const dir = join(tempDir(), "spool");
    const size = Buffer.byteLength(`${JSON.stringify(record(T1, "aaaaaaaaaaaaaaaa"))}\n`);
    const writer = createSpoolWriter({ dir, replica: "r1", maxBytes: 1024 * 1024, segmentBytes: size, retentionMs: 1e12, clock: () => Date.parse("2026-12-01T00:00:00.000Z") });
    writer.append(record(T1, "aaaaaaaaaaaaaaaa"));
    writer.append(record(T2, "aaaaaaaaaaaaaaaa"));
    writer.close();
    const [first, second] = segmentFiles(dir);
    const before = statSync(second ?? "").mtimeMs;
    expect((await review(["delete", "--dir", dir, "--trace", T1])).code).toBe(EXIT.ok);
    expect(existsSync(first ?? "")).toBe(false);
    expect(statSync(second ?? "").mtimeMs).toBe(before);
    expect(readFileSync(second ?? "", "utf8")).toContain(T2);
  });

  it("leaves a running writer appending to the segment it changed, so nothing it writes after the delete is lost", async () => {
    const dir = join(tempDir(), "spool");
    const writer = createSpoolWriter({ dir, replica: "r1", maxBytes: 1024 * 1024, segmentBytes: 64 * 1024, retentionMs: 1e12, clock: () => Date.parse("2026-12-01T00:00:00.000Z") });
    writer.append(record(T1, "aaaaaaaaaaaaaaaa"));
    writer.append(record(T2, "aaaaaaaaaaaaaaaa"));
    expect((await review(["delete", "--dir", dir, "--trace", T1])).code).toBe(EXIT.ok);
    writer.append(record(T2, "bbbbbbbbbbbbbbbb"));
    writer.close();
    expect(segmentFiles(dir)).toHaveLength(1);
    expect(readSpools([dir]).records.map((r) => r.id)).toEqual([`${T2}-aaaaaaaaaaaaaaaa`, `${T2}-bbbbbbbbbbbbbbbb`]);
  });

  it("keeps what a writer and a reviewer append between its read of a file and its change of it", async () => {
    const dir = join(tempDir(), "spool");
    const writer = createSpoolWriter({ dir, replica: "r1", maxBytes: 1024 * 1024, segmentBytes: 64 * 1024, retentionMs: 1e12, clock: () => Date.parse("2026-12-01T00:00:00.000Z") });
    writer.append(record(T1, "aaaaaaaaaaaaaaaa"));
    writer.append(record(T2, "aaaaaaaaaaaaaaaa"));
    const labels = labelsPath(dir);
    appendLabel(labels, label(`${T1}-aaaaaaaaaaaaaaaa`));
    appendLabel(labels, label(`${T2}-aaaaaaaaaaaaaaaa`));
    // Each time the delete changes a file (it has read it), the collector and a reviewer append.
    let n = 0;
    const fs: SpoolFileOps = {
      ...nodeFs,
      writeSync: ((...args: Parameters<typeof nodeFs.writeSync>) => {
        n++;
        expect(writer.append(record(T2, `c${String(n).padStart(15, "0")}`))).toEqual({ written: true });
        appendLabel(labels, label(`${T2}-c${String(n).padStart(15, "0")}`));
        return nodeFs.writeSync(...args);
      }) as typeof nodeFs.writeSync,
    };
    expect(deleteTrace(dir, T1, labels, { fs })).toMatchObject({ records: 1, segments: 1, labels: 1 });
    writer.close();
    expect(n).toBe(2);
    const appended = [`${T2}-c000000000000001`, `${T2}-c000000000000002`];
    expect(readSpools([dir]).records.map((r) => r.id)).toEqual([`${T2}-aaaaaaaaaaaaaaaa`, ...appended]);
    expect(readLabelRecords(labels).labels.map((l) => l.id)).toEqual([`${T2}-aaaaaaaaaaaaaaaa`, ...appended]);
    expect(readLabelRecords(labels).unreadable).toBe(0);
  });

  it("loses nothing another process appends while deletes run back to back: every other record and label is there, once", async () => {
    const dir = join(tempDir(), "spool");
    mkdirSync(dir);
    const n = 4000;
    const child = spawnGroup(process.execPath, ["--import", "tsx", "test/fixtures/review/spool-labeller.ts", dir, String(n), T1]);
    await child.waitFor(/appending/);
    let exited = false;
    const done = child.exited.then((e) => {
      exited = true;
      return e;
    });
    while (!exited) {
      deleteTrace(dir, T1);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect((await done).code, child.output()).toBe(0);
    expect(child.output()).toContain(`done ${n}`);
    // What the child appended after the last delete: removed too.
    deleteTrace(dir, T1);
    const kept = Array.from({ length: n }, (_, i) => i).filter((i) => i % 10 !== 0).map((i) => `keep-${i}`);
    const spool = readSpools([dir]);
    expect(spool.records.map((r) => r.id)).toEqual(kept);
    expect(spool.unreadable).toBe(0);
    const read = readLabelRecords(labelsPath(dir));
    expect(read.labels.map((l) => l.id)).toEqual(kept);
    expect(read.unreadable).toBe(0);
  });

  it("reads records whose text names the trace over and over in time linear in their length", () => {
    const root = tempDir();
    const near = `${T1} ${T1.slice(0, 31)}-`;
    const make = (n: number): string => {
      const dir = join(root, `g${n}`);
      mkdirSync(dir, { recursive: true });
      // Another trace's answer and label that quote the trace id: read, parsed, kept.
      const quoted = record(T2, "aaaaaaaaaaaaaaaa", near.repeat(n));
      writeFileSync(join(dir, segmentName("r1", 0, 0)), `${JSON.stringify(quoted)}\n`);
      writeFileSync(labelsPath(dir), `${JSON.stringify({ ...label(`${T2}-aaaaaaaaaaaaaaaa`), reviewer: near.repeat(n) })}\n`);
      return dir;
    };
    expectLinear("review delete over a record quoting the trace id", measureGrowth(make, (dir) => expect(deleteTrace(dir, T1)).toEqual({ records: 0, segments: 0, labels: 0, skipped: [], tornLeft: [] }), { n: 2000, maxN: 64_000 }));
  });

  it("refuses a missing directory, a value that is not a trace id, and missing flags, with exit 2", async () => {
    const dir = tempDir();
    for (const argv of [["delete", "--dir", join(dir, "nope"), "--trace", T1], ["delete", "--dir", dir, "--trace", "abc"], ["delete", "--dir", dir], ["delete", "--trace", T1], ["nonsense"]]) {
      const run = await review(argv);
      expect(run.code).toBe(EXIT.usage);
      expect(run.stderr).toMatch(/^groundwatch review/);
    }
    expect((await review(["delete", "--help"])).stdout).toContain("groundwatch review delete --dir DIR --trace TRACE_ID");
  });
});
