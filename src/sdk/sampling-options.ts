import { MONITOR_ENV } from "../config/env.ts";
import { ConfigError } from "../config/errors.ts";
import type { Parser } from "../config/parse.ts";
import { parseRate, parseRouteRates } from "../config/parse.ts";
import { fieldReader } from "../config/resolve.ts";
import { isPlainObject } from "../core/plain-object.ts";
import type { SamplingRules } from "./sampling.ts";

/** A sampling rate from 0 to 1, or undefined when blank. */
const rate: Parser<number> = (field, raw) => parseRate(field, raw, "a sampling rate");

/**
 * Per-route rates: "route=rate,…" from the environment (config/parse.ts parseRouteRates), or an
 * object of rates from the `sampling` option or the config file, each rate checked and named
 * `sampling.routes["route"]`.
 */
const routeRates: Parser<Record<string, number>> = (field, raw) => {
  if (typeof raw === "string") return parseRouteRates(field, raw);
  if (raw === undefined) return undefined;
  if (!isPlainObject(raw)) throw new ConfigError(field, raw, "expected an object of route → rate");
  const out: Record<string, number> = {};
  for (const [route, value] of Object.entries(raw)) {
    const entry = `sampling.routes["${route}"]`;
    const parsed = rate(entry, value);
    if (parsed === undefined) throw new ConfigError(entry, value, "expected a sampling rate from 0 to 1");
    out[route] = parsed;
  }
  return out;
};

/**
 * Which answers are scored: option > env (GROUNDWATCH_SAMPLE_RATE, GROUNDWATCH_SAMPLE_ROUTES) > the
 * config file's sampling section > default (5 %, no per-route rates). A bad rate is a ConfigError naming it.
 */
export function resolveSampling(option: Partial<SamplingRules> | undefined, from: { readonly env: NodeJS.ProcessEnv; readonly file: Readonly<Record<string, unknown>> | undefined }): SamplingRules {
  const read = fieldReader<keyof SamplingRules>({ options: option ?? {}, env: from.env, envNames: { default: MONITOR_ENV.sampleRate, routes: MONITOR_ENV.sampleRoutes }, file: from.file, section: "sampling", prefix: "sampling." });
  return { default: read("default", rate, 0.05), routes: read("routes", routeRates, {}) };
}
