export { METRICS, SPAN_EVALUATE, EVENT_GEN_AI_EVALUATION_RESULT, SCORE_BUCKETS, DURATION_BUCKETS } from "./semconv.ts";
export type { MetricSpec } from "./semconv.ts";
export { createInstruments } from "./instruments.ts";
export type { Instruments } from "./instruments.ts";
export { explanationOf, recordEvaluation, recordFailure } from "./record.ts";
