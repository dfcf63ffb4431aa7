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

export function createSampler(rules: SamplingRules, random: () => number): Sampler {
  const fallback = checkRate("sampling.default", rules.default);
  const exact = new Map<string, number>();
  const patterns: Array<{ re: RegExp; literal: number; rate: number }> = [];
  for (const [route, rate] of Object.entries(rules.routes ?? {})) {
    const r = checkRate(`sampling.routes["${route}"]`, rate);
    if (!route.includes("*")) exact.set(route, r);
    else {
      const re = new RegExp(`^${route.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
      patterns.push({ re, literal: route.replace(/\*/g, "").length, rate: r });
    }
  }
  // The most specific pattern (most literal characters) wins.
  patterns.sort((a, b) => b.literal - a.literal);
  const rateFor = (route: string): number => exact.get(route) ?? patterns.find((p) => p.re.test(route))?.rate ?? fallback;
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
