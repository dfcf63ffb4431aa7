import { auroc } from "./stats.ts";

/** Standard error of an AUROC (Hanley & McNeil, 1982). */
export function hanleyMcNeilSe(a: number, nPos: number, nNeg: number): number {
  const q1 = a / (2 - a);
  const q2 = (2 * a * a) / (1 + a);
  const v = (a * (1 - a) + (nPos - 1) * (q1 - a * a) + (nNeg - 1) * (q2 - a * a)) / (nPos * nNeg);
  return Math.sqrt(Math.max(0, v));
}

export interface AurocEstimate {
  readonly auroc: number;
  /** 95% interval (Hanley–McNeil), clipped to [0, 1]. */
  readonly low: number;
  readonly high: number;
  readonly positives: number;
  readonly negatives: number;
  /** True when perfect separation made the plain interval degenerate and a continuity correction was used. */
  readonly continuityCorrected: boolean;
}

/**
 * AUROC (Mann–Whitney, mid-ranks for ties) with a 95% Hanley–McNeil interval. At perfect
 * separation the standard error is 0; the interval is then computed at a continuity-corrected
 * AUROC of 1 − 1/(2·n+·n−), so a perfect score on 6 labels does not claim certainty.
 */
export function aurocWithInterval(scores: readonly number[], labels: readonly number[]): AurocEstimate {
  const positives = labels.filter((l) => l === 1).length;
  const negatives = labels.length - positives;
  const a = auroc(scores, labels);
  const extreme = a === 1 || a === 0;
  const aForSe = extreme ? (a === 1 ? 1 - 1 / (2 * positives * negatives) : 1 / (2 * positives * negatives)) : a;
  const se = hanleyMcNeilSe(aForSe, positives, negatives);
  return { auroc: a, low: Math.max(0, a - 1.96 * se), high: Math.min(1, a + 1.96 * se), positives, negatives, continuityCorrected: extreme };
}

/**
 * How many labelled rows (split like the current set) would give a 95% interval that
 * excludes 0.5 if the true AUROC were the one observed; undefined when no realistic set
 * would (the effect is too small), 0 when the current set already does.
 */
export function labelsToSettle(est: AurocEstimate, maxRows = 100_000): number | undefined {
  const effect = Math.abs(est.auroc - 0.5);
  if (effect < 0.01) return undefined;
  const share = est.positives / Math.max(1, est.positives + est.negatives);
  for (let n = 10; n <= maxRows; n = Math.ceil(n * 1.05)) {
    const pos = Math.max(1, Math.round(n * share));
    const neg = Math.max(1, n - pos);
    if (1.96 * hanleyMcNeilSe(est.auroc, pos, neg) < effect) return Math.max(0, n - (est.positives + est.negatives));
  }
  return undefined;
}

export type Criterion = "youden" | "f1" | "accuracy" | "target_fpr" | "target_recall";

export interface ThresholdChoice {
  readonly threshold: number;
  readonly tpr: number;
  readonly fpr: number;
  readonly precision: number;
  readonly accuracy: number;
  readonly f1: number;
}

/**
 * Picks the threshold (answers scoring at or above it count as grounded) by a criterion:
 * Youden's J, F1 or accuracy maximised; the lowest false-positive rate at or under a
 * target ("target_fpr"); or the highest threshold that keeps recall at a target.
 * Positives are label 1 (grounded).
 */
export function chooseThreshold(scores: readonly number[], labels: readonly number[], criterion: Criterion, target?: number): ThresholdChoice {
  const pos = labels.filter((l) => l === 1).length;
  const neg = labels.length - pos;
  const candidates = [...new Set(scores)].sort((a, b) => a - b);
  candidates.push(Math.max(...scores) + 1e-9);
  const stats = candidates.map((t) => {
    let tp = 0;
    let fp = 0;
    scores.forEach((s, i) => {
      if (s >= t) {
        if (labels[i] === 1) tp++;
        else fp++;
      }
    });
    const tpr = pos ? tp / pos : 0;
    const fpr = neg ? fp / neg : 0;
    const precision = tp + fp ? tp / (tp + fp) : 1;
    const accuracy = (tp + (neg - fp)) / Math.max(1, labels.length);
    const f1 = precision + tpr ? (2 * precision * tpr) / (precision + tpr) : 0;
    return { threshold: t, tpr, fpr, precision, accuracy, f1 };
  });
  const best = (key: (s: ThresholdChoice) => number, pool = stats): ThresholdChoice => pool.reduce((a, b) => (key(b) > key(a) ? b : a));
  switch (criterion) {
    case "youden":
      return best((s) => s.tpr - s.fpr);
    case "f1":
      return best((s) => s.f1);
    case "accuracy":
      return best((s) => s.accuracy);
    case "target_fpr": {
      const ok = stats.filter((s) => s.fpr <= (target ?? 0.05));
      return best((s) => s.tpr, ok.length > 0 ? ok : stats);
    }
    case "target_recall": {
      const ok = stats.filter((s) => s.tpr >= (target ?? 0.9));
      return best((s) => s.threshold, ok.length > 0 ? ok : stats);
    }
  }
}

/** Wilson score interval for a proportion (95%). */
export function wilsonInterval(successes: number, n: number): { low: number; high: number } {
  if (n === 0) return { low: 0, high: 1 };
  const z = 1.96;
  const p = successes / n;
  const denom = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / denom;
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}
