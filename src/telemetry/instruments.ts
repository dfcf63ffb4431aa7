import type { Attributes, Counter, Histogram, Meter, ObservableGauge } from "@opentelemetry/api";
import { ValueType } from "@opentelemetry/api";
import type { MetricSpec } from "./semconv.ts";
import { DURATION_BUCKETS, METRICS, SCORE_BUCKETS } from "./semconv.ts";

export interface Instruments {
  readonly score: Histogram;
  readonly evaluations: Counter;
  readonly claims: Counter;
  readonly seen: Counter;
  readonly notSampled: Counter;
  readonly sampled: Counter;
  readonly scored: Counter;
  readonly dropped: Counter;
  readonly failed: Counter;
  readonly entropy: Histogram;
  readonly duration: Histogram;
  readonly degenerate: Counter;
  readonly queueDepth: ObservableGauge;
  readonly driftStatistic: ObservableGauge;
  readonly driftPValue: ObservableGauge;
}

/** Creates every instrument from its semconv spec (names, units and descriptions live there). */
export function createInstruments(meter: Meter): Instruments {
  const counter = (s: MetricSpec): Counter => meter.createCounter(s.name, { unit: s.unit, description: s.description, valueType: ValueType.INT });
  const histogram = (s: MetricSpec, buckets: number[]): Histogram => meter.createHistogram(s.name, { unit: s.unit, description: s.description, advice: { explicitBucketBoundaries: buckets } });
  const gauge = (s: MetricSpec): ObservableGauge => meter.createObservableGauge(s.name, { unit: s.unit, description: s.description });
  return {
    score: histogram(METRICS.score, SCORE_BUCKETS),
    evaluations: counter(METRICS.evaluations),
    claims: counter(METRICS.claims),
    seen: counter(METRICS.seen),
    notSampled: counter(METRICS.notSampled),
    sampled: counter(METRICS.sampled),
    scored: counter(METRICS.scored),
    dropped: counter(METRICS.dropped),
    failed: counter(METRICS.failed),
    entropy: histogram(METRICS.entropy, SCORE_BUCKETS),
    duration: histogram(METRICS.duration, DURATION_BUCKETS),
    degenerate: counter(METRICS.degenerate),
    queueDepth: gauge(METRICS.queueDepth),
    driftStatistic: gauge(METRICS.driftStatistic),
    driftPValue: gauge(METRICS.driftPValue),
  };
}

export type { Attributes };
