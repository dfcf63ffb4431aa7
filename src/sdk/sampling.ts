import { ConfigError } from "../config/errors.ts";

/** Per-route sampling rates: exact routes or `*` patterns, and a default. */
export interface SamplingRules {
  /** Rate for routes no rule matches, in [0, 1]. */
  readonly default: number;
  /** Route template or pattern (`*` matches anything, `/` included) → rate in [0, 1]. */
  readonly routes?: Readonly<Record<string, number>>;
}

export interface Sampler {
  /** The rate that applies to a route. */
  rateFor(route: string): number;
  /**
   * Whether to score an observation. Deterministic on the trace id: one trace gets one
   * decision, and a lower rate samples a subset of what a higher rate samples.
   */
  decide(route: string, traceId: string | undefined): boolean;
}

function checkRate(field: string, rate: unknown): number {
  if (typeof rate !== "number" || !Number.isFinite(rate) || rate < 0 || rate > 1) throw new ConfigError(field, rate, "expected a sampling rate from 0 to 1");
  return rate;
}

/** A position in [0, 1) from a trace id: its low 52 bits, so every span of a trace agrees. */
export function traceFraction(traceId: string): number | undefined {
  if (!/^[0-9a-f]{32}$/i.test(traceId) || /^0+$/.test(traceId)) return undefined;
  return parseInt(traceId.slice(-13), 16) / 2 ** 52;
}

/**
 * Whether `route` matches a pattern whose stars match any run of characters (`/` included), given
 * as its literal pieces: the text between its stars, as `pattern.split("*")` returns them. Linear in
 * the route for a given pattern: the first piece is a prefix, the last a suffix, and each one between
 * is taken at its first place after the previous one, which is where a match may take it. The `.*`
 * chain this replaces was polynomial in the route's length with several stars, and routes come from
 * callers (through the collector, from anyone who can send a trace).
 */
export function matchesGlob(pieces: readonly string[], route: string): boolean {
  if (pieces.length === 1) return route === pieces[0];
  const head = pieces[0] ?? "";
  const tail = pieces[pieces.length - 1] ?? "";
  if (route.length < head.length + tail.length || !route.startsWith(head) || !route.endsWith(tail)) return false;
  let at = head.length;
  const end = route.length - tail.length;
  for (let k = 1; k < pieces.length - 1; k++) {
    const piece = pieces[k] ?? "";
    if (piece === "") continue;
    const found = route.indexOf(piece, at);
    if (found < 0 || found + piece.length > end) return false;
    at = found + piece.length;
  }
  return true;
}

export function createSampler(rules: SamplingRules, random: () => number): Sampler {
  const fallback = checkRate("sampling.default", rules.default);
  const exact = new Map<string, number>();
  const patterns: Array<{ pieces: readonly string[]; literal: number; rate: number }> = [];
  for (const [route, rate] of Object.entries(rules.routes ?? {})) {
    const r = checkRate(`sampling.routes["${route}"]`, rate);
    if (!route.includes("*")) exact.set(route, r);
    else {
      const pieces = route.split("*");
      patterns.push({ pieces, literal: route.length - (pieces.length - 1), rate: r });
    }
  }
  // The most specific pattern (most literal characters) wins.
  patterns.sort((a, b) => b.literal - a.literal);
  const rateFor = (route: string): number => exact.get(route) ?? patterns.find((p) => matchesGlob(p.pieces, route))?.rate ?? fallback;
  return {
    rateFor,
    decide(route: string, traceId: string | undefined): boolean {
      const rate = rateFor(route);
      if (rate >= 1) return true;
      if (rate <= 0) return false;
      const u = traceId !== undefined ? traceFraction(traceId) : undefined;
      return (u ?? random()) < rate;
    },
  };
}
