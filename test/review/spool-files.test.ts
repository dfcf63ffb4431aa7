import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { LabelRecord, SpoolRecord } from "../../src/review/record.ts";
import { agreementOf, labelFromAgreement } from "../../src/review/record.ts";
import { appendLabel, currentLabels, labelsPath, readLabelRecords, readSpools, segmentFiles, segmentName } from "../../src/review/spool-files.ts";
import { tempDir } from "../helpers/cli.ts";
import { spoolRecord } from "../helpers/review-spool.ts";

const record = (id: string, kind: SpoolRecord["kind"] = "flagged"): SpoolRecord => spoolRecord(id, kind, "2026-12-01T00:00:00.000Z");

describe("review spool files", () => {
  it("reads the segments of several replicas oldest first, each answer once, skipping a partial last line", () => {
    const a = join(tempDir(), "a");
    const b = join(tempDir(), "b");
    mkdirSync(a);
    mkdirSync(b);
    writeFileSync(join(a, segmentName("r1", 2000, 0)), `${JSON.stringify(record("x2"))}\n`);
    writeFileSync(join(a, segmentName("r1", 1000, 0)), `${JSON.stringify(record("x1"))}\n${JSON.stringify(record("x1"))}\n{"v":1,"id":"cut`);
    writeFileSync(join(b, segmentName("r2", 1500, 3)), `${JSON.stringify(record("y1", "grounded_sample"))}\n${JSON.stringify(record("x1"))}\n`);
    writeFileSync(join(a, "notes.txt"), "not a segment");
    expect(segmentFiles(a).map((f) => f.slice(a.length + 1))).toEqual([segmentName("r1", 1000, 0), segmentName("r1", 2000, 0)]);
    const read = readSpools([a, b]);
    expect(read.records.map((r) => r.id)).toEqual(["x1", "x2", "y1"]);
    expect(read.unreadable).toBe(1);
  });

  it("keeps each reviewer's last label of an answer, an undo taking back the one before", () => {
    const path = labelsPath(tempDir());
    const label = (id: string, reviewer: string, value: 0 | 1): LabelRecord => ({ v: 1, id, reviewer, time: "2026-12-01T00:00:00.000Z", label: value, agreement: agreementOf("flagged", value), kind: "flagged" });
    appendLabel(path, label("x1", "ana", 1));
    appendLabel(path, label("x1", "ana", 0));
    appendLabel(path, label("x1", "ben", 1));
    appendLabel(path, { v: 1, id: "x1", reviewer: "ben", time: "2026-12-01T00:00:01.000Z", kind: "flagged", undo: true });
    appendFileSync(path, "not json\n");
    const { labels, unreadable } = readLabelRecords(path);
    expect(unreadable).toBe(1);
    const current = currentLabels(labels);
    expect([...current.keys()]).toEqual(["x1\u0000ana"]);
    expect(current.get("x1\u0000ana")).toMatchObject({ label: 0, agreement: "agree" });
  });

  it("says whether a label agrees with the verdict: a flagged answer labelled not grounded, a grounded one labelled grounded", () => {
    expect([agreementOf("flagged", 0), agreementOf("flagged", 1), agreementOf("grounded_sample", 1), agreementOf("grounded_sample", 0)]).toEqual(["agree", "disagree", "agree", "disagree"]);
  });

  it("turns an agreement back into the label it means: agreeing with a flag means 0, and each label round-trips", () => {
    expect([labelFromAgreement("flagged", "agree"), labelFromAgreement("flagged", "disagree"), labelFromAgreement("grounded_sample", "agree"), labelFromAgreement("grounded_sample", "disagree")]).toEqual([0, 1, 1, 0]);
    for (const kind of ["flagged", "grounded_sample"] as const) for (const label of [0, 1] as const) expect(labelFromAgreement(kind, agreementOf(kind, label))).toBe(label);
  });
});
