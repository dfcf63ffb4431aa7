import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ClaimResult } from "../../src/core/result.ts";
import { createFlaggedRing } from "../../src/evaluation/flagged-ring.ts";
import type { ClaimText, EvaluationSummary } from "../../src/evaluation/types.ts";
import { claimSummary, claimText, evaluationEventOf, flaggedAnswerOf } from "../../src/evaluation/views.ts";
import { readSpools } from "../../src/review/spool-files.ts";
import { createReviewSpool } from "../../src/sdk/review-spool.ts";
import { createContentPolicy } from "../../src/telemetry/content-policy.ts";
import type { Instruments } from "../../src/telemetry/instruments.ts";
import { tempDir } from "../helpers/cli.ts";

describe("flaggedAnswerOf", () => {
  const summary: EvaluationSummary = {
    verdict: "ungrounded",
    score: 0.2,
    threshold: 0.5,
    reason: null,
    claims: { supported: 0, contradicted: 1, unsupported: 0, misattributed: 0 },
    skipped: 0,
    backend: { name: "offline", version: "1", tier: "triage" },
    limits: [],
    flaggedClaims: [{ verdict: "contradicted", start: 0, end: 20, evidence: { doc: 0, start: 5, end: 30 } }],
    content: { claims: ["Returns take 90 days."], evidence: ["Returns take 30 days."] },
  };
  const at = { route: "/a", traceId: "t", spanId: "s" };

  it("carries offsets and no text without a capture", () => {
    expect(flaggedAnswerOf(summary, at)?.claims).toEqual([{ verdict: "contradicted", start: 0, end: 20, evidence: { doc: 0, start: 5, end: 30 } }]);
  });

  it("carries the text through the capture given", () => {
    expect(flaggedAnswerOf(summary, at, { capture: (t) => t.replace(/\d+/g, "#") })?.claims[0]).toMatchObject({ text: "Returns take # days.", evidenceText: "Returns take # days." });
  });

  // Issue 36: the ring kept the evidence's document as its index alone, and neither question nor answer.
  it("with content capture, carries the question, the answer and the evidence document's names through the capture; without, none of them", () => {
    const input = { question: "How long for returns 2?", answer: "Returns take 90 days.", context: [{ id: "returns-7", title: "Returns 7", url: "https://example.com/7", text: "Returns take 30 days." }, "other"] };
    const capture = (t: string): string => t.replace(/\d+/g, "#");
    const on = flaggedAnswerOf(summary, at, { capture, input });
    expect(on).toMatchObject({ question: "How long for returns #?", answer: "Returns take # days." });
    expect(on?.claims[0]?.evidence).toEqual({ doc: 0, start: 5, end: 30, id: "returns-#", title: "Returns #", url: "https://example.com/#" });
    // A string document has no name: its position only.
    const second = flaggedAnswerOf({ ...summary, flaggedClaims: [{ verdict: "unsupported", start: 0, end: 20, evidence: { doc: 1, start: 0, end: 5 } }] }, at, { capture, input });
    expect(second?.claims[0]?.evidence).toEqual({ doc: 1, start: 0, end: 5 });
    const off = flaggedAnswerOf(summary, at);
    expect(off).not.toHaveProperty("question");
    expect(off).not.toHaveProperty("answer");
    expect(off?.claims[0]?.evidence).toEqual({ doc: 0, start: 5, end: 30 });
  });

  it("gives nothing for a grounded answer", () => {
    expect(flaggedAnswerOf({ ...summary, verdict: "grounded" }, at)).toBeUndefined();
  });
});

/** An ungrounded answer's wire form as a scoring worker sends it with content capture and review on. */
function ungrounded(): EvaluationSummary {
  return {
    verdict: "ungrounded",
    score: 0.12,
    threshold: 0.5,
    reason: null,
    claims: { supported: 1, contradicted: 1, unsupported: 0, misattributed: 0 },
    skipped: 0,
    backend: { name: "offline", version: "1", tier: "triage" },
    limits: [],
    entailment: { calls: 4, saved: { verbatim: 0, cache: 0, triage: 0 } },
    flaggedClaims: [{ verdict: "contradicted", start: 29, end: 57, evidence: { doc: 0, start: 0, end: 46 }, cause: "generation" }],
    content: { claims: ["It opened in 1890 on the Moon."], evidence: ["The office is in Paris. It opened in 1990."] },
    cause: "generation",
    reviewClaims: [
      { index: 0, text: "The office is in Paris.", start: 0, end: 23, verdict: "supported", score: 0.97, evidence: { doc: 0, start: 0, end: 23 } },
      { index: 1, text: "It opened in 1890 on the Moon.", start: 24, end: 54, verdict: "contradicted", score: 0.04, cause: "generation", evidence: { doc: 0, start: 24, end: 46 } },
    ],
  };
}

const observation = {
  question: "Where is the office, and when did it open?",
  answer: "The office is in Paris. It opened in 1890 on the Moon.",
  context: [{ id: "facts-1", title: "Office facts", url: "https://example.com/facts", text: "The office is in Paris. It opened in 1990." }, "A second document."],
};

const silentInstruments = (): Instruments => {
  const counter = { add: () => undefined };
  return { reviewSpooled: counter, reviewSkipped: counter, reviewFilesSkipped: counter } as unknown as Instruments;
};

/** Spools one flagged answer through the monitor's spool, and returns the one line written. */
function spooledLine(summary: EvaluationSummary): string {
  const dir = join(tempDir(), "spool");
  const review = { dir, groundedSampleRate: 0, maxBytes: 1 << 20, segmentBytes: 1 << 20, retentionMs: 86_400_000, replica: "r1" };
  const spool = createReviewSpool({ review, random: () => 0, content: createContentPolicy({ captureContent: true, redact: (t) => t.replace(/Paris/g, "[city]"), maxLength: 1000 }), instruments: silentInstruments, clock: () => Date.parse("2026-11-20T12:00:00.000Z") });
  try {
    expect(spool.offer(observation, summary, { route: "/ask", traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331" })).toBe("flagged");
  } finally {
    spool.close();
  }
  const segments = readdirSync(dir).filter((f) => f !== "labels.jsonl" && f.endsWith(".jsonl"));
  expect(segments).toHaveLength(1);
  const lines = readFileSync(join(dir, segments[0] ?? ""), "utf8").split("\n").filter((l) => l !== "");
  expect(lines).toHaveLength(1);
  return lines[0] ?? "";
}

const GOLDEN = readFileSync(join(import.meta.dirname, "..", "fixtures", "review", "spool-record-v1.json"), "utf8").trim();

describe("the review spool's record (a file format, review's own type)", () => {
  it("is written line for line as the golden record of format version 1", () => {
    expect(spooledLine(ungrounded())).toBe(GOLDEN);
    // And the reader takes it back.
    expect(JSON.parse(GOLDEN)).toMatchObject({ v: 1, kind: "flagged", verdict: "ungrounded" });
  });

  // Regression: the spool wrote the worker's claims and backend as they came (a spread), so a field
  // added to the wire form reached the file unnoticed.
  it("does not change when the scoring worker's wire form gains fields", () => {
    const summary = ungrounded();
    const wider = {
      ...summary,
      newWireField: { anything: 1 },
      backend: { ...summary.backend, model: "wire-only" },
      reviewClaims: (summary.reviewClaims ?? []).map((c) => ({ ...c, resampleSupport: 0.3, ...(c.evidence ? { evidence: { ...c.evidence, text: "wire-only" } } : {}) }) as unknown as ClaimText),
    } as EvaluationSummary;
    expect(spooledLine(wider)).toBe(GOLDEN);
  });

  it("is read back by the spool reader", () => {
    const dir = join(tempDir(), "spool");
    const review = { dir, groundedSampleRate: 0, maxBytes: 1 << 20, segmentBytes: 1 << 20, retentionMs: 86_400_000, replica: "r1" };
    const spool = createReviewSpool({ review, random: () => 0, content: createContentPolicy({ captureContent: true, maxLength: 1000 }), instruments: silentInstruments, clock: () => Date.now() });
    spool.offer(observation, ungrounded(), { route: "/ask", traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331" });
    spool.close();
    expect(readSpools([dir]).records.map((r) => r.id)).toEqual(["0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331"]);
  });
});

describe("flagged, defined once: the ring and the spool agree", () => {
  const unscorable: EvaluationSummary = { ...ungrounded(), verdict: "unscorable", score: null, threshold: null, reason: "no_checkable_claims", claims: { supported: 0, contradicted: 0, unsupported: 0, misattributed: 0 }, flaggedClaims: [], reviewClaims: [] };

  it("keeps an unscorable answer in the ring as unscorable, with its reason and no cause", () => {
    const ring = createFlaggedRing({ perRoute: 10, maxBytes: 1 << 20 });
    const entry = flaggedAnswerOf({ ...unscorable, cause: "generation" }, { route: "/ask", traceId: "t", spanId: "s" });
    if (entry) ring.add(entry);
    expect(ring.read()).toMatchObject([{ verdict: "unscorable", reason: "no_checkable_claims" }]);
    expect(ring.read()[0]).not.toHaveProperty("cause");
  });

  it("never spools an unscorable answer, and spools an ungrounded one as flagged", () => {
    const dir = join(tempDir(), "spool");
    const review = { dir, groundedSampleRate: 1, maxBytes: 1 << 20, segmentBytes: 1 << 20, retentionMs: 86_400_000, replica: "r1" };
    const spool = createReviewSpool({ review, random: () => 0, content: createContentPolicy({ captureContent: true, maxLength: 1000 }), instruments: silentInstruments });
    const at = { route: "/ask", traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331" };
    expect(spool.offer(observation, unscorable, at)).toBeUndefined();
    expect(spool.offer(observation, ungrounded(), { ...at, spanId: "b7ad6b7169203332" })).toBe("flagged");
    spool.close();
    expect(readSpools([dir]).records.map((r) => [r.kind, r.verdict])).toEqual([["flagged", "ungrounded"]]);
  });
});

describe("claim views", () => {
  const claim = {
    index: 2,
    text: "It opened in 1890.",
    start: 24,
    end: 42,
    verdict: "contradicted",
    score: 0.04,
    cause: "generation",
    reason: "contradicted by the context",
    evidence: { doc: 0, start: 0, end: 23, text: "The office is in Paris.", score: 0.4 },
    contradictingEvidence: { doc: 1, start: 10, end: 30, text: "It opened in 1990.", score: 0.96 },
  } as unknown as ClaimResult;

  it("a claim summary has no text: verdict, offsets, where its evidence lies, cause", () => {
    expect(claimSummary(claim)).toEqual({ verdict: "contradicted", start: 24, end: 42, evidence: { doc: 1, start: 10, end: 30 }, cause: "generation" });
  });

  it("a claim text adds the index, the text and the score", () => {
    expect(claimText(claim)).toEqual({ index: 2, text: "It opened in 1890.", start: 24, end: 42, verdict: "contradicted", score: 0.04, cause: "generation", evidence: { doc: 1, start: 10, end: 30 } });
  });
});

describe("evaluationEventOf", () => {
  it("gives onEvaluation the wire form without any text: no content, no review claims", () => {
    const event = evaluationEventOf("/ask", 0.25, ungrounded());
    expect(event).toMatchObject({ route: "/ask", durationMs: 250, result: { verdict: "ungrounded", flaggedClaims: [{ verdict: "contradicted" }] } });
    expect(event.result).not.toHaveProperty("content");
    expect(event.result).not.toHaveProperty("reviewClaims");
    expect(JSON.stringify(event)).not.toContain("Moon");
  });
});
