/**
 * Drift statistics: the two-sample Kolmogorov–Smirnov test of a route's recent scores against a
 * reference distribution, and the per-route tracker that keeps the recent window. A reference may
 * be weighted (each score standing for `weight` answers: a review sample drawn at rate r stands for
 * 1/r answers, core/drift-reference.ts): the statistic then compares weighted empirical CDFs, and
 * the p-value uses the reference's effective size (effectiveSize), never its row count or weight
 * total, so that a few heavily weighted scores are not taken for many answers.
 */

/** Scores, each standing for `weights[i]` answers (absent: 1 each). */
export interface WeightedSample {
  readonly scores: readonly number[];
  /** One positive weight per score; absent: every score weighs 1. */
  readonly weights?: readonly number[];
}

/** A sample sorted by score, with each score's weight: its empirical CDF, ready to compare. */
interface SortedSample {
  readonly scores: Float64Array;
  /** The weight each (sorted) score carries. */
  readonly weights: Float64Array;
  readonly total: number;
  readonly n: number;
  /** How many equally weighted scores it is worth (effectiveSize). */
  readonly effective: number;
}

function sortSample(sample: WeightedSample): SortedSample {
  const { scores, weights } = sample;
  const order = scores.map((_, i) => i).sort((p, q) => (scores[p] ?? 0) - (scores[q] ?? 0));
  let total = 0;
  let squares = 0;
  for (let i = 0; i < scores.length; i++) {
    const w = weights?.[i] ?? 1;
    total += w;
    squares += w * w;
  }
  const sorted = new Float64Array(order.length);
  const sortedWeights = new Float64Array(order.length);
  order.forEach((k, i) => {
    sorted[i] = scores[k] ?? 0;
    sortedWeights[i] = weights?.[k] ?? 1;
  });
  const base = { scores: sorted, weights: sortedWeights, total, n: scores.length };
  if (!weights || total <= 0) return { ...base, effective: weights ? 0 : scores.length };
  // The weighted ECDF's linearised variance at each distinct score x, V(x) = Σ wᵢ² (1[sᵢ ≤ x] − F(x))² / (Σw)²,
  // and its peak, matched with a Brownian bridge's 1/(4n).
  let below = 0;
  let squaresBelow = 0;
  let peak = 0;
  for (let i = 0; i < sorted.length; i++) {
    const w = sortedWeights[i] ?? 0;
    below += w;
    squaresBelow += w * w;
    if (i + 1 < sorted.length && sorted[i + 1] === sorted[i]) continue;
    const f = Math.min(1, below / total);
    peak = Math.max(peak, (squaresBelow * (1 - f) ** 2 + (squares - squaresBelow) * f * f) / (total * total));
  }
  const kish = (total * total) / squares;
  return { ...base, effective: peak > 0 ? Math.min(kish, 1 / (4 * peak)) : kish };
}

/**
 * How many equally weighted answers a weighted sample is worth, for the KS p-value: the smaller of
 * Kish's (Σw)²/Σw² and 1/(4·max V(x)), where V(x) is the linearised variance of the weighted
 * empirical CDF at x, Σ wᵢ² (1[sᵢ ≤ x] − F(x))² / (Σw)² (the spread of the answers drawn and of
 * the sampling together; a Brownian bridge over n scores peaks at 1/(4n)). The two agree when the
 * weights are unrelated to the scores. When they are not — a review sample keeps every low score
 * and 5% of the high ones — Kish's overstates the size and the test fires too often; the
 * variance's peak does not. n for an unweighted sample.
 */
export function effectiveSize(sample: WeightedSample): number {
  return sortSample(sample).effective;
}

/**
 * The largest gap between two (weighted) empirical CDFs, ties handled: the CDFs are compared only
 * after every observation equal to a value has been counted (scores tie constantly: 0, 1, and the
 * same claim scores recur).
 */
function sortedStatistic(x: SortedSample, y: SortedSample): number {
  let i = 0;
  let j = 0;
  // Weight counted so far on each side: each CDF is that over its total (i/n and j/m without weights).
  let wx = 0;
  let wy = 0;
  let d = 0;
  while (i < x.n && j < y.n) {
    const v = Math.min(x.scores[i] ?? Infinity, y.scores[j] ?? Infinity);
    while (i < x.n && x.scores[i] === v) wx += x.weights[i++] ?? 0;
    while (j < y.n && y.scores[j] === v) wy += y.weights[j++] ?? 0;
    d = Math.max(d, Math.abs(wx / x.total - wy / y.total));
  }
  return d;
}

/** Two-sample Kolmogorov–Smirnov statistic of unweighted samples (ties handled). */
export function ksStatistic(a: readonly number[], b: readonly number[]): number {
  return sortedStatistic(sortSample({ scores: a }), sortSample({ scores: b }));
}

/** Kolmogorov distribution tail Q(λ) = 2 Σ (−1)^(k−1) e^(−2k²λ²). */
function kolmogorovQ(lambda: number): number {
  if (lambda < 1e-3) return 1;
  let sum = 0;
  for (let k = 1; k <= 100; k++) {
    const term = 2 * (k % 2 === 1 ? 1 : -1) * Math.exp(-2 * k * k * lambda * lambda);
    sum += term;
    if (Math.abs(term) < 1e-12) break;
  }
  return Math.min(1, Math.max(0, sum));
}

export interface KsResult {
  readonly statistic: number;
  /** Asymptotic p-value (conservative when values tie). */
  readonly pValue: number;
  /** Scores on each side. */
  readonly n: number;
  readonly m: number;
  /** The first sample's effective size (effectiveSize; n when it is unweighted): what the p-value counts it as. */
  readonly effectiveN: number;
}

function sortedTest(x: SortedSample, y: SortedSample): KsResult {
  const d = sortedStatistic(x, y);
  const ne = (x.effective * y.effective) / (x.effective + y.effective);
  const sq = Math.sqrt(ne);
  return { statistic: d, pValue: kolmogorovQ((sq + 0.12 + 0.11 / sq) * d), n: x.n, m: y.n, effectiveN: x.effective };
}

/**
 * KS test of two samples, either weighted: the statistic compares the weighted empirical CDFs, and
 * the p-value uses nm/(n+m) of the two effective sizes (effectiveSize: for a weighted sample,
 * never more than Kish's (Σw)²/Σw²), with Stephens' small-sample correction. Unweighted, it is the
 * usual two-sample test.
 */
export function weightedKsTest(a: WeightedSample, b: WeightedSample): KsResult {
  return sortedTest(sortSample(a), sortSample(b));
}

/** KS test of two unweighted samples; the p-value uses the effective size nm/(n+m) with the usual small-sample correction. */
export function ksTest(a: readonly number[], b: readonly number[]): KsResult {
  return weightedKsTest({ scores: a }, { scores: b });
}

export interface DriftOptions {
  /** Recent scores kept per route. */
  readonly windowSize: number;
  /** No verdict with fewer scores than this on either side (a weighted reference's effective size counts). */
  readonly minScores: number;
  /** Reference distribution (e.g. from a calibration file); otherwise the first full window becomes it. */
  readonly reference?: WeightedSample;
}

/** Compares a route's recent scores with a reference distribution. */
export interface DriftTracker {
  add(score: number): void;
  /** The test, or undefined while either side has fewer than `minScores` scores. */
  result(): KsResult | undefined;
}

export function createDriftTracker(options: DriftOptions): DriftTracker {
  // Sorted once: the reference does not change, and the test runs at every collection.
  let reference: SortedSample | undefined = options.reference ? sortSample(options.reference) : undefined;
  const building: number[] = [];
  const window: number[] = [];
  return {
    add(score: number): void {
      if (!Number.isFinite(score)) return;
      if (!reference) {
        building.push(score);
        if (building.length >= options.windowSize) reference = sortSample({ scores: building.splice(0) });
        return;
      }
      window.push(score);
      if (window.length > options.windowSize) window.shift();
    },
    result(): KsResult | undefined {
      if (!reference || reference.effective < options.minScores || window.length < options.minScores) return undefined;
      return sortedTest(reference, sortSample({ scores: window }));
    },
  };
}
