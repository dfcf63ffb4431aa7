import { describe, expect, it } from "vitest";
import type { AnswerSpan } from "../../src/core/result.ts";
import { summarize } from "../../src/evaluation/summary.ts";
import { evaluationEventOf } from "../../src/evaluation/views.ts";
import type { Evaluation } from "../../src/scoring/scorer.ts";
import { explanationOf, spansExplanation } from "../../src/telemetry/record.ts";
import {
  ATTR_CONTENT_SPANS,
  ATTR_ENGINE,
  ATTR_GEN_AI_EVALUATION_EXPLANATION,
  ATTR_ROUTE,
  ATTR_SPANS_CLAIM,
  ATTR_SPANS_COUNT,
  ATTR_SPANS_END,
  ATTR_SPANS_PROBABILITY,
  ATTR_SPANS_START,
  ENGINES,
  METRICS,
  SPAN_ATTRIBUTE_LIMIT,
} from "../../src/telemetry/semconv.ts";
import { createFakeBackend } from "../helpers/fake-backend.ts";
import { recordSummary, scoreOnce } from "../helpers/record-summary.ts";

const DOC = "The shop sells cakes and pies. The shop NOT-bread opens at eight. Our tea room seats forty guests by the river.";
const ANSWER = "The shop sells bread. The tea room has a piano.";

/** A scored answer with a span detector's marks added: "bread" in claim 0, "a piano" in claim 1. */
async function withSpans(spans?: AnswerSpan[]): Promise<Evaluation> {
  const r = await scoreOnce(createFakeBackend(), { context: [DOC], answer: ANSWER });
  const marked = spans ?? [
    { start: ANSWER.indexOf("bread"), end: ANSWER.indexOf("bread") + 5, probability: 0.91, claim: 0, text: "bread" },
    { start: ANSWER.indexOf("a piano"), end: ANSWER.indexOf("a piano") + 7, probability: 0.775, claim: 1, text: "a piano" },
  ];
  return { ...r, spans: marked, callsByEngine: { claims: r.entailmentCalls, spans: 2 } };
}

describe("spans in telemetry", () => {
  it("puts the spans' count, offsets, probabilities and claims on the evaluation span, and no words without content capture", async () => {
    const r = await withSpans();
    const { span } = await recordSummary(summarize(r, false), { openInference: false, captureContent: false });
    const a = span?.attributes ?? {};
    expect(a[ATTR_SPANS_COUNT]).toBe(2);
    expect(a[ATTR_SPANS_START]).toEqual([15, 39]);
    expect(a[ATTR_SPANS_END]).toEqual([20, 46]);
    expect(a[ATTR_SPANS_PROBABILITY]).toEqual([0.91, 0.775]);
    expect(a[ATTR_SPANS_CLAIM]).toEqual([0, 1]);
    expect(a).not.toHaveProperty(ATTR_CONTENT_SPANS);
    expect(JSON.stringify(a)).not.toContain("piano");
  });

  it("carries the spans' words, capped and redacted, only with content capture on", async () => {
    const r = await withSpans();
    const { span } = await recordSummary(summarize(r, true), { openInference: false, captureContent: true });
    expect(span?.attributes[ATTR_CONTENT_SPANS]).toEqual(["bread", "a piano"]);
  });

  it("marks a span outside every claim with claim -1, and lists at most SPAN_ATTRIBUTE_LIMIT while counting all", async () => {
    const many = Array.from({ length: SPAN_ATTRIBUTE_LIMIT + 3 }, (_, i) => ({ start: i, end: i + 1, probability: 0.6, claim: null, text: "x" }));
    const { span } = await recordSummary(summarize(await withSpans(many), false), { openInference: false, captureContent: false });
    expect(span?.attributes[ATTR_SPANS_COUNT]).toBe(SPAN_ATTRIBUTE_LIMIT + 3);
    expect(span?.attributes[ATTR_SPANS_START]).toHaveLength(SPAN_ATTRIBUTE_LIMIT);
    expect((span?.attributes[ATTR_SPANS_CLAIM] as number[])[0]).toBe(-1);
  });

  it("records no span attribute when no span detector ran", async () => {
    const r = await scoreOnce(createFakeBackend(), { context: [DOC], answer: ANSWER });
    const { span } = await recordSummary(summarize(r, false), { openInference: false, captureContent: false });
    expect(span?.attributes).not.toHaveProperty(ATTR_SPANS_COUNT);
    expect(explanationOf(summarize(r, false))).not.toContain("span");
  });

  it("names the spans in the evaluation event's explanation: offsets and probability, the words only with content capture", async () => {
    const r = await withSpans();
    const off = await recordSummary(summarize(r, false), { openInference: false, captureContent: false });
    const explained = String(off.logs[0]?.attributes[ATTR_GEN_AI_EVALUATION_EXPLANATION]);
    expect(explained).toContain("2 unsupported spans: [15, 20) p 0.910 in claim 0, [39, 46) p 0.775 in claim 1");
    expect(explained).not.toContain("bread");
    const on = await recordSummary(summarize(r, true), { openInference: false, captureContent: true });
    expect(String(on.logs[0]?.attributes[ATTR_GEN_AI_EVALUATION_EXPLANATION])).toContain('[15, 20) "bread" p 0.910 in claim 0');
  });

  it("says when the span detector marked nothing, and counts the spans past the ones it names", () => {
    expect(spansExplanation({ spans: [] })).toBe("; 0 unsupported spans");
    const many = Array.from({ length: 10 }, (_, i) => ({ start: i, end: i + 1, probability: 0.5, claim: null }));
    expect(spansExplanation({ spans: many })).toMatch(/; 10 unsupported spans: .*, 2 more$/);
  });

  it("gives onEvaluation the spans' offsets without their words", async () => {
    const event = evaluationEventOf("/r", 0.01, summarize(await withSpans(), true, true));
    expect(event.result.spans).toEqual([
      { start: 15, end: 20, probability: 0.91, claim: 0 },
      { start: 39, end: 46, probability: 0.775, claim: 1 },
    ]);
    expect(JSON.stringify(event)).not.toContain("piano");
  });

  it("counts model calls by engine: the claim detector's pairs under claims, the span detector's inputs under spans, by route", async () => {
    const r = await withSpans();
    const { metrics } = await recordSummary(summarize(r, false), { openInference: false, captureContent: false }, "/r");
    const calls = (metrics.get(METRICS.entailmentCalls.name) ?? []).map((p) => ({ engine: p.attributes[ATTR_ENGINE], route: p.attributes[ATTR_ROUTE], value: p.value }));
    expect(calls).toEqual(expect.arrayContaining([{ engine: "claims", route: "/r", value: r.entailmentCalls }, { engine: "spans", route: "/r", value: 2 }]));
    expect(calls.map((c) => c.engine).every((e) => (ENGINES as readonly unknown[]).includes(e))).toBe(true);
  });
});
