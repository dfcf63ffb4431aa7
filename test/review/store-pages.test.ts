import { appendFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { SpoolRecord } from "../../src/review/record.ts";
import { labelsPath, segmentName } from "../../src/review/spool-files.ts";
import type { SpoolPosition } from "../../src/review/spool-pages.ts";
import { createSpoolIndex, readLabelsPage, readRecordsPage } from "../../src/review/spool-pages.ts";
import { tempDir } from "../helpers/cli.ts";
import { reviewLabel, spoolRecord } from "../helpers/review-spool.ts";

const rec = (id: string): SpoolRecord => spoolRecord(id, "flagged", "2026-11-01T10:00:00.000Z");
const line = (r: unknown): string => `${JSON.stringify(r)}\n`;

/** Segments 0, 1, 2 of replica r1 with ids s<seg>-<i>. */
function spool(perSegment = 4): { dir: string; segment: (seq: number) => string } {
  const dir = join(tempDir(), "spool");
  mkdirSync(dir);
  const segment = (seq: number): string => join(dir, segmentName("r1", Date.parse("2026-11-01T00:00:00Z"), seq));
  for (let s = 0; s < 3; s++) writeFileSync(segment(s), Array.from({ length: perSegment }, (_, i) => line(rec(`s${s}-${i}`))).join(""));
  return { dir, segment };
}

/** Every page from `position` on: the ids, the pages and the last position. */
function readAll(dir: string, limit: number, maxBytes: number, position?: SpoolPosition): { ids: string[]; pages: number; position: SpoolPosition | undefined; unreadable: number } {
  const ids: string[] = [];
  let pages = 0;
  let unreadable = 0;
  for (;;) {
    const page = readRecordsPage(dir, position, limit, maxBytes);
    pages++;
    ids.push(...page.items.map((r) => r.id));
    unreadable += page.unreadable;
    position = page.position;
    if (!page.more) return { ids, pages, position, unreadable };
  }
}

describe("a spool read a page at a time over the API", () => {
  it("reads every record once, in spool order, across segments, within the item and byte bounds", () => {
    const { dir } = spool();
    const all = Array.from({ length: 3 }, (_, s) => Array.from({ length: 4 }, (__, i) => `s${s}-${i}`)).flat();
    expect(readAll(dir, 5, 2 ** 20).ids).toEqual(all);
    const byBytes = readAll(dir, 1000, 1);
    expect(byBytes.ids).toEqual(all);
    expect(byBytes.pages).toBeGreaterThanOrEqual(all.length);
  });

  it("goes on from where it ended: records appended later, a segment deleted meanwhile, a torn line before a later segment", () => {
    const { dir, segment } = spool();
    const first = readAll(dir, 1000, 2 ** 20);
    appendFileSync(segment(2), line(rec("late")));
    expect(readAll(dir, 1000, 2 ** 20, first.position).ids).toEqual(["late"]);
    // Mid-read, the segment it stands in is deleted (retention): the next page starts at the next segment.
    const partway = readRecordsPage(dir, undefined, 2, 2 ** 20);
    rmSync(segment(0));
    expect(readAll(dir, 1000, 2 ** 20, partway.position).ids[0]).toBe("s1-0");
    // A crash's torn last line in a segment with a later one after it: counted, and read on past it.
    appendFileSync(segment(1), '{"v":1,"id":"torn"');
    const again = readAll(dir, 1000, 2 ** 20);
    expect(again.ids).not.toContain("torn");
    expect(again.unreadable).toBe(1);
    expect(again.ids.at(-1)).toBe("late");
  });

  it("pages a labels file and knows which answers the spool holds as it grows", () => {
    const { dir, segment } = spool(1);
    const file = labelsPath(dir);
    writeFileSync(file, [reviewLabel(rec("s0-0"), "ann", 0), "not json", reviewLabel(rec("s1-0"), "bo", 1)].map((l) => (typeof l === "string" ? `${l}\n` : line(l))).join(""));
    const page = readLabelsPage(file, undefined, 1, 2 ** 20);
    expect(page.items.map((l) => l.reviewer)).toEqual(["ann"]);
    const rest = readLabelsPage(file, page.position, 10, 2 ** 20);
    expect(rest).toMatchObject({ more: false, unreadable: 1 });
    expect(rest.items.map((l) => l.reviewer)).toEqual(["bo"]);
    const index = createSpoolIndex(dir);
    expect(index.holds("s2-0")).toBe(true);
    expect(index.holds("new")).toBe(false);
    appendFileSync(segment(2), line(rec("new")));
    expect(index.holds("new")).toBe(true);
    rmSync(segment(2));
    expect(index.holds("new")).toBe(false);
  });
});
