/**
 * Seeded traffic for the drift tests: each route's scores from its own distribution (a share of
 * ungrounded answers with low scores, the rest grounded with high ones), the review spool's
 * selection of them (every flagged answer, each grounded one at the grounded sample rate), and the
 * count of drift alarms over many windows.
 */
import type { WeightedSample } from "../../src/core/drift.ts";
import { createDriftTracker } from "../../src/core/drift.ts";

/** How a route's scores are spread: `flagged` of them around `low`, the rest around `high`, each with standard deviation `spread`, clamped to [0, 1]. */
export interface RouteShape {
  readonly flagged: number;
  readonly low: number;
  readonly high: number;
  readonly spread: number;
}

/** Two routes whose traffic differs: /faq mostly grounded, /claims with many more ungrounded answers. */
export const ROUTES: Readonly<Record<string, RouteShape>> = {
  "/faq": { flagged: 0.1, low: 0.2, high: 0.8, spread: 0.1 },
  "/claims": { flagged: 0.35, low: 0.15, high: 0.7, spread: 0.12 },
};

/** The answer threshold the spool's verdicts use. */
export const THRESHOLD = 0.5;

/** A route's score source from a seeded uniform source (Box–Muller). */
export function scoresOf(shape: RouteShape, random: () => number): () => number {
  const normal = (): number => {
    const u = 1 - random();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
  };
  return () => Math.min(1, Math.max(0, (random() < shape.flagged ? shape.low : shape.high) + shape.spread * normal()));
}

/** One answer kept by the review spool: its score, kind and the rate its kind was kept at. */
export interface Spooled {
  readonly score: number;
  readonly kind: "flagged" | "grounded_sample";
  readonly sampleRate: number;
}

/** What the review spool keeps of `n` answers: every one under the threshold, each other one with probability `rate`. */
export function spoolOf(draw: () => number, n: number, rate: number, random: () => number): Spooled[] {
  const kept: Spooled[] = [];
  for (let i = 0; i < n; i++) {
    const score = draw();
    if (score < THRESHOLD) kept.push({ score, kind: "flagged", sampleRate: 1 });
    else if (random() < rate) kept.push({ score, kind: "grounded_sample", sampleRate: rate });
  }
  return kept;
}

/** The p-value drift reports for one full window of `windowSize` scores from `draw` against `reference` (undefined: no verdict). */
export function windowPValue(reference: WeightedSample, draw: () => number, windowSize: number, minScores = 20): number | undefined {
  const tracker = createDriftTracker({ windowSize, minScores, reference });
  for (let i = 0; i < windowSize; i++) tracker.add(draw());
  return tracker.result()?.pValue;
}

/**
 * The most alarms in `n` independent windows that a test firing at its nominal rate `p` gives
 * more than once in 1/`tail` runs: the smallest k with P(X > k) ≤ `tail`, X ~ Binomial(n, p).
 */
export function alarmBound(n: number, p: number, tail = 0.001): number {
  let pmf = (1 - p) ** n;
  let cdf = pmf;
  for (let k = 0; k < n; k++) {
    if (1 - cdf <= tail) return k;
    pmf *= ((n - k) / (k + 1)) * (p / (1 - p));
    cdf += pmf;
  }
  return n;
}
