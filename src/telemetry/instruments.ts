import type { Attributes, Counter, Histogram, Meter, ObservableCounter, ObservableGauge } from "@opentelemetry/api";
import { ValueType } from "@opentelemetry/api";
import type { MetricSpec } from "./semconv.ts";
import { DURATION_BUCKETS, METRICS, SCORE_BUCKETS } from "./semconv.ts";

export interface Instruments {
  readonly score: Histogram;
  readonly evaluations: Counter;
  readonly claims: Counter;
  /** Observable: read from the monitor's own tallies at collection, so observe() records nothing. */
  readonly seen: ObservableCounter;
  readonly notSampled: ObservableCounter;
  readonly sampled: ObservableCounter;
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
  const observableCounter = (s: MetricSpec): ObservableCounter => meter.createObservableCounter(s.name, { unit: s.unit, description: s.description, valueType: ValueType.INT });
  const gauge = (s: MetricSpec): ObservableGauge => meter.createObservableGauge(s.name, { unit: s.unit, description: s.description });
  return {
    score: histogram(METRICS.score, SCORE_BUCKETS),
    evaluations: counter(METRICS.evaluations),
    claims: counter(METRICS.claims),
    seen: observableCounter(METRICS.seen),
    notSampled: observableCounter(METRICS.notSampled),
    sampled: observableCounter(METRICS.sampled),
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
