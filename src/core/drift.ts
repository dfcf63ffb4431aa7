/**
 * Two-sample Kolmogorov–Smirnov statistic with ties handled: the empirical CDFs are
 * compared only after every observation equal to a value has been counted (scores tie
 * constantly: 0, 1, and the same claim scores recur).
 */
export function ksStatistic(a: readonly number[], b: readonly number[]): number {
  const x = [...a].sort((p, q) => p - q);
  const y = [...b].sort((p, q) => p - q);
  let i = 0;
  let j = 0;
  let d = 0;
  while (i < x.length && j < y.length) {
    const v = Math.min(x[i] ?? Infinity, y[j] ?? Infinity);
    while (i < x.length && x[i] === v) i++;
    while (j < y.length && y[j] === v) j++;
    d = Math.max(d, Math.abs(i / x.length - j / y.length));
  }
  return d;
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
  readonly n: number;
  readonly m: number;
}

/** KS test of two samples; the p-value uses the effective size nm/(n+m) with the usual small-sample correction. */
export function ksTest(a: readonly number[], b: readonly number[]): KsResult {
  const d = ksStatistic(a, b);
  const ne = (a.length * b.length) / (a.length + b.length);
  const sq = Math.sqrt(ne);
  return { statistic: d, pValue: kolmogorovQ((sq + 0.12 + 0.11 / sq) * d), n: a.length, m: b.length };
}

export interface DriftOptions {
  /** Recent scores kept per route. */
  readonly windowSize: number;
  /** No verdict with fewer scores than this on either side. */
  readonly minScores: number;
  /** Reference distribution (e.g. from a calibration file); otherwise the first full window becomes it. */
  readonly reference?: readonly number[];
}

/** Compares a route's recent scores with a reference distribution. */
export interface DriftTracker {
  add(score: number): void;
  /** The test, or undefined while either side has fewer than `minScores` scores. */
  result(): KsResult | undefined;
}

export function createDriftTracker(options: DriftOptions): DriftTracker {
  let reference: number[] | undefined = options.reference ? [...options.reference] : undefined;
  const building: number[] = [];
  const window: number[] = [];
  return {
    add(score: number): void {
      if (!Number.isFinite(score)) return;
      if (!reference) {
        building.push(score);
        if (building.length >= options.windowSize) reference = building.splice(0);
        return;
      }
      window.push(score);
      if (window.length > options.windowSize) window.shift();
    },
    result(): KsResult | undefined {
      if (!reference || reference.length < options.minScores || window.length < options.minScores) return undefined;
      return ksTest(reference, window);
    },
  };
}
