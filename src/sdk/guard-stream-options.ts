/**
 * A guarded stream's options (StreamGuardOptions) resolved once: the guard options over the monitor's
 * guard defaults (resolveGuardOptions: `guard.budgetMs`, …), and the stream's own fields. A bad value
 * is a ConfigError naming its field (`guardStream.mode`, `guardStream.maxPendingChars`); the engine
 * turns one into a bypass (invalid_input), never a throw into the host.
 */
import { ConfigError } from "../config/errors.ts";
import { integerIn, oneOf } from "../config/parse.ts";
import type { ResolvedGuardOptions } from "./guard-options.ts";
import { resolveGuardOptions } from "./guard-options.ts";
import type { ResolvedStreamGuardOptions, StreamGuardOptions } from "./guard-stream-types.ts";
import { STREAM_GUARD_MODES } from "./guard-stream-types.ts";

/** The stream's own defaults: sentence mode, a check forced after 600 characters without a sentence boundary. */
export const STREAM_GUARD_DEFAULTS = Object.freeze({ mode: "sentence", maxPendingChars: 600 } as const);

/** Resolves a stream's options over the monitor's guard defaults (the built-in ones when absent). */
export function resolveStreamGuardOptions(options: StreamGuardOptions | undefined, base?: ResolvedGuardOptions): ResolvedStreamGuardOptions {
  if (options !== undefined && (options === null || typeof options !== "object")) throw new ConfigError("guardStream", options, "expected an object of stream guard options");
  const guard = resolveGuardOptions(options, base);
  const signal: unknown = options?.signal;
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw new ConfigError("guardStream.signal", String(signal), "expected an AbortSignal");
  return {
    ...guard,
    mode: oneOf(STREAM_GUARD_MODES)("guardStream.mode", options?.mode) ?? STREAM_GUARD_DEFAULTS.mode,
    maxPendingChars: integerIn(20, 20_000)("guardStream.maxPendingChars", options?.maxPendingChars) ?? STREAM_GUARD_DEFAULTS.maxPendingChars,
  };
}
