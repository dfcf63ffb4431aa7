/**
 * The figures bench/quality.ts prints per dev set, with stratified bootstrap intervals: AUROC,
 * balanced accuracy at a threshold, the false-alarm rate (a supported row scored below the
 * threshold: a right answer flagged) and the miss rate (an unsupported row at or above it: an
 * invented fact passed). Each resample draws the set's supported rows and its unsupported rows
 * separately, with replacement, as many of each as the set has, so every resample has both classes.
 * The draws come from a seeded sequence (src/core/rng.ts): the same scores, the same intervals.
 * Two scorings of the same rows are compared on the same resamples (a paired bootstrap).
 */
import { rng } from "../src/core/rng.ts";

/** A 95% interval: the 2.5th and 97.5th percentiles of the resampled figure. */
export interface Interval {
  readonly low: number;
  readonly high: number;
}

/** One scoring of a set's rows at one threshold, with the intervals of AUROC and balanced accuracy. */
export interface QualityFigures {
  readonly auroc: number;
  readonly aurocInterval: Interval;
  readonly balancedAccuracy: number;
  readonly balancedAccuracyInterval: Interval;
  /** Supported rows scored below the threshold, over the supported rows. */
  readonly falseAlarmRate: number;
  /** Unsupported rows scored at or above the threshold, over the unsupported rows. */
  readonly missRate: number;
}

/** After minus before, each difference with its paired 95% interval. */
export interface QualityDelta {
  readonly auroc: number;
  readonly aurocInterval: Interval;
  readonly balancedAccuracy: number;
  readonly balancedAccuracyInterval: Interval;
  readonly falseAlarmRate: number;
  readonly missRate: number;
}

/** What the comparison of two scorings says about a set's AUROC. */
export type QualityVerdict = "lower beyond interval" | "higher beyond interval" | "within interval";

export interface BootstrapOptions {
  /** Resamples per set (1,000 by default). */
  readonly resamples?: number;
  /** The seed of the draws; by default one derived from the set's name, so a set's intervals do not depend on which other sets run. */
  readonly seed?: number;
}

/** A seed from a set's name (FNV-1a), so each set draws its own resamples. */
export function seedOf(name: string): number {
  let h = 2166136261;
  for (const c of name) h = Math.imul(h ^ (c.codePointAt(0) ?? 0), 16777619) >>> 0;
  return h;
}

/**
 * AUROC with every row weighted by how many times a resample drew it (Mann–Whitney with ties
 * counting one half, as src/core/stats.ts's auroc). `order` is the rows sorted by score, computed
 * once per set, so a resample costs one pass. NaN when a class has no weight.
 */
export function weightedAuroc(scores: readonly number[], labels: readonly number[], order: readonly number[], weights: readonly number[]): number {
  let negBelow = 0;
  let sum = 0;
  let pos = 0;
  let i = 0;
  while (i < order.length) {
    const s = scores[order[i] ?? 0];
    let p = 0;
    let n = 0;
    while (i < order.length && scores[order[i] ?? 0] === s) {
      const k = order[i] ?? 0;
      const w = weights[k] ?? 0;
      if (labels[k] === 1) p += w;
      else n += w;
      i++;
    }
    sum += p * (negBelow + n / 2);
    negBelow += n;
    pos += p;
  }
  if (pos === 0 || negBelow === 0) return NaN;
  return sum / (pos * negBelow);
}

/** Weighted rates at a threshold: the false-alarm rate, the miss rate and balanced accuracy (1 − their mean). */
export function weightedRates(scores: readonly number[], labels: readonly number[], threshold: number, weights: readonly number[]): { falseAlarmRate: number; missRate: number; balancedAccuracy: number } {
  let pos = 0;
  let neg = 0;
  let alarms = 0;
  let misses = 0;
  scores.forEach((s, k) => {
    const w = weights[k] ?? 0;
    if (labels[k] === 1) {
      pos += w;
      if (s < threshold) alarms += w;
    } else {
      neg += w;
      if (s >= threshold) misses += w;
    }
  });
  const falseAlarmRate = pos === 0 ? NaN : alarms / pos;
  const missRate = neg === 0 ? NaN : misses / neg;
  return { falseAlarmRate, missRate, balancedAccuracy: 1 - (falseAlarmRate + missRate) / 2 };
}

/** The percentile interval of resampled figures (NaNs left out; NaN bounds when none is left). */
export function percentileInterval(values: readonly number[]): Interval {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return { low: NaN, high: NaN };
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))] ?? NaN;
  return { low: at(0.025), high: at(0.975) };
}

/**
 * The resamples of a set as row weights: each draws the supported rows' count from the supported
 * rows and the unsupported rows' count from the unsupported rows, with replacement.
 */
export function stratifiedResamples(labels: readonly number[], resamples: number, seed: number): number[][] {
  const next = rng(seed);
  const pos = labels.flatMap((y, k) => (y === 1 ? [k] : []));
  const neg = labels.flatMap((y, k) => (y === 1 ? [] : [k]));
  const out: number[][] = [];
  for (let b = 0; b < resamples; b++) {
    const w = new Array<number>(labels.length).fill(0);
    for (const group of [pos, neg]) {
      for (let d = 0; d < group.length; d++) {
        const k = group[Math.floor(next() * group.length)] ?? 0;
        w[k] = (w[k] ?? 0) + 1;
      }
    }
    out.push(w);
  }
  return out;
}

interface Scoring {
  readonly scores: readonly number[];
  readonly threshold: number;
}

function sortedOrder(scores: readonly number[]): number[] {
  return scores.map((_, k) => k).sort((a, b) => (scores[a] ?? 0) - (scores[b] ?? 0));
}

/** One scoring's figures, and each resample's AUROC and balanced accuracy (for pairing). */
function figuresOf(s: Scoring, labels: readonly number[], weights: readonly number[][]): { figures: QualityFigures; aurocs: number[]; accuracies: number[] } {
  const order = sortedOrder(s.scores);
  const ones = labels.map(() => 1);
  const point = weightedRates(s.scores, labels, s.threshold, ones);
  const aurocs = weights.map((w) => weightedAuroc(s.scores, labels, order, w));
  const accuracies = weights.map((w) => weightedRates(s.scores, labels, s.threshold, w).balancedAccuracy);
  return {
    figures: {
      auroc: weightedAuroc(s.scores, labels, order, ones),
      aurocInterval: percentileInterval(aurocs),
      balancedAccuracy: point.balancedAccuracy,
      balancedAccuracyInterval: percentileInterval(accuracies),
      falseAlarmRate: point.falseAlarmRate,
      missRate: point.missRate,
    },
    aurocs,
    accuracies,
  };
}

/** A set's figures for one scoring. */
export function qualityFigures(name: string, scores: readonly number[], labels: readonly number[], threshold: number, options: BootstrapOptions = {}): QualityFigures {
  const weights = stratifiedResamples(labels, options.resamples ?? 1000, options.seed ?? seedOf(name));
  return figuresOf({ scores, threshold }, labels, weights).figures;
}

/**
 * Two scorings of the same rows (each at its own threshold), compared on the same resamples: each
 * one's figures, the differences with their paired intervals, and the verdict. The verdict is
 * "lower beyond interval" when the after AUROC lies below the before's 95% interval ("higher
 * beyond interval" above it), else "within interval".
 */
export function compareQuality(name: string, labels: readonly number[], before: Scoring, after: Scoring, options: BootstrapOptions = {}): { before: QualityFigures; after: QualityFigures; delta: QualityDelta; verdict: QualityVerdict } {
  if (before.scores.length !== labels.length || after.scores.length !== labels.length) throw new Error(`compareQuality: ${name}: ${before.scores.length} and ${after.scores.length} scores for ${labels.length} rows`);
  const weights = stratifiedResamples(labels, options.resamples ?? 1000, options.seed ?? seedOf(name));
  const b = figuresOf(before, labels, weights);
  const a = figuresOf(after, labels, weights);
  const delta: QualityDelta = {
    auroc: a.figures.auroc - b.figures.auroc,
    aurocInterval: percentileInterval(a.aurocs.map((x, i) => x - (b.aurocs[i] ?? NaN))),
    balancedAccuracy: a.figures.balancedAccuracy - b.figures.balancedAccuracy,
    balancedAccuracyInterval: percentileInterval(a.accuracies.map((x, i) => x - (b.accuracies[i] ?? NaN))),
    falseAlarmRate: a.figures.falseAlarmRate - b.figures.falseAlarmRate,
    missRate: a.figures.missRate - b.figures.missRate,
  };
  return { before: b.figures, after: a.figures, delta, verdict: verdictOf(b.figures, a.figures.auroc) };
}

/** Where the after AUROC lies against the before's interval. */
export function verdictOf(before: QualityFigures, afterAuroc: number): QualityVerdict {
  if (afterAuroc < before.aurocInterval.low) return "lower beyond interval";
  if (afterAuroc > before.aurocInterval.high) return "higher beyond interval";
  return "within interval";
}
