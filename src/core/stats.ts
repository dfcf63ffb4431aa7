/**
 * Area under the ROC curve by the Mann–Whitney identity, with mid-ranks for ties
 * (tied scores count one half). NaN when either class is empty.
 */
export function auroc(scores: readonly number[], labels: readonly number[]): number {
  if (scores.length !== labels.length) throw new Error(`auroc: ${scores.length} scores but ${labels.length} labels`);
  const order = scores.map((s, i) => ({ s, y: labels[i] ?? 0 })).sort((a, b) => a.s - b.s);
  let rankSumPos = 0;
  let pos = 0;
  let i = 0;
  while (i < order.length) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]?.s === order[i]?.s) j++;
    const midRank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) {
      if (order[k]?.y === 1) {
        rankSumPos += midRank;
        pos++;
      }
    }
    i = j + 1;
  }
  const neg = order.length - pos;
  if (pos === 0 || neg === 0) return NaN;
  return (rankSumPos - (pos * (pos + 1)) / 2) / (pos * neg);
}

/** Mean of the true-positive and true-negative rates when predicting 1 for score ≥ threshold. */
export function balancedAccuracy(scores: readonly number[], labels: readonly number[], threshold: number): number {
  let tp = 0;
  let tn = 0;
  let pos = 0;
  let neg = 0;
  scores.forEach((s, i) => {
    if (labels[i] === 1) {
      pos++;
      if (s >= threshold) tp++;
    } else {
      neg++;
      if (s < threshold) tn++;
    }
  });
  if (pos === 0 || neg === 0) return NaN;
  return (tp / pos + tn / neg) / 2;
}

/** The threshold (one of the scores) with the highest balanced accuracy. */
export function bestBalancedThreshold(scores: readonly number[], labels: readonly number[]): { threshold: number; balancedAccuracy: number } {
  const candidates = [...new Set(scores)].sort((a, b) => a - b);
  let best = { threshold: 0.5, balancedAccuracy: -1 };
  for (const t of candidates) {
    const b = balancedAccuracy(scores, labels, t);
    if (b > best.balancedAccuracy) best = { threshold: t, balancedAccuracy: b };
  }
  return best;
}

export interface ReliabilityBin {
  readonly lower: number;
  readonly upper: number;
  readonly count: number;
  readonly meanPredicted: number;
  readonly observedRate: number;
}

/** Equal-width reliability diagram and expected calibration error. */
export function reliability(probs: readonly number[], labels: readonly number[], bins = 10): { bins: ReliabilityBin[]; ece: number } {
  const acc = Array.from({ length: bins }, () => ({ n: 0, p: 0, y: 0 }));
  probs.forEach((p, i) => {
    const b = acc[Math.min(bins - 1, Math.floor(p * bins))];
    if (!b) return;
    b.n++;
    b.p += p;
    b.y += labels[i] ?? 0;
  });
  let ece = 0;
  const out = acc.map((b, k) => {
    if (b.n > 0) ece += (b.n / probs.length) * Math.abs(b.p / b.n - b.y / b.n);
    return { lower: k / bins, upper: (k + 1) / bins, count: b.n, meanPredicted: b.n ? b.p / b.n : NaN, observedRate: b.n ? b.y / b.n : NaN };
  });
  return { bins: out, ece };
}
