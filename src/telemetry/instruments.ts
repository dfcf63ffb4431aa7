import type { Attributes, Counter, Histogram, Meter, ObservableCallback, ObservableCounter, ObservableGauge } from "@opentelemetry/api";
import { ValueType } from "@opentelemetry/api";
import type { MetricSpec } from "./semconv.ts";
import { ATTR_REASON, ATTR_ROUTE, DURATION_BUCKETS, METRICS, RESAMPLE_DURATION_BUCKETS, SCORE_BUCKETS } from "./semconv.ts";

export interface Instruments {
  readonly score: Histogram;
  readonly evaluations: Counter;
  readonly claims: Counter;
  /** Best context relevance to the question, by route (evaluations with a question). */
  readonly contextRelevance: Histogram;
  /** Answer relevance to the question, by route (evaluations with a question). */
  readonly answerRelevance: Histogram;
  /** Evaluations whose relevance was not measured, by route and reason. */
  readonly relevanceUnmeasured: Counter;
  /** Ungrounded answers whose cause is unknown, by route and reason. */
  readonly causeUnknown: Counter;
  /** Citation markers by route and status (groundwatch.citation.status). */
  readonly citations: Counter;
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
  readonly limited: Counter;
  /** Entailment pairs sent to the backend, by route. */
  readonly entailmentCalls: Counter;
  /** Groundedness pairs decided without a model call, by route and reason (verbatim, cache). */
  readonly entailmentSaved: Counter;
  readonly resampleCalls: Counter;
  readonly resampleTokens: Counter;
  readonly resampleDuration: Histogram;
  readonly claimsResampled: Counter;
  readonly claimsUnstable: Counter;
  readonly workerRestarts: Counter;
  /** Flagged answers the ring let go or cut, by reason. */
  readonly flaggedDropped: Counter;
  /** The ring's reach: since when it has seen every answer, and its oldest answer's time (unix s). */
  readonly flaggedSince: ObservableGauge;
  readonly flaggedOldest: ObservableGauge;
  /** Flagged answers filled back from the review spool at start, and spool lines passed over doing it (observable: counted once, reported on every meter). */
  readonly flaggedRestored: ObservableCounter;
  readonly flaggedRestoreSkipped: ObservableCounter;
  readonly contentWithheld: Counter;
  /** Answers written to the review spool, by kind. */
  readonly reviewSpooled: Counter;
  /** Answers picked for the review spool but not written, by reason. */
  readonly reviewSkipped: Counter;
  /** Files under a review spool name passed over (not regular, too large), by reason. */
  readonly reviewFilesSkipped: Counter;
  /** Guard decisions by route, decision and (bypasses) reason. */
  readonly guardDecisions: Counter;
  /** Time from a guard call to its decision, by route and decision. */
  readonly guardDuration: Histogram;
  readonly workersAlive: ObservableGauge;
  readonly queueDepth: ObservableGauge;
  readonly driftStatistic: ObservableGauge;
  readonly driftPValue: ObservableGauge;
  readonly driftReferenceRefused: ObservableCounter;
  readonly scoringInfo: ObservableGauge;
  readonly scoringThreshold: ObservableGauge;
  /**
   * The (route, backend, tier) label sets whose ungrounded-by-cause series were started at 0 (record.ts):
   * a series that first appears mid-window loses its first increase to rate(). Bounded by the route cap.
   */
  readonly causeSeriesStarted: Set<string>;
}

/** A counter from its semconv spec: the one way counters are made, so that two registrations of one spec are identical (one instrument). */
export function counterOf(meter: Meter, s: MetricSpec): Counter {
  return meter.createCounter(s.name, { unit: s.unit, description: s.description, valueType: ValueType.INT });
}

/** Creates every instrument from its semconv spec (names, units and descriptions live there). */
export function createInstruments(meter: Meter): Instruments {
  const counter = (s: MetricSpec): Counter => counterOf(meter, s);
  const histogram = (s: MetricSpec, buckets: number[]): Histogram => meter.createHistogram(s.name, { unit: s.unit, description: s.description, advice: { explicitBucketBoundaries: buckets } });
  const observableCounter = (s: MetricSpec): ObservableCounter => meter.createObservableCounter(s.name, { unit: s.unit, description: s.description, valueType: ValueType.INT });
  const gauge = (s: MetricSpec): ObservableGauge => meter.createObservableGauge(s.name, { unit: s.unit, description: s.description });
  return {
    score: histogram(METRICS.score, SCORE_BUCKETS),
    evaluations: counter(METRICS.evaluations),
    causeSeriesStarted: new Set<string>(),
    claims: counter(METRICS.claims),
    contextRelevance: histogram(METRICS.contextRelevance, SCORE_BUCKETS),
    answerRelevance: histogram(METRICS.answerRelevance, SCORE_BUCKETS),
    relevanceUnmeasured: counter(METRICS.relevanceUnmeasured),
    causeUnknown: counter(METRICS.causeUnknown),
    citations: counter(METRICS.citations),
    seen: observableCounter(METRICS.seen),
    notSampled: observableCounter(METRICS.notSampled),
    sampled: observableCounter(METRICS.sampled),
    scored: counter(METRICS.scored),
    dropped: counter(METRICS.dropped),
    failed: counter(METRICS.failed),
    entropy: histogram(METRICS.entropy, SCORE_BUCKETS),
    duration: histogram(METRICS.duration, DURATION_BUCKETS),
    degenerate: counter(METRICS.degenerate),
    limited: counter(METRICS.limited),
    entailmentCalls: counter(METRICS.entailmentCalls),
    entailmentSaved: counter(METRICS.entailmentSaved),
    resampleCalls: counter(METRICS.resampleCalls),
    resampleTokens: counter(METRICS.resampleTokens),
    resampleDuration: histogram(METRICS.resampleDuration, RESAMPLE_DURATION_BUCKETS),
    claimsResampled: counter(METRICS.claimsResampled),
    claimsUnstable: counter(METRICS.claimsUnstable),
    workerRestarts: counter(METRICS.workerRestarts),
    flaggedDropped: counter(METRICS.flaggedDropped),
    flaggedSince: gauge(METRICS.flaggedSince),
    flaggedOldest: gauge(METRICS.flaggedOldest),
    flaggedRestored: observableCounter(METRICS.flaggedRestored),
    flaggedRestoreSkipped: observableCounter(METRICS.flaggedRestoreSkipped),
    contentWithheld: counter(METRICS.contentWithheld),
    reviewSpooled: counter(METRICS.reviewSpooled),
    reviewSkipped: counter(METRICS.reviewSkipped),
    reviewFilesSkipped: counter(METRICS.reviewFilesSkipped),
    guardDecisions: counter(METRICS.guardDecisions),
    guardDuration: histogram(METRICS.guardDuration, DURATION_BUCKETS),
    workersAlive: gauge(METRICS.workersAlive),
    queueDepth: gauge(METRICS.queueDepth),
    driftStatistic: gauge(METRICS.driftStatistic),
    driftPValue: gauge(METRICS.driftPValue),
    driftReferenceRefused: observableCounter(METRICS.driftReferenceRefused),
    scoringInfo: gauge(METRICS.scoringInfo),
    scoringThreshold: gauge(METRICS.scoringThreshold),
  };
}

/** Per-route tallies of the hot path (cumulative since the monitor started). */
export interface RouteTally {
  readonly seen: number;
  readonly notSampled: number;
  readonly sampled: number;
}

/** The monitor's own state that the observable instruments report at collection time. */
export interface ObservableSources {
  readonly queueDepth: () => number;
  /** Scoring workers able to take work now (undefined while they are starting). */
  readonly workersAlive?: () => number | undefined;
  readonly routes: ReadonlyMap<string, RouteTally>;
  readonly drift: ReadonlyMap<string, { result(): { readonly statistic: number; readonly pValue: number } | undefined }>;
  /** What scores (backend, tier, model, threshold, calibration id), once known; undefined before the first evaluation. */
  readonly scoring?: () => { readonly attributes: Attributes; readonly threshold: number } | undefined;
  /** Drift references refused, by reason (the calibration's whole: 1; per route: how many routes). */
  readonly driftRefused?: () => Readonly<Partial<Record<string, number>>>;
  /** The flagged ring's reach (ms since the epoch: since when it has seen every answer, its oldest answer's time) and what filling it back at start did. */
  readonly flagged?: () => { readonly sinceMs: number; readonly oldestMs: number | undefined; readonly restored: number; readonly restoreSkipped: Readonly<Partial<Record<string, number>>> };
}

/**
 * Registers the callbacks of the observable instruments, reading `sources` at each
 * collection; returns what removes them again (when the monitor moves to another meter, so
 * the old one stops reporting). The tallies are cumulative, so instruments created late —
 * on a MeterProvider the host registered after the monitor — still report every observation.
 */
export function observeSources(m: Instruments, sources: ObservableSources): () => void {
  const perRoute =
    (key: keyof RouteTally, skipZero: boolean): ObservableCallback =>
    (r) => {
      for (const [route, t] of sources.routes) if (!skipZero || t[key] > 0) r.observe(t[key], { [ATTR_ROUTE]: route });
    };
  const perDrift =
    (key: "statistic" | "pValue"): ObservableCallback =>
    (r) => {
      for (const [route, t] of sources.drift) {
        const res = t.result();
        if (res) r.observe(res[key], { [ATTR_ROUTE]: route });
      }
    };
  const flagged = (report: (f: NonNullable<ReturnType<NonNullable<ObservableSources["flagged"]>>>) => unknown): void => {
    const f = sources.flagged?.();
    if (f) report(f);
  };
  const pairs: Array<[ObservableCounter | ObservableGauge, ObservableCallback]> = [
    [m.queueDepth, (r) => r.observe(sources.queueDepth())],
    [
      m.workersAlive,
      (r) => {
        const alive = sources.workersAlive?.();
        if (alive !== undefined) r.observe(alive);
      },
    ],
    [m.seen, perRoute("seen", false)],
    [m.notSampled, perRoute("notSampled", true)],
    [m.sampled, perRoute("sampled", true)],
    [m.driftStatistic, perDrift("statistic")],
    [m.driftPValue, perDrift("pValue")],
    [
      m.scoringInfo,
      (r) => {
        const s = sources.scoring?.();
        if (s) r.observe(1, s.attributes);
      },
    ],
    [
      m.scoringThreshold,
      (r) => {
        const s = sources.scoring?.();
        if (s) r.observe(s.threshold);
      },
    ],
    [m.flaggedSince, (r) => flagged((f) => r.observe(f.sinceMs / 1000))],
    [m.flaggedOldest, (r) => flagged((f) => f.oldestMs !== undefined && r.observe(f.oldestMs / 1000))],
    [m.flaggedRestored, (r) => flagged((f) => r.observe(f.restored))],
    [
      m.flaggedRestoreSkipped,
      (r) =>
        flagged((f) => {
          for (const [reason, count] of Object.entries(f.restoreSkipped)) if (count !== undefined && count > 0) r.observe(count, { [ATTR_REASON]: reason });
        }),
    ],
    [
      m.driftReferenceRefused,
      (r) => {
        for (const [reason, count] of Object.entries(sources.driftRefused?.() ?? {})) if (count !== undefined && count > 0) r.observe(count, { [ATTR_REASON]: reason });
      },
    ],
  ];
  for (const [instrument, callback] of pairs) instrument.addCallback(callback);
  return () => {
    for (const [instrument, callback] of pairs) instrument.removeCallback(callback);
  };
}

export type { Attributes };
