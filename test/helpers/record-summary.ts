import { context } from "@opentelemetry/api";
import type { EntailmentBackend } from "../../src/core/backend.ts";
import type { Observation, Evaluation } from "../../src/scoring/scorer.ts";
import { createScorer } from "../../src/sdk/create-scorer.ts";
import { createInstruments } from "../../src/telemetry/instruments.ts";
import { recordEvaluation } from "../../src/telemetry/record.ts";
import { createContentPolicy } from "../../src/telemetry/content-policy.ts";
import type { EvaluationSummary } from "../../src/evaluation/types.ts";
import { testAnalyzer } from "./analyzer.ts";
import { testOtel } from "./otel.ts";

/** Scores one observation with a scorer of its own on the given backend, closing it after. */
export async function scoreOnce(backend: EntailmentBackend, observation: Observation): Promise<Evaluation> {
  const scorer = await createScorer({}, { backend, analyzer: testAnalyzer() });
  try {
    return await scorer.score(observation);
  } finally {
    await scorer.close();
  }
}

/** Records one summary on a fresh span with real SDK providers; returns the span, events and metrics. */
export async function recordSummary(summary: EvaluationSummary, options: { openInference: boolean; captureContent: boolean }, route = "/api/ask") {
  const otel = testOtel();
  const span = otel.tracerProvider.getTracer("test").startSpan("groundwatch.evaluate");
  recordEvaluation({
    result: summary,
    route,
    span,
    eventContext: context.active(),
    logger: otel.loggerProvider.getLogger("test"),
    instruments: createInstruments(otel.meterProvider.getMeter("test")),
    durationS: 0.01,
    options: { spanEvent: true, openInference: options.openInference, content: createContentPolicy({ captureContent: options.captureContent, maxLength: 200 }) },
  });
  span.end();
  const [finished] = otel.spans.getFinishedSpans();
  return { span: finished, logs: otel.logs.getFinishedLogRecords(), metrics: await otel.metrics() };
}
