/**
 * Guard mode's defaults for every guard() call of a monitor and for the collector's POST /v1/guard:
 * MonitorOptions.guard, the GROUNDWATCH_GUARD_* variables, the config file's monitor.guard, then
 * the built-in GUARD_DEFAULTS, resolved once at the edge (resolveMonitorOptions) and handed down as
 * values. A call's own options then go over them (resolveGuardOptions).
 */
import { GUARD_ENV } from "../config/env.ts";
import { ConfigError } from "../config/errors.ts";
import { fieldReader } from "../config/resolve.ts";
import { isPlainObject } from "../core/plain-object.ts";
import type { GuardOptions, ResolvedGuardOptions } from "./guard-options.ts";
import { GUARD_DEFAULTS, GUARD_OPTION_KEYS, GUARD_PARSERS } from "./guard-options.ts";

/** Where guard defaults are read from besides the code option. */
export interface GuardDefaultsSources {
  /** The environment (GUARD_ENV). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The config file's monitor.guard, as read (checked here). */
  readonly file: unknown;
}

/**
 * Resolves a monitor's guard defaults: each field option > env > config file > built-in, checked by
 * GUARD_PARSERS; `marker`'s open and close each option > file > built-in (no variable). A bad value
 * throws a ConfigError naming where it was set (`guard.budgetMs`, `GROUNDWATCH_GUARD_ON_FAIL`,
 * `config file monitor.guard.action`); so does an unknown key in the file's monitor.guard.
 */
export function resolveGuardDefaults(option: GuardOptions | undefined, from: GuardDefaultsSources): ResolvedGuardOptions {
  if (option !== undefined && !isPlainObject(option)) throw new ConfigError("guard", option, "expected an object of guard options");
  if (from.file !== undefined && !isPlainObject(from.file)) throw new ConfigError("config file monitor.guard", from.file, "expected an object of guard options");
  const file = from.file as Readonly<Record<string, unknown>> | undefined;
  const known: ReadonlySet<string> = new Set(GUARD_OPTION_KEYS);
  for (const key of Object.keys(file ?? {})) {
    if (!known.has(key)) throw new ConfigError(`config file monitor.guard.${key}`, file?.[key], `unknown key; expected one of ${GUARD_OPTION_KEYS.join(", ")}`);
  }
  const o: GuardOptions = option ?? {};
  const read = fieldReader<keyof GuardOptions>({ options: o, env: from.env, envNames: GUARD_ENV, file, section: "monitor.guard", prefix: "guard." });
  const optionMarker = GUARD_PARSERS.marker("guard.marker", o.marker);
  const fileMarker = GUARD_PARSERS.marker("config file monitor.guard.marker", file?.marker);
  return {
    budgetMs: read("budgetMs", GUARD_PARSERS.budgetMs, GUARD_DEFAULTS.budgetMs),
    onFail: read("onFail", GUARD_PARSERS.onFail, GUARD_DEFAULTS.onFail),
    action: read("action", GUARD_PARSERS.action, GUARD_DEFAULTS.action),
    replacement: read("replacement", GUARD_PARSERS.replacement, GUARD_DEFAULTS.replacement),
    correction: read("correction", GUARD_PARSERS.correction, GUARD_DEFAULTS.correction),
    marker: {
      open: optionMarker?.open ?? fileMarker?.open ?? GUARD_DEFAULTS.marker.open,
      close: optionMarker?.close ?? fileMarker?.close ?? GUARD_DEFAULTS.marker.close,
    },
  };
}
