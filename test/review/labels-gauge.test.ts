import { appendFileSync, mkdirSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLabelCounts } from "../../src/review/labels-gauge.ts";
import { labelsPath } from "../../src/review/spool-files.ts";
import { tempDir } from "../helpers/cli.ts";
import { startTestCollector } from "../helpers/collector.ts";
import { reviewLabel, spoolRecord } from "../helpers/review-spool.ts";

const f1 = spoolRecord("f1", "flagged", "2026-11-01T00:00:00Z");
const f2 = spoolRecord("f2", "flagged", "2026-11-01T00:00:00Z");
const g1 = spoolRecord("g1", "grounded_sample", "2026-11-01T00:00:00Z");
const line = (l: object): string => `${JSON.stringify(l)}\n`;

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
