import type { Sample } from "../core/entropy/semantic-entropy.ts";
import { ConfigError } from "../config/errors.ts";
import { parseInteger, parseRate } from "../config/parse.ts";
import type { SamplingRules } from "./sampling.ts";
import { isPlainObject } from "../core/plain-object.ts";

/** The `resample` option of createMonitor (live semantic entropy): what the host passes, and its validation. */

/** What the host's resampler is asked for: redraw `n` answers to the same question from the same context. */
export interface ResampleRequest {
  /** The route template of the observation. */
  readonly route: string;
  readonly question: string | undefined;
  /** The retrieved documents the answer was generated from. */
  readonly context: readonly string[];
  /** The answer the service gave (for reference; resamples are drawn independently of it). */
  readonly answer: string;
  /** How many answers to draw. */
  readonly n: number;
  /** Aborted at the call's timeout or at shutdown: pass it to fetch / the model client. */
  readonly signal: AbortSignal;
}

/** The resampled answers (strings or `{ text, logprobs? }`), or those with the tokens they cost. */
export type ResampleResult = readonly Sample[] | { readonly samples: readonly Sample[]; readonly usage?: { readonly promptTokens?: number; readonly completionTokens?: number } };

/**
 * Live semantic entropy: groundwatch asks the host's `sample` function for resamples of answers it
 * scores, off the request path, and measures entropy and claim-level consistency on them.
 */
export interface ResampleOptions {
  /** The host's sampler: draws `n` more answers (temperature > 0) for the same question and context. */
  readonly sample: (request: ResampleRequest) => Promise<ResampleResult>;
  /** Answers to draw per resampled observation, 2–20. Default 5. */
  readonly n?: number;
  /** Share of the observations sampled for scoring that are also resampled: one rate, or a default and per-route rates like `sampling`. Default 1. */
  readonly rate?: number | { readonly default?: number; readonly routes?: Readonly<Record<string, number>> };
  /**
   * Resampler calls in flight at once, 1–64; as many more may wait for a slot. Beyond that an
   * observation is scored without entropy (counted `busy`), so a slow model never holds up scoring. Default 2.
   */
  readonly maxConcurrent?: number;
  /** Most resampler calls started in any 60 s, 1–100 000; over it an observation is scored without entropy (counted `budget`). Default 60. */
  readonly maxCallsPerMinute?: number;
  /**
   * Time allowed per resampler call in ms, 1–3 600 000; its AbortSignal fires then (and at shutdown), and the
   * observation is scored with entropy unreliable (counted `timeout`). Separate from the monitor's `timeoutMs`,
   * which times scoring only. Default 30 000.
   */
  readonly timeoutMs?: number;
}

/** The resampler in force (`resample` option), validated, with every default applied. */
export interface ResolvedResampleOptions {
  readonly sample: ResampleOptions["sample"];
  readonly n: number;
  /** Per-route rates, as `sampling`'s: a number option becomes the default with no routes. */
  readonly rate: SamplingRules;
  readonly maxConcurrent: number;
  readonly maxCallsPerMinute: number;
  readonly timeoutMs: number;
}

/**
 * Validates the `resample` option (code only: a function cannot come from the environment or a
 * config file); a bad field throws a ConfigError naming it, e.g. `resample.n`.
 */
export function resolveResampleOptions(raw: unknown): ResolvedResampleOptions | undefined {
  if (raw === undefined) return undefined;
  if (!raw || typeof raw !== "object") throw new ConfigError("resample", raw, "expected an object with a sample function");
  const o = raw as Record<string, unknown>;
  if (typeof o.sample !== "function") throw new ConfigError("resample.sample", typeof o.sample, "expected a function (request) => Promise<samples>");
  // Code options only, so a rate must be a number (no strings as from the environment).
  const rateOf = (field: string, v: unknown): number | undefined => {
    if (v !== undefined && typeof v !== "number") throw new ConfigError(field, v, "expected a sampling rate from 0 to 1");
    return parseRate(field, v, "a sampling rate");
  };
  let rules: SamplingRules;
  if (o.rate === undefined || typeof o.rate === "number") rules = { default: rateOf("resample.rate", o.rate) ?? 1, routes: {} };
  else if (isPlainObject(o.rate)) {
    const r = o.rate as { default?: unknown; routes?: unknown };
    if (r.routes !== undefined && (!isPlainObject(r.routes))) throw new ConfigError("resample.rate.routes", r.routes, "expected an object of route → rate");
    const routes: Record<string, number> = {};
    for (const [route, v] of Object.entries((r.routes ?? {}) as Record<string, unknown>)) routes[route] = rateOf(`resample.rate.routes["${route}"]`, v ?? null) as number;
    rules = { default: rateOf("resample.rate.default", r.default) ?? 1, routes };
  } else throw new ConfigError("resample.rate", o.rate, "expected a rate from 0 to 1, or { default, routes }");
  return {
    sample: o.sample as ResampleOptions["sample"],
    n: parseInteger("resample.n", o.n, 2, 20) ?? 5,
    rate: rules,
    maxConcurrent: parseInteger("resample.maxConcurrent", o.maxConcurrent, 1, 64) ?? 2,
    maxCallsPerMinute: parseInteger("resample.maxCallsPerMinute", o.maxCallsPerMinute, 1, 100_000) ?? 60,
    timeoutMs: parseInteger("resample.timeoutMs", o.timeoutMs, 1, 3_600_000) ?? 30_000,
  };
}
