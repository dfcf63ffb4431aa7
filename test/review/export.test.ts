import { describe, expect, it } from "vitest";
import type { LabelRecord, SpoolRecord } from "../../src/review/record.ts";
import { currentLabels } from "../../src/review/spool-files.ts";
import { describeProduction, exportRows, majorityLabels, productionTally } from "../../src/review/export.ts";
import { parseEvalSetRow, parseScoreRow } from "../../src/cli/shared/score-rows.ts";

const record = (id: string, kind: SpoolRecord["kind"], time = "2026-11-02T10:00:00.000Z"): SpoolRecord => ({
  v: 1,
  id,
  kind,
  time,
  route: "/ask",
  traceId: `trace-${id}`,
  spanId: `span-${id}`,
  replica: "r1",
  question: "Where is the office?",
  answer: "The office is in Paris. It opened in 1990.",
  documents: [{ text: "The office is in Paris." }, { id: "handbook", title: "Handbook", text: "It opened in 1990." }],
  verdict: kind === "flagged" ? "ungrounded" : "grounded",
  score: kind === "flagged" ? 0.2 : 0.9,
  threshold: 0.5,
  ...(kind === "flagged" ? { cause: "generation" as const } : {}),
  claims: [
    { index: 0, text: "The office is in Paris.", start: 0, end: 23, verdict: "supported", score: 0.9 },
    { index: 1, text: "It opened in 1990.", start: 24, end: 42, verdict: "unsupported", score: 0.1 },
  ],
  backend: { name: "offline", version: "1", tier: "triage" },
  sampleRate: kind === "flagged" ? 1 : 0.05,
});

const label = (id: string, reviewer: string, value: 0 | 1, kind: SpoolRecord["kind"], extra: Partial<LabelRecord> = {}): LabelRecord => ({ v: 1, id, reviewer, time: "2026-11-03T09:00:00.000Z", label: value, kind, ...extra });

describe("review export: labels as eval-set rows", () => {
  it("gives each answer its reviewers' majority label, leaving an even split out and counting it", () => {
    const labels = [
      label("a", "ann", 0, "flagged"),
      label("a", "bob", 0, "flagged", { time: "2026-11-04T09:00:00.000Z", claims: [{ index: 1, label: 0 }] }),
      label("a", "cat", 1, "flagged", { claims: [{ index: 1, label: 1 }, { index: 0, label: 1 }] }),
      label("b", "ann", 1, "flagged"),
      label("b", "bob", 0, "flagged"),
      // bob first said 0 for c, then took it back: only ann's 1 stands.
      label("c", "ann", 1, "grounded_sample"),
      label("c", "bob", 0, "grounded_sample"),
      { v: 1, id: "c", reviewer: "bob", time: "2026-11-03T10:00:00.000Z", kind: "grounded_sample", undo: true },
    ] satisfies LabelRecord[];
    const majority = majorityLabels(currentLabels(labels));
    expect(majority.ties).toEqual(["b"]);
    const a = majority.labels.get("a");
    expect(a).toMatchObject({ label: 0, reviewers: ["ann", "bob", "cat"], votes: { grounded: 1, notGrounded: 2 }, reviewedAt: "2026-11-04T09:00:00.000Z" });
    // Claim 1: bob 0, cat 1 — tied, left out; claim 0: cat alone says 1.
    expect(a?.claims).toEqual([{ index: 0, label: 1 }]);
    expect(majority.labels.get("c")).toMatchObject({ label: 1, reviewers: ["ann"] });
    expect(majorityLabels(currentLabels(labels), "bob").labels.get("b")?.label).toBe(0);
  });

  it("writes rows that eval and calibrate read as they are, with the review beside them", () => {
    const majority = majorityLabels(currentLabels([label("a", "ann", 0, "flagged", { claims: [{ index: 1, label: 0 }] }), label("g", "ann", 0, "grounded_sample"), label("h", "ann", 1, "grounded_sample"), label("gone", "ann", 1, "flagged")]));
    const result = exportRows([record("a", "flagged"), record("g", "grounded_sample"), record("h", "grounded_sample")], majority);
    expect(result).toMatchObject({ ties: 0, notInSpool: 1, agreeing: 0 });
    expect(result.rows.map((r) => [r.id, r.label, r.review.agreement])).toEqual([
      ["a", 0, "agree"],
      ["g", 0, "disagree"],
      ["h", 1, "agree"],
    ]);
    const [row] = result.rows;
    expect(row?.context).toEqual([{ id: "1", text: "The office is in Paris." }, { id: "handbook", title: "Handbook", text: "It opened in 1990." }]);
    expect(row?.claimLabels).toEqual([{ index: 1, text: "It opened in 1990.", start: 24, end: 42, label: 0 }]);
    expect(row?.review).toMatchObject({ traceId: "trace-a", reviewers: ["ann"], kind: "flagged", verdict: "ungrounded", score: 0.2, threshold: 0.5, cause: "generation" });
    // Read by the one row reader eval and calibrate share, unchanged.
    const line = JSON.stringify(row);
    expect(parseEvalSetRow(JSON.parse(line), "line 1", 1)).toMatchObject({ format: "groundwatch", id: "a", label: 0, answer: row?.answer });
    expect(parseScoreRow(line, 1)).toMatchObject({ ok: true });
  });

  it("keeps only the answers whose label disagrees with groundwatch for --only disagreements (the regression set)", () => {
    const majority = majorityLabels(currentLabels([label("a", "ann", 1, "flagged"), label("b", "ann", 0, "flagged"), label("g", "ann", 0, "grounded_sample"), label("h", "ann", 1, "grounded_sample")]));
    const result = exportRows([record("a", "flagged"), record("b", "flagged"), record("g", "grounded_sample"), record("h", "grounded_sample")], majority, "disagreements");
    expect(result.rows.map((r) => r.id)).toEqual(["a", "g"]);
    expect(result.agreeing).toBe(2);
  });

  // Issue 36: a drift reference built from an export compared every route with every flagged answer and a 5% grounded sample, pooled.
  it("says the rate each row's kind was spooled at and the share of its route's spooled answers of its kind that the export holds", () => {
    const onRoute = (id: string, kind: SpoolRecord["kind"], route: string): SpoolRecord => ({ ...record(id, kind), route });
    const records = [onRoute("f1", "flagged", "/a"), onRoute("f2", "flagged", "/a"), onRoute("g1", "grounded_sample", "/a"), onRoute("g2", "grounded_sample", "/a"), onRoute("g3", "grounded_sample", "/a"), onRoute("g4", "grounded_sample", "/a"), onRoute("h1", "grounded_sample", "/b")];
    // Both flagged answers of /a reviewed; one of its four grounded samples (as a reviewer who stopped after the flagged ones would leave it); a tie is not exported.
    const majority = majorityLabels(currentLabels([label("f1", "ann", 0, "flagged"), label("f2", "ann", 0, "flagged"), label("g1", "ann", 1, "grounded_sample"), label("g2", "ann", 1, "grounded_sample"), label("g2", "bob", 0, "grounded_sample"), label("h1", "ann", 1, "grounded_sample")]));
    const rows = exportRows(records, majority).rows;
    expect(rows.map((r) => [r.id, r.review.route, r.review.sampleRate, r.review.reviewedShare])).toEqual([
      ["f1", "/a", 1, 1],
      ["f2", "/a", 1, 1],
      ["g1", "/a", 0.05, 0.25],
      ["h1", "/b", 0.05, 1],
    ]);
    // Chosen by their label, --only disagreements rows say so, and carry no share.
    const disagreeing = exportRows(records, majorityLabels(currentLabels([label("f1", "ann", 1, "flagged")])), "disagreements").rows;
    expect(disagreeing.map((r) => r.review)).toEqual([expect.objectContaining({ sampleRate: 1, selected: "disagreements" })]);
    expect(disagreeing[0]?.review.reviewedShare).toBeUndefined();
  });

  it("tallies the production provenance of rows carrying review fields, and ignores other rows", () => {
    const tally = productionTally();
    expect(tally.provenance()).toBeUndefined();
    tally.add({ id: 1, answer: "x", context: "y", label: 1 });
    tally.add({ review: { reviewers: ["ann", "bob"], time: "2026-11-05T00:00:00Z" } });
    tally.add({ review: { reviewers: ["bob"], time: "2026-11-01T12:00:00.000Z" } });
    tally.add({ review: { reviewers: [], time: "2026-10-01T00:00:00Z" } });
    const p = tally.provenance();
    expect(p).toEqual({ rows: 2, reviewers: 2, from: "2026-11-01T12:00:00.000Z", to: "2026-11-05T00:00:00.000Z" });
    expect(describeProduction(p as NonNullable<typeof p>)).toBe("labels from production review: 2 answers by 2 reviewers, from 2026-11-01T12:00:00.000Z to 2026-11-05T00:00:00.000Z");
  });
});
