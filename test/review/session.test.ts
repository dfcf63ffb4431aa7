import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { appendLabel, readLabelRecords } from "../../src/review/spool-files.ts";
import type { ReviewSession } from "../../src/review/session.ts";
import { ReviewSessionError, openReviewSession } from "../../src/review/session.ts";
import { tempDir } from "../helpers/cli.ts";
import { spoolRecord, writeSpool } from "../cli/review-web-fixtures.ts";

const NOW = (): Date => new Date("2026-12-01T12:00:00.000Z");

/** A spool of three flagged answers (a1, a2, a3, in review order) and a grounded sample (g1). */
async function open(reviewer = "ana"): Promise<{ session: ReviewSession; dir: string; labels: string }> {
  const dir = tempDir();
  writeSpool(dir, [spoolRecord("g1", { kind: "grounded_sample", verdict: "grounded", score: 0.9, sampleRate: 0.05 }), spoolRecord("a1"), spoolRecord("a2"), spoolRecord("a3")]);
  const labels = join(dir, "labels.jsonl");
  return { session: await openReviewSession({ dirs: [dir], labelsFile: labels, reviewer, now: NOW }), dir, labels };
}

describe("the review session both review views drive", async () => {
  it("puts answers in review order, each once, and moves on after a label or a skip", async () => {
    const { session } = await open();
    expect(session.next()?.id).toBe("a1");
    await session.label({ id: "a1", agreement: "agree" });
    session.skip("a2");
    expect(session.next()?.id).toBe("a3");
    expect(session.progress()).toEqual({ total: 4, labelled: 1, skipped: 1, remaining: 2 });
    expect(session.labelledNow()).toBe(1);
  });

  it("builds every label record: the reviewer, the clock, the agreement rule, the kind, and only the record's claims, each once, in order", async () => {
    const { session, labels } = await open();
    const { written } = (await session.label({ id: "a1", agreement: "agree", claims: [{ index: 1, label: 1 }, { index: 7, label: 0 }, { index: 0, label: 1 }, { index: 0, label: 0 }] })) as { written: unknown };
    expect(written).toEqual({ v: 1, id: "a1", reviewer: "ana", time: "2026-12-01T12:00:00.000Z", label: 0, agreement: "agree", claims: [{ index: 0, label: 0 }, { index: 1, label: 1 }], kind: "flagged" });
    expect(await session.label({ id: "g1", label: 0 })).toMatchObject({ written: { label: 0, agreement: "disagree", kind: "grounded_sample" } });
    expect(readLabelRecords(labels).labels).toEqual([written, expect.objectContaining({ id: "g1" })]);
  });

  it("refuses an id not in the spools and a label request with neither a label nor an agreement", async () => {
    const { session, labels } = await open();
    await expect(session.label({ id: "nope", label: 1 })).rejects.toThrow(expect.objectContaining({ name: "ReviewSessionError", reason: "unknown_answer" }) as ReviewSessionError);
    expect(() => session.skip("nope")).toThrow(ReviewSessionError);
    await expect(session.label({ id: "a1" })).rejects.toThrow(expect.objectContaining({ reason: "no_label" }) as ReviewSessionError);
    expect(readLabelRecords(labels).labels).toEqual([]);
  });

  it("undoes this session's labels latest first, each undone answer coming next again, latest undone first", async () => {
    const { session, labels } = await open();
    await session.label({ id: "a1", agreement: "agree" });
    await session.label({ id: "a2", agreement: "disagree" });
    expect(await session.undo()).toBe("a2");
    expect(await session.undo()).toBe("a1");
    expect(await session.undo()).toBeUndefined();
    expect(session.labelledNow()).toBe(0);
    expect(readLabelRecords(labels).labels.slice(-2)).toEqual([
      { v: 1, id: "a2", reviewer: "ana", time: "2026-12-01T12:00:00.000Z", kind: "flagged", undo: true },
      { v: 1, id: "a1", reviewer: "ana", time: "2026-12-01T12:00:00.000Z", kind: "flagged", undo: true },
    ]);
    expect(session.next()?.id).toBe("a1");
    await session.label({ id: "a1", agreement: "agree" });
    expect(session.next()?.id).toBe("a2");
  });

  it("queues only what this reviewer has in force: an undone label from an earlier session makes the answer due again", async () => {
    const { dir, labels } = await open();
    const base = { v: 1 as const, reviewer: "ana", time: "2026-12-01T11:00:00.000Z", kind: "flagged" as const };
    appendLabel(labels, { ...base, id: "a1", label: 0 });
    appendLabel(labels, { ...base, id: "a2", label: 0 });
    appendLabel(labels, { ...base, id: "a2", undo: true });
    const session = await openReviewSession({ dirs: [dir], labelsFile: labels, reviewer: "ana" });
    expect(session.next()?.id).toBe("a2");
    expect(session.progress()).toEqual({ total: 4, labelled: 1, skipped: 0, remaining: 3 });
  });

  it("does not show what this reviewer labelled in an earlier session, but shows it to another reviewer", async () => {
    const { session, dir, labels } = await open();
    await session.label({ id: "a1", agreement: "agree" });
    expect((await openReviewSession({ dirs: [dir], labelsFile: labels, reviewer: "ana" })).next()?.id).toBe("a2");
    expect((await openReviewSession({ dirs: [dir], labelsFile: labels, reviewer: "bo" })).next()?.id).toBe("a1");
  });
});
