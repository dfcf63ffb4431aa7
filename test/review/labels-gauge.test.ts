import * as nodeFs from "node:fs";
import { appendFileSync, mkdirSync, renameSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { deleteTrace } from "../../src/cli/review/delete.ts";
import { rng } from "../../src/core/rng.ts";
import { majorityLabels } from "../../src/review/export.ts";
import { createLabelTally } from "../../src/review/label-tally.ts";
import { countLabels, createLabelCounts, registerReviewLabelsGauge } from "../../src/review/labels-gauge.ts";
import type { LabelRecord, SpoolKind } from "../../src/review/record.ts";
import { agreementOf } from "../../src/review/record.ts";
import { currentLabels, labelsPath, segmentName } from "../../src/review/spool-files.ts";
import type { SpoolFileOps } from "../../src/review/spool-fs.ts";
import { tempDir } from "../helpers/cli.ts";
import { startTestCollector } from "../helpers/collector.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";
import { fifo, reviewLabel, spoolRecord } from "../helpers/review-spool.ts";
import { testOtel } from "../helpers/otel.ts";
import { metric } from "../helpers/serve.ts";

const f1 = spoolRecord("f1", "flagged", "2026-11-01T00:00:00Z");
const f2 = spoolRecord("f2", "flagged", "2026-11-01T00:00:00Z");
const g1 = spoolRecord("g1", "grounded_sample", "2026-11-01T00:00:00Z");
const line = (l: object): string => `${JSON.stringify(l)}\n`;

/** node:fs with the bytes read counted. */
function countingFs(): { fs: SpoolFileOps; read: () => number; reset: () => void } {
  let bytes = 0;
  const fs: SpoolFileOps = {
    ...nodeFs,
    readSync: ((...args: Parameters<typeof nodeFs.readSync>) => {
      const n = nodeFs.readSync(...args);
      bytes += n;
      return n;
    }) as typeof nodeFs.readSync,
  };
  return { fs, read: () => bytes, reset: () => (bytes = 0) };
}

/** The counts as the export reads them: the labels in force, one per answer by majority — what the gauge must equal. */
function wholeFileCounts(records: readonly LabelRecord[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const l of majorityLabels(currentLabels(records)).labels.values()) {
    const key = `${l.kind} ${agreementOf(l.kind, l.label)}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

/** `n` labels of answers x0…, by reviewers r0…, some undone, some relabelled. */
function labelRun(n: number, seed: number): LabelRecord[] {
  const random = rng(seed);
  const out: LabelRecord[] = [];
  for (let i = 0; i < n; i++) {
    const kind: SpoolKind = random() < 0.5 ? "flagged" : "grounded_sample";
    const id = `x${Math.floor(random() * (n / 4))}`;
    const reviewer = `r${Math.floor(random() * 5)}`;
    if (random() < 0.2) out.push({ v: 1, id, reviewer, time: "2026-11-20T12:00:00.000Z", kind, undo: true });
    else out.push(reviewLabel({ ...f1, id, kind }, reviewer, random() < 0.5 ? 0 : 1));
  }
  return out;
}

describe("groundwatch.review.labels", () => {
  it("counts labelled answers by kind and agreement, one label per answer by majority", () => {
    const path = join(tempDir(), "labels.jsonl");
    appendFileSync(path, [reviewLabel(f1, "ann", 0), reviewLabel(f1, "bob", 0), reviewLabel(f2, "ann", 1), reviewLabel(g1, "ann", 1), reviewLabel(g1, "bob", 0)].map(line).join(""));
    const counts = createLabelCounts({ path }).counts();
    // g1 is tied 1–1: left out.
    expect(Object.fromEntries(counts)).toEqual({ "flagged agree": 1, "flagged disagree": 1 });
  });

  it("looks at the file at most every 30 s and reads it again only when it changed", () => {
    const path = join(tempDir(), "labels.jsonl");
    let now = 1_000_000;
    const reader = createLabelCounts({ path, now: () => now });
    expect(reader.counts().size).toBe(0);
    appendFileSync(path, line(reviewLabel(f1, "ann", 0)));
    now += 29_999;
    expect(reader.counts().size).toBe(0);
    now += 1;
    expect(Object.fromEntries(reader.counts())).toEqual({ "flagged agree": 1 });
    appendFileSync(path, line(reviewLabel(f2, "ann", 0)));
    utimesSync(path, new Date(), new Date(Date.now() + 5_000));
    now += 30_000;
    expect(reader.counts().get("flagged agree")).toBe(2);
  });

  it("does not read a labels file over its byte cap: the last counts stay and the reason is kept", () => {
    const path = join(tempDir(), "labels.jsonl");
    let now = 0;
    appendFileSync(path, line(reviewLabel(f1, "ann", 0)));
    const reader = createLabelCounts({ path, now: () => now, maxBytes: 400 });
    expect(reader.counts().get("flagged agree")).toBe(1);
    appendFileSync(path, Array.from({ length: 5 }, (_, i) => line(reviewLabel(spoolRecord(`x${i}`, "flagged", "2026-11-01T00:00:00Z"), "ann", 0))).join(""));
    now += 30_000;
    expect(reader.counts().get("flagged agree")).toBe(1);
    expect(reader.skipped()).toBe("too_large");
  });

  it("reads only what was appended since the last look", () => {
    const path = join(tempDir(), "labels.jsonl");
    let now = 0;
    const counting = countingFs();
    appendFileSync(path, labelRun(200, 1).map(line).join(""));
    const reader = createLabelCounts({ path, now: () => now, fs: counting.fs });
    reader.counts();
    expect(counting.read()).toBe(statSync(path).size);
    const more = [reviewLabel(f1, "zed", 0), reviewLabel(f2, "zed", 1)].map(line).join("");
    appendFileSync(path, more);
    // A partial last line (a write in progress) is not read as a label; it is read again once whole.
    appendFileSync(path, '{"v":1,"id":"g1","revi');
    now += 30_000;
    counting.reset();
    reader.counts();
    expect(counting.read()).toBe(Buffer.byteLength(more) + Buffer.byteLength('{"v":1,"id":"g1","revi'));
    appendFileSync(path, `ewer":"zed","time":"2026-11-20T12:00:00.000Z","label":1,"kind":"grounded_sample"}\n`);
    now += 30_000;
    counting.reset();
    const counts = reader.counts();
    expect(counting.read()).toBe(Buffer.byteLength('{"v":1,"id":"g1","revi') + Buffer.byteLength(`ewer":"zed","time":"2026-11-20T12:00:00.000Z","label":1,"kind":"grounded_sample"}\n`));
    expect(Object.fromEntries(counts)).toEqual(Object.fromEntries(countLabels(path)));
  });

  it("reads a large file a slice per scrape, going on at the next scrape without waiting, and shows its counts once read to the end", () => {
    const path = join(tempDir(), "labels.jsonl");
    const labels = labelRun(4000, 2);
    writeFileSync(path, labels.map(line).join(""));
    const size = statSync(path).size;
    const slice = 16 * 1024;
    const counting = countingFs();
    const reader = createLabelCounts({ path, now: () => 0, fs: counting.fs, sliceBytes: slice });
    // Each scrape reads one slice and stops at the last line's end in it; until the end is reached
    // it shows the last complete counts (none yet).
    let scrapes = 0;
    let counts = new Map<string, number>() as ReadonlyMap<string, number>;
    do {
      counting.reset();
      counts = reader.counts();
      scrapes++;
      expect(counting.read()).toBeLessThanOrEqual(slice);
    } while (counts.size === 0 && scrapes <= size / 1000);
    expect(scrapes).toBeGreaterThanOrEqual(Math.ceil(size / slice));
    expect(scrapes).toBeLessThanOrEqual(Math.ceil(size / (slice - 200)));
    expect(Object.fromEntries(counts)).toEqual(wholeFileCounts(labels));
  });

  it("reads on slice by slice within a scrape, letting the event loop run between slices, up to slicesPerScrape", async () => {
    const path = join(tempDir(), "labels.jsonl");
    const labels = labelRun(3000, 7);
    writeFileSync(path, labels.map(line).join(""));
    const slices = Math.ceil(statSync(path).size / (8 * 1024 - 200));
    const otel = testOtel();
    registerReviewLabelsGauge(otel.meterProvider.getMeter("test"), { path, sliceBytes: 8 * 1024, slicesPerScrape: Math.ceil(slices / 2) + 1 });
    const total = async (): Promise<number> => ((await otel.metrics()).get("groundwatch.review.labels") ?? []).reduce((sum, p) => sum + Number(p.value), 0);
    let turns = 0;
    const tick = (): void => {
      turns++;
      if (turns < 1000) setImmediate(tick);
    };
    setImmediate(tick);
    // The first scrape stops half-way: the last complete counts (none) are shown; the event loop ran meanwhile.
    expect(await total()).toBe(0);
    expect(turns).toBeGreaterThan(1);
    const whole = Object.values(wholeFileCounts(labels)).reduce((a, b) => a + b, 0);
    expect(await total()).toBe(whole);
  });

  it("counts the file again after review delete blanked labels in place, and after the file was replaced", () => {
    const dir = join(tempDir(), "spool");
    mkdirSync(dir);
    const path = labelsPath(dir);
    const trace = "5b8efff798038103d269b633813fc60c";
    const doomed = { ...f1, id: `${trace}-aaaaaaaaaaaaaaaa` };
    appendFileSync(path, [reviewLabel(doomed, "ann", 0), reviewLabel(f2, "ann", 0), reviewLabel(g1, "ann", 1)].map(line).join(""));
    let now = 0;
    const reader = createLabelCounts({ path, now: () => now });
    expect(Object.fromEntries(reader.counts())).toEqual({ "flagged agree": 2, "grounded_sample agree": 1 });
    expect(deleteTrace(dir, trace, path)).toMatchObject({ labels: 1 });
    now += 30_000;
    reader.counts();
    expect(Object.fromEntries(reader.counts())).toEqual({ "flagged agree": 1, "grounded_sample agree": 1 });
    // Another file renamed over it (another inode), shorter than what was read.
    const other = join(dir, "other.jsonl");
    writeFileSync(other, line(reviewLabel(g1, "bob", 0)));
    renameSync(other, path);
    now += 30_000;
    expect(Object.fromEntries(reader.counts())).toEqual({ "grounded_sample disagree": 1 });
  });

  it("reads the file from its start after a read failed half-way through a look, counting no label twice", () => {
    const path = join(tempDir(), "labels.jsonl");
    // Over 2 MiB: one look (a slice larger than the file) reads it in several 1 MiB chunks.
    const labels = labelRun(20_000, 8);
    writeFileSync(path, labels.map(line).join(""));
    let reads = 0;
    const fs: SpoolFileOps = {
      ...nodeFs,
      readSync: ((...args: Parameters<typeof nodeFs.readSync>) => {
        if (++reads === 2) throw Object.assign(new Error("I/O error"), { code: "EIO" });
        return nodeFs.readSync(...args);
      }) as typeof nodeFs.readSync,
    };
    let now = 0;
    const reader = createLabelCounts({ path, now: () => now, fs, sliceBytes: 8 * 2 ** 20 });
    // The second read fails after the first chunk's labels were counted: the next look starts over.
    expect(reader.counts().size).toBe(0);
    expect(reads).toBe(2);
    now += 30_000;
    expect(Object.fromEntries(reader.counts())).toEqual(wholeFileCounts(labels));
  });

  it("counts what the whole file says, label by label, whatever the order of labels, undos and reviewers", () => {
    for (const seed of [3, 4, 5, 6]) {
      const labels = labelRun(3000, seed);
      const tally = createLabelTally();
      for (const [i, l] of labels.entries()) {
        tally.add(l);
        if (i % 500 === 499) expect(Object.fromEntries(tally.counts()), `seed ${seed}, label ${i}`).toEqual(wholeFileCounts(labels.slice(0, i + 1)));
      }
    }
  });

  it("adds labels in time linear in their number, one answer labelled by many reviewers and undone over and over included", () => {
    const make = (n: number): LabelRecord[] =>
      Array.from({ length: n }, (_, i) => (i % 2 === 0 ? reviewLabel(f1, `r${i}`, 0) : { v: 1, id: "f1", reviewer: "r0", time: "2026-11-20T12:00:00.000Z", kind: "flagged" as const, ...(i % 4 === 1 ? { undo: true as const } : { label: 1 as const }) }));
    // 500 against 4,000 labels, samples of at least 4 ms: at 1,000 against 8,000 the larger took 371
    // fresh pages a run in a CI run of the whole suite (none when the test ran alone), ×19.8 busy.
    expectLinear("label tally", measureGrowth(make, (labels) => {
      const tally = createLabelTally();
      for (const l of labels) tally.add(l);
    }, { n: 500, maxN: 500, minMs: 4 }));
  });

  it("passes over a labels file that links to /dev/zero or is a FIFO: the scrape answers, and each look is counted", async () => {
    const dir = join(tempDir(), "spool");
    mkdirSync(dir);
    symlinkSync("/dev/zero", labelsPath(dir));
    // A FIFO named like a segment: the spool writer reads each segment's last line when it opens the directory.
    fifo(join(dir, segmentName("planted", Date.parse("2026-11-01T00:00:00Z"), 0)));
    const c = await startTestCollector({ monitor: { captureContent: true, review: { dir } } });
    const text = await (await fetch(`${c.url}/metrics`)).text();
    expect(metric(text, "groundwatch_review_labels")).toBe(0);
    // The writer passed over the FIFO, the gauge the link: one metric family, both counted.
    expect(metric(text, "groundwatch_review_files_skipped_total", 'groundwatch_reason="not_regular"')).toBe(2);
    expect(text.match(/^# TYPE groundwatch_review_files_skipped_total /gm)).toHaveLength(1);
  });

  it("is exported on the collector's /metrics when it has a review dir", async () => {
    const dir = join(tempDir(), "spool");
    mkdirSync(dir);
    appendFileSync(labelsPath(dir), [reviewLabel(f1, "ann", 0), reviewLabel(f2, "ann", 1), reviewLabel(g1, "ann", 1)].map(line).join(""));
    // The monitor's review spool (content capture on, as review needs) is the labels file's folder.
    const c = await startTestCollector({ monitor: { captureContent: true, review: { dir } } });
    const text = await (await fetch(`${c.url}/metrics`)).text();
    expect(text).toMatch(/groundwatch_review_labels\{[^}]*groundwatch_review_kind="flagged",groundwatch_review_agreement="agree"[^}]*\} 1/);
    expect(text).toMatch(/groundwatch_review_labels\{[^}]*groundwatch_review_kind="flagged",groundwatch_review_agreement="disagree"[^}]*\} 1/);
    expect(text).toMatch(/groundwatch_review_labels\{[^}]*groundwatch_review_kind="grounded_sample",groundwatch_review_agreement="agree"[^}]*\} 1/);
    expect(text).toMatch(/groundwatch_review_labels\{[^}]*groundwatch_review_kind="grounded_sample",groundwatch_review_agreement="disagree"[^}]*\} 0/);
  });

  it("is not exported without a review dir", async () => {
    const c = await startTestCollector();
    expect(await (await fetch(`${c.url}/metrics`)).text()).not.toContain("groundwatch_review_labels");
  });
});
