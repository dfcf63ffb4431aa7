/** A fitted logistic regression: p = σ(bias + Σ w·x). */
export interface LogisticFit {
  readonly weights: number[];
  readonly bias: number;
  readonly iterations: number;
}

function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i] ?? 0]);
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]?.[c] ?? 0) > Math.abs(m[pivot]?.[c] ?? 0)) pivot = r;
    const tmp = m[c];
    m[c] = m[pivot] ?? [];
    m[pivot] = tmp ?? [];
    const rowC = m[c] ?? [];
    const d = rowC[c] ?? 1;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const row = m[r] ?? [];
      const f = (row[c] ?? 0) / d;
      for (let k = c; k <= n; k++) row[k] = (row[k] ?? 0) - f * (rowC[k] ?? 0);
    }
  }
  return m.map((row, i) => (row[n] ?? 0) / (row[i] ?? 1));
}

/**
 * Fits weights by Newton's method (IRLS) with an L2 penalty on the weights (not the
 * bias). Optional per-row sample weights.
 */
export function fitLogistic(x: readonly (readonly number[])[], y: readonly number[], options: { l2?: number; maxIterations?: number; sampleWeights?: readonly number[] } = {}): LogisticFit {
  const l2 = options.l2 ?? 1e-2;
  const d = (x[0]?.length ?? 0) + 1;
  let w = new Array<number>(d).fill(0);
  let it = 0;
  for (; it < (options.maxIterations ?? 50); it++) {
    const grad = new Array<number>(d).fill(0);
    const hess = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    x.forEach((row, i) => {
      const xi = [1, ...row];
      let z = 0;
      for (let k = 0; k < d; k++) z += (w[k] ?? 0) * (xi[k] ?? 0);
      const p = 1 / (1 + Math.exp(-z));
      const sw = options.sampleWeights?.[i] ?? 1;
      const r = sw * ((y[i] ?? 0) - p);
      const v = sw * p * (1 - p);
      for (let a = 0; a < d; a++) {
        grad[a] = (grad[a] ?? 0) + r * (xi[a] ?? 0);
        const ha = hess[a] ?? [];
        for (let b = a; b < d; b++) ha[b] = (ha[b] ?? 0) + v * (xi[a] ?? 0) * (xi[b] ?? 0);
      }
    });
    for (let a = 0; a < d; a++) {
      for (let b = 0; b < a; b++) (hess[a] ?? [])[b] = hess[b]?.[a] ?? 0;
      if (a > 0) {
        grad[a] = (grad[a] ?? 0) - l2 * (w[a] ?? 0);
        (hess[a] ?? [])[a] = (hess[a]?.[a] ?? 0) + l2;
      }
    }
    const step = solve(hess, grad);
    w = w.map((v, k) => v + (step[k] ?? 0));
    if (Math.max(...step.map(Math.abs)) < 1e-8) break;
  }
  return { bias: w[0] ?? 0, weights: w.slice(1), iterations: it + 1 };
}
