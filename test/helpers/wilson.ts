/** The Wilson 95% score interval, written out as the tests' oracle: (p + z²/2n ± z·√(p(1−p)/n + z²/4n²)) / (1 + z²/n). */
export function wilson(k: number, n: number): [number, number] {
  const z = 1.96;
  const p = k / n;
  const d = 1 + (z * z) / n;
  const c = (p + (z * z) / (2 * n)) / d;
  const h = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
  return [c - h, c + h];
}
