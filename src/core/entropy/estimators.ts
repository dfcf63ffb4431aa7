/** Shannon entropy in nats of a distribution given by counts or masses (zeros ignored). */
export function entropyOf(masses: readonly number[]): number {
  const total = masses.reduce((a, b) => a + b, 0);
  if (total <= 0) return 0;
  let h = 0;
  for (const m of masses) {
    if (m <= 0) continue;
    const p = m / total;
    h -= p * Math.log(p);
  }
  return h;
}

/** log Σ exp(x), stable. */
export function logSumExp(xs: readonly number[]): number {
  const max = Math.max(...xs);
  if (!Number.isFinite(max)) return max;
  return max + Math.log(xs.reduce((s, x) => s + Math.exp(x - max), 0));
}

/**
 * Rao-Blackwellised cluster probabilities: each sample's length-normalised
 * log-probability, log-sum-exp within a cluster, renormalised over clusters.
 */
export function raoBlackwellMasses(clusters: ReadonlyArray<readonly number[]>, sampleLogProb: readonly number[]): number[] {
  const perCluster = clusters.map((members) => logSumExp(members.map((i) => sampleLogProb[i] ?? -Infinity)));
  const norm = logSumExp(perCluster);
  return perCluster.map((w) => Math.exp(w - norm));
}

/**
 * Chao1 estimate of how many meanings the model would produce given unlimited
 * samples (bias-corrected form, defined when no meaning was seen twice).
 */
export function chao1(counts: readonly number[]): number {
  const observed = counts.filter((c) => c > 0).length;
  const f1 = counts.filter((c) => c === 1).length;
  const f2 = counts.filter((c) => c === 2).length;
  return f2 > 0 ? observed + (f1 * f1) / (2 * f2) : observed + (f1 * (f1 - 1)) / 2;
}

/** Miller–Madow bias-corrected entropy: the plug-in estimate plus (K − 1) / 2N. */
export function millerMadow(counts: readonly number[]): number {
  const n = counts.reduce((a, b) => a + b, 0);
  const k = counts.filter((c) => c > 0).length;
  return n === 0 ? 0 : entropyOf(counts) + (k - 1) / (2 * n);
}
