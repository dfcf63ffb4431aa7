/** A seeded pseudo-random sequence in [0, 1) (a linear congruential generator): the same seed, the same sequence, on every run. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}
