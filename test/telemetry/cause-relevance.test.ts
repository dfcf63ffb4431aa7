import { describe, expect, it } from "vitest";
import type { RelevancePair } from "../../src/core/backend.ts";
import type { Observation, Evaluation } from "../../src/scoring/scorer.ts";
import { flaggedAnswerOf } from "../../src/evaluation/views.ts";
import { causeLabel } from "../../src/core/cause.ts";
import { context } from "@opentelemetry/api";
import { createInstruments } from "../../src/telemetry/instruments.ts";
import { explanationOf, recordEvaluation } from "../../src/telemetry/record.ts";
import { createContentPolicy } from "../../src/telemetry/content-policy.ts";
import { ATTR_CAUSE, ATTR_CLAIM_VERDICT, ATTR_REASON, ATTR_RELEVANCE_ANSWER, ATTR_RELEVANCE_CONTEXT, ATTR_ROUTE, ATTR_VERDICT, CAUSES, METRICS } from "../../src/telemetry/semconv.ts";
import type { EvaluationSummary } from "../../src/evaluation/types.ts";
import { summarize } from "../../src/evaluation/summary.ts";
import { createFakeBackend } from "../helpers/fake-backend.ts";
import { testOtel } from "../helpers/otel.ts";
import { recordSummary, scoreOnce } from "../helpers/record-summary.ts";

// Relevance scripted by topic: a passage speaks to a query when both name the same topic word.
const TOPICS = ["refund", "parking"];
function topicRelevance(pairs: readonly RelevancePair[]): Promise<number[]> {
  return Promise.resolve(pairs.map((p) => (TOPICS.some((t) => p.query.toLowerCase().includes(t) && p.passage.toLowerCase().includes(t)) ? 0.9 : 0.1)));
}
const REFUND_DOC = "The refund window is thirty days. Refunds reach the card used for the purchase.";
const PARKING_DOC = "Visitor parking is free on weekends. The parking garage closes at midnight.";
const QUESTION = "How does a refund work?";

const score = (observation: Observation, relevance = true): Promise<Evaluation> => scoreOnce(createFakeBackend(relevance ? { relevance: topicRelevance } : {}), observation);
const record = (summary: EvaluationSummary, route = "/api/ask") => recordSummary(summary, { openInference: true, captureContent: false }, route);
type Points = Array<{ attributes: Record<string, unknown>; value: unknown }>;
const sum = (points: Points | undefined, match: Record<string, unknown>): number =>
  (points ?? []).filter((p) => Object.entries(match).every(([k, v]) => p.attributes[k] === v)).reduce((n, p) => n + Number(p.value), 0);

describe("cause telemetry", () => {
  it("labels an ungrounded evaluation with its cause on the counter, the span, the evaluation event and its explanation", async () => {
    const s = summarize(await score({ question: QUESTION, answer: "A refund is paid in gold.", context: [PARKING_DOC] }), false);
    expect(s.cause).toBe("retrieval");
    const { span, logs, metrics } = await record(s, "/api/refunds");
    expect(span?.attributes[ATTR_CAUSE]).toBe("retrieval");
    const event = logs.find((l) => l.eventName === "gen_ai.evaluation.result");
    expect(event?.attributes?.[ATTR_CAUSE]).toBe("retrieval");
    expect(explanationOf(s)).toMatch(/^ungrounded \(cause: retrieval\); 1 claims: 0 supported/);
    expect(event?.attributes?.["gen_ai.evaluation.explanation"]).toBe(explanationOf(s));
    const evaluations = metrics.get(METRICS.evaluations.name) ?? [];
    // Every cause's series is started at 0 with the route's first evaluation; only retrieval counts one.
    expect(evaluations.filter((p) => Number(p.value) > 0).map((p) => p.attributes)).toEqual([expect.objectContaining({ [ATTR_VERDICT]: "ungrounded", [ATTR_CAUSE]: "retrieval" })]);
    expect(sum(metrics.get(METRICS.claims.name), { [ATTR_CLAIM_VERDICT]: "unsupported", [ATTR_CAUSE]: "retrieval" })).toBe(1);
  });

  it("gives grounded evaluations and supported claims no cause label", async () => {
    const s = summarize(await score({ question: QUESTION, answer: "The refund window is thirty days.", context: [REFUND_DOC] }), false);
    expect(s.verdict).toBe("grounded");
    const { span, metrics } = await record(s);
    expect(span?.attributes).not.toHaveProperty(ATTR_CAUSE);
    for (const name of [METRICS.evaluations.name, METRICS.claims.name]) for (const p of metrics.get(name) ?? []) if (p.attributes[ATTR_VERDICT] !== "ungrounded") expect(p.attributes).not.toHaveProperty(ATTR_CAUSE);
    // What carries a cause is only the ungrounded series, started at 0.
    expect((metrics.get(METRICS.evaluations.name) ?? []).filter((p) => p.attributes[ATTR_CAUSE] !== undefined).map((p) => p.value)).toEqual(CAUSES.map(() => 0));
  });

  // Regression: a cause series that appeared mid-window lost its first increase to Prometheus'
  // rate() (test/e2e/alerting.test.ts read 0.30 for a driven rate of 0.53).
  it("starts every cause's ungrounded series at 0 with a route's first evaluation, once, and not with relevance off", async () => {
    const grounded = summarize(await score({ question: QUESTION, answer: "The refund window is thirty days.", context: [REFUND_DOC] }), false);
    const { metrics } = await record(grounded, "/api/refunds");
    const started = (metrics.get(METRICS.evaluations.name) ?? []).filter((p) => p.attributes[ATTR_VERDICT] === "ungrounded");
    expect(started.map((p) => [p.attributes[ATTR_ROUTE], p.attributes[ATTR_CAUSE], p.value]).sort()).toEqual(CAUSES.map((c) => ["/api/refunds", c, 0]).sort());
    // The route's next evaluations start nothing again: an ungrounded one counts 1 on its cause only.
    const otel = testOtel();
    const instruments = createInstruments(otel.meterProvider.getMeter("test"));
    const ungrounded = summarize(await score({ question: QUESTION, answer: "A refund is paid in gold.", context: [PARKING_DOC] }), false);
    for (const summary of [grounded, ungrounded, grounded]) {
      const span = otel.tracerProvider.getTracer("test").startSpan("groundwatch.evaluate");
      recordEvaluation({ result: summary, route: "/api/refunds", span, eventContext: context.active(), logger: otel.loggerProvider.getLogger("test"), instruments, durationS: 0.01, options: { spanEvent: false, openInference: false, content: createContentPolicy({ captureContent: false, maxLength: 200 }) } });
      span.end();
    }
    expect(instruments.causeSeriesStarted.size).toBe(1);
    const points = ((await otel.metrics()).get(METRICS.evaluations.name) ?? []).filter((p) => p.attributes[ATTR_VERDICT] === "ungrounded");
    expect(points.map((p) => [p.attributes[ATTR_CAUSE], p.value]).sort()).toEqual(CAUSES.map((c) => [c, c === "retrieval" ? 1 : 0]).sort());
    // With relevance off (no relevance report, no cause) no cause series is started.
    const { relevance: _off, ...withoutRelevance } = grounded;
    const off = await record(withoutRelevance, "/api/other");
    expect((off.metrics.get(METRICS.evaluations.name) ?? []).filter((p) => p.attributes[ATTR_CAUSE] !== undefined)).toEqual([]);
  });

  it("splits the failing claims of a mixed answer by their own causes and counts the answer as mixed", async () => {
    const s = summarize(await score({ question: QUESTION, answer: "A refund is paid in gold [7]. A refund is paid in silver.", context: [REFUND_DOC] }), false);
    const { metrics } = await record(s);
    expect(sum(metrics.get(METRICS.evaluations.name), { [ATTR_CAUSE]: "mixed" })).toBe(1);
    const claims = metrics.get(METRICS.claims.name) ?? [];
    expect(claims.filter((p) => p.attributes[ATTR_CLAIM_VERDICT] !== "supported").map((p) => [p.attributes[ATTR_CLAIM_VERDICT], p.attributes[ATTR_CAUSE], p.value]).sort()).toEqual([
      ["unsupported", "citation", 1],
      ["unsupported", "generation", 1],
    ]);
  });

  it("never emits a cause outside the five values, whatever the summary carries", async () => {
    const s = summarize(await score({ question: QUESTION, answer: "A refund is paid in gold.", context: [PARKING_DOC] }), false);
    const forged: EvaluationSummary = { ...s, cause: "drop table" as never, flaggedClaims: (s.flaggedClaims ?? []).map((c) => ({ ...c, cause: "🔥" as never })) };
    const { span, metrics } = await record(forged);
    expect(span?.attributes).not.toHaveProperty(ATTR_CAUSE);
    // Only the five causes' series started at 0 carry the label; nothing the summary forged reaches it.
    for (const name of [METRICS.evaluations.name, METRICS.claims.name]) for (const p of metrics.get(name) ?? []) if (p.attributes[ATTR_CAUSE] !== undefined) expect([CAUSES.includes(p.attributes[ATTR_CAUSE] as never), p.value]).toEqual([true, 0]);
    expect(CAUSES.map((c) => causeLabel(c))).toEqual([...CAUSES]);
    expect([causeLabel("Retrieval"), causeLabel(undefined), causeLabel(1)]).toEqual([undefined, undefined, undefined]);
  });

  it("puts the cause on the flagged answer and each flagged claim", async () => {
    const s = summarize(await score({ question: QUESTION, answer: "A refund is paid in gold [7]. A refund is paid in silver.", context: [REFUND_DOC] }), false);
    const entry = flaggedAnswerOf(s, { route: "/api/ask", traceId: "t", spanId: "s" });
    expect(entry?.cause).toBe("mixed");
    expect(entry?.claims.map((c) => c.cause)).toEqual(["citation", "generation"]);
  });
});

describe("relevance telemetry", () => {
  it("records context and answer relevance by route and on the span when measured against a question", async () => {
    const s = summarize(await score({ question: QUESTION, answer: "The refund window is thirty days.", context: [REFUND_DOC, PARKING_DOC] }), false);
    expect(s.relevance).toEqual({ context: 0.9, answer: 0.9, offTopic: false });
    const { span, metrics } = await record(s, "/api/refunds");
    expect(span?.attributes).toMatchObject({ [ATTR_RELEVANCE_CONTEXT]: 0.9, [ATTR_RELEVANCE_ANSWER]: 0.9 });
    for (const name of [METRICS.contextRelevance.name, METRICS.answerRelevance.name]) {
      const [point, ...rest] = metrics.get(name) ?? [];
      expect(rest).toEqual([]);
      expect(point?.attributes).toEqual({ [ATTR_ROUTE]: "/api/refunds" });
      expect(point?.value).toMatchObject({ count: 1, sum: 0.9 });
    }
    expect(METRICS.contextRelevance.prometheus).toBe("groundwatch_context_relevance");
    expect(METRICS.answerRelevance.prometheus).toBe("groundwatch_answer_relevance");
    expect(METRICS.relevanceUnmeasured.prometheus).toBe("groundwatch_relevance_unmeasured_total");
  });

  it("records no context relevance without a question (the claims' relevance is not the question's)", async () => {
    const s = summarize(await score({ answer: "A refund is paid in gold.", context: [PARKING_DOC] }), false);
    expect(s.cause).toBe("retrieval");
    const { span, metrics } = await record(s);
    expect(span?.attributes).not.toHaveProperty(ATTR_RELEVANCE_CONTEXT);
    expect(metrics.has(METRICS.contextRelevance.name)).toBe(false);
    expect(metrics.has(METRICS.answerRelevance.name)).toBe(false);
  });

  it("counts relevance that could not be measured with its reason, and the cause is unknown", async () => {
    const s = summarize(await score({ question: QUESTION, answer: "A refund is paid in gold.", context: [PARKING_DOC] }, false), false);
    expect(s).toMatchObject({ cause: "unknown", relevance: { unmeasured: "no_relevance_scorer" } });
    const { metrics } = await record(s, "/api/refunds");
    expect(metrics.get(METRICS.relevanceUnmeasured.name)?.map((p) => [p.attributes, p.value])).toEqual([[{ [ATTR_ROUTE]: "/api/refunds", [ATTR_REASON]: "no_relevance_scorer" }, 1]]);
    expect(sum(metrics.get(METRICS.evaluations.name), { [ATTR_CAUSE]: "unknown" })).toBe(1);
    expect(metrics.get(METRICS.causeUnknown.name)?.map((p) => [p.attributes, p.value])).toEqual([[{ [ATTR_ROUTE]: "/api/refunds", [ATTR_REASON]: "relevance_unmeasured" }, 1]]);
  });
});

describe("unknown cause telemetry", () => {
  // Every claim scores `entailment` (threshold 0.5): 0.45 is a near miss, 0.1 a clear failure.
  const scoredAt = (entailment: number, observation: Observation): Promise<Evaluation> =>
    scoreOnce(createFakeBackend({ relevance: topicRelevance, classify: (pairs) => Promise.resolve(pairs.map(() => ({ entailment, neutral: 0.98 - entailment, contradiction: 0.02 }))) }), observation);

  it("counts an ungrounded answer whose cause is unknown on groundwatch.cause.unknown, by route and reason, and only those", async () => {
    const weak = summarize(await scoredAt(0.45, { question: QUESTION, answer: "A refund is paid in gold.", context: [PARKING_DOC] }), false);
    expect(weak).toMatchObject({ verdict: "ungrounded", cause: "unknown", causeReason: "weak_failure" });
    const { metrics } = await record(weak, "/api/refunds");
    expect(metrics.get(METRICS.causeUnknown.name)?.map((p) => [p.attributes, p.value])).toEqual([[{ [ATTR_ROUTE]: "/api/refunds", [ATTR_REASON]: "weak_failure" }, 1]]);
    expect(sum(metrics.get(METRICS.evaluations.name), { [ATTR_VERDICT]: "ungrounded", [ATTR_CAUSE]: "unknown" })).toBe(1);
    expect(explanationOf(weak)).toMatch(/^ungrounded \(cause: unknown, weak_failure\); 1 claims/);
    const clear = summarize(await scoredAt(0.1, { question: QUESTION, answer: "A refund is paid in gold.", context: [PARKING_DOC] }), false);
    expect(clear).toMatchObject({ verdict: "ungrounded", cause: "retrieval" });
    expect(clear).not.toHaveProperty("causeReason");
    expect((await record(clear)).metrics.has(METRICS.causeUnknown.name)).toBe(false);
    expect(METRICS.causeUnknown.prometheus).toBe("groundwatch_cause_unknown_total");
  });
});
