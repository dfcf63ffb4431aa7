import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AnswerSpan, Evidence } from "../../src/core/result.ts";
import { summarize } from "../../src/evaluation/summary.ts";
import { spoolRecordOf } from "../../src/evaluation/views.ts";
import { exportRows, majorityLabels } from "../../src/review/export.ts";
import type { SpoolRecord } from "../../src/review/record.ts";
import { REVIEW_RECORD_VERSION } from "../../src/review/record.ts";
import { openReviewSession } from "../../src/review/session.ts";
import { currentLabels, readLabelRecords, readSpools } from "../../src/review/spool-files.ts";
import { viewableRecord } from "../../src/review/viewable.ts";
import { tempDir } from "../helpers/cli.ts";
import { createFakeBackend } from "../helpers/fake-backend.ts";
import { scoreOnce } from "../helpers/record-summary.ts";
import { spoolRecord, writeSpool } from "../cli/review-web-fixtures.ts";

const DOC = "The shop sells cakes and pies. The shop NOT-bread opens at eight. Our tea room seats forty guests by the river.";
const ANSWER = "The shop sells bread. The tea room has a piano.";
const AT = { route: "/r", traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331" };
const NOW = (): Date => new Date("2026-12-01T12:00:00.000Z");

/** A spooled answer with two spans: "bread" (claim 0) and "a piano" (claim 1). */
const SPANS = [
  { start: 15, end: 20, probability: 0.91, claim: 0, text: "bread" },
  { start: 39, end: 46, probability: 0.775, claim: 1, text: "a piano" },
];

describe("spans in the review spool", () => {
  it("a spool record carries the spans (offsets, probability, claim, redacted words), the claims' spans, reason and decidedBy, and evidence.also, and reads back as written", async () => {
    const scored = await scoreOnce(createFakeBackend(), { context: [DOC], answer: ANSWER });
    const first = scored.claims[0];
    if (!first) throw new Error("no claim");
    const evidence = (first.contradictingEvidence ?? first.evidence) as Evidence;
    const also = { doc: 0, start: 0, end: 30, text: "The shop sells cakes and pies.", window: { start: 0, end: 30 } };
    const r = {
      ...scored,
      claims: scored.claims.map((c, i) => ({ ...c, spans: [i], reason: "unsupported_span" as const, ...(i === 0 ? { contradictingEvidence: { ...evidence, also }, evidence: { ...evidence, also }, decidedBy: "triage" as const } : {}) })),
      spans: SPANS as AnswerSpan[],
      callsByEngine: { claims: scored.entailmentCalls, spans: 1 },
    };
    const made = spoolRecordOf({ context: [DOC], answer: ANSWER }, summarize(r, false, true), AT, "flagged", { replica: "r1", time: "2026-12-01T10:00:00.000Z", sampleRate: 1, redact: (t) => t.replace("piano", "[redacted]") });
    expect(made.spans).toEqual([SPANS[0], { ...SPANS[1], text: "a [redacted]" }]);
    expect(made.claims[0]).toMatchObject({ spans: [0], reason: "unsupported_span", decidedBy: "triage", evidence: { also: { doc: 0, start: 0, end: 30 } } });
    expect(made.claims[1]).toMatchObject({ spans: [1], reason: "unsupported_span" });
    expect(made.claims[1]).not.toHaveProperty("decidedBy");
    const dir = tempDir();
    writeSpool(dir, [{ v: REVIEW_RECORD_VERSION, ...made } as SpoolRecord]);
    const [read] = readSpools([dir]).records;
    expect(read && viewableRecord(read)).toEqual({ v: REVIEW_RECORD_VERSION, ...made });
  });

  it("a spool record has no spans when no span detector ran", async () => {
    const scored = await scoreOnce(createFakeBackend(), { context: [DOC], answer: ANSWER });
    const made = spoolRecordOf({ context: [DOC], answer: ANSWER }, summarize(scored, false, true), AT, "flagged", { replica: "r1", time: "t", sampleRate: 1, redact: (t) => t });
    expect(made).not.toHaveProperty("spans");
  });

  it("a view keeps every span in its place: one that is not an object becomes an empty span, so indexes still match", () => {
    const hostile = { ...spoolRecord("a1"), spans: ["x", { start: 1, end: 3, probability: "high", claim: "0", text: 7 }, SPANS[0]] } as unknown as SpoolRecord;
    expect(viewableRecord(hostile).spans).toEqual([{ start: 0, end: 0, probability: 0, claim: null, text: "" }, { start: 1, end: 3, probability: 0, claim: null, text: "" }, SPANS[0]]);
  });
});

describe("span labels", () => {
  function open(reviewer: string, dir: string) {
    return openReviewSession({ dirs: [dir], labelsFile: join(dir, "labels.jsonl"), reviewer, now: NOW });
  }

  it("marking a span wrong is written on the label (the record's spans only, each once, in order) and read back", async () => {
    const dir = tempDir();
    writeSpool(dir, [spoolRecord("a1", { spans: SPANS })]);
    const outcome = await (await open("ana", dir)).label({ id: "a1", agreement: "disagree", spans: [{ span: 1, verdict: "wrong" }, { span: 9, verdict: "wrong" }, { span: 1, verdict: "wrong" }, { span: 0, verdict: "wrong" }] });
    const written = "written" in outcome ? outcome.written : undefined;
    expect(written?.spans).toEqual([{ span: 0, verdict: "wrong" }, { span: 1, verdict: "wrong" }]);
    expect(readLabelRecords(join(dir, "labels.jsonl")).labels).toEqual([written]);
  });

  it("a label line whose span marks are not {span, verdict wrong} is unreadable", () => {
    const dir = tempDir();
    const file = join(dir, "labels.jsonl");
    const base = { v: 1, id: "a1", reviewer: "ana", time: "t", label: 0, kind: "flagged" };
    writeFileSync(file, [JSON.stringify({ ...base, spans: [{ span: 0, verdict: "right" }] }), JSON.stringify({ ...base, spans: [{ span: -1, verdict: "wrong" }] }), JSON.stringify({ ...base, spans: [{ span: 0, verdict: "wrong" }] })].join("\n") + "\n");
    const read = readLabelRecords(file);
    expect(read.unreadable).toBe(2);
    expect(read.labels).toHaveLength(1);
  });

  it("exports the spans a majority of the answer's reviewers marked wrong, with the span's offsets, probability, claim and words", async () => {
    const dir = tempDir();
    writeSpool(dir, [spoolRecord("a1", { spans: SPANS })]);
    await (await open("ana", dir)).label({ id: "a1", agreement: "disagree", spans: [{ span: 1, verdict: "wrong" }] });
    await (await open("bo", dir)).label({ id: "a1", agreement: "disagree", spans: [{ span: 0, verdict: "wrong" }, { span: 1, verdict: "wrong" }] });
    await (await open("cy", dir)).label({ id: "a1", agreement: "disagree" });
    const majority = majorityLabels(currentLabels(readLabelRecords(join(dir, "labels.jsonl")).labels));
    expect(majority.labels.get("a1")?.spans).toEqual([{ span: 1, verdict: "wrong", votes: 2 }]);
    const { rows } = exportRows(readSpools([dir]).records, majority);
    expect(rows[0]?.spanLabels).toEqual([{ span: 1, start: 39, end: 46, probability: 0.775, claim: 1, text: "a piano", verdict: "wrong", votes: 2 }]);
  });
});
