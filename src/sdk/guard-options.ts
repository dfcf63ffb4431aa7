/**
 * Guard mode's options (Monitor.guard, docs/guard.md): what a caller may set per call or as the
 * monitor's defaults (MonitorOptions.guard), resolved once by `resolveGuardOptions` — per call over
 * the monitor's resolved defaults, which are over the built-in ones. A bad value is a ConfigError
 * naming the field (at createMonitor for the defaults; guard() turns one in a call's options into a
 * bypass, never a throw).
 */
import { ConfigError } from "../config/errors.ts";
import type { Parser } from "../config/parse.ts";
import { integerIn, oneOf } from "../config/parse.ts";

/** Options of one Monitor.guard() call, and (as MonitorOptions.guard) the monitor's defaults for every call. */
export interface GuardOptions {
  /**
   * Time the check may take, ms, 1–60 000, from the call: past it the decision is a bypass
   * (`budget_exceeded`) and the scoring is given up (its queued inference withdrawn). Default 200.
   */
  readonly budgetMs?: number;
  /**
   * What a bypass (no check made: budget exceeded, scorer unavailable or failing, input over the
   * scorer's limits or unscorable, monitor shut down) does with the answer: "block" sends the
   * replacement (fail closed), "pass" sends the answer unchecked (fail open). Default "block".
   */
  readonly onFail?: "block" | "pass";
  /** What an ungrounded answer becomes: "block" (the replacement) or "correct" (its unsupported claims removed or marked). Default "block". */
  readonly action?: "block" | "correct";
  /** The text sent instead of a blocked answer, 1–10 000 characters. Default DEFAULT_GUARD_REPLACEMENT. */
  readonly replacement?: string;
  /** How `action: "correct"` corrects: "remove" takes each unsupported claim's text out, "mark" wraps it in `marker`. Default "remove". */
  readonly correction?: "remove" | "mark";
  /** What "mark" puts before and after each unsupported claim, each at most 100 characters. Default `[unverified: ` and `]`. */
  readonly marker?: { readonly open?: string; readonly close?: string };
}

/** The fields of GuardOptions, for callers that pick them out of a larger object or refuse others. */
export const GUARD_OPTION_KEYS = ["budgetMs", "onFail", "action", "replacement", "correction", "marker"] as const satisfies ReadonlyArray<keyof GuardOptions>;

/** Guard options with every value set. */
export interface ResolvedGuardOptions {
  readonly budgetMs: number;
  readonly onFail: "block" | "pass";
  readonly action: "block" | "correct";
  readonly replacement: string;
  readonly correction: "remove" | "mark";
  readonly marker: { readonly open: string; readonly close: string };
}

/** The replacement of a blocked answer when none is configured. */
export const DEFAULT_GUARD_REPLACEMENT = "I'm sorry, I couldn't verify that answer against our sources, so I can't share it. Please try rephrasing your question.";

/** The built-in defaults, under MonitorOptions.guard and each call's options. */
export const GUARD_DEFAULTS: ResolvedGuardOptions = Object.freeze({
  budgetMs: 200,
  onFail: "block",
  action: "block",
  replacement: DEFAULT_GUARD_REPLACEMENT,
  correction: "remove",
  marker: Object.freeze({ open: "[unverified: ", close: "]" }),
});

/** Longest replacement text, and longest marker part. */
const MAX_REPLACEMENT_CHARS = 10_000;
const MAX_MARKER_CHARS = 100;

/** A string of `min`–`max` characters, or undefined when not given. */
function text(field: string, raw: unknown, min: number, max: number): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== "string" || raw.length < min || raw.length > max) throw new ConfigError(field, raw, `expected a string of ${min}–${max} characters`);
  return raw;
}

/** A marker (`{ open?, close? }`, each at most 100 characters), or undefined when not given. */
function marker(field: string, raw: unknown): GuardOptions["marker"] | undefined {
  if (raw === undefined) return undefined;
  if (raw === null || typeof raw !== "object") throw new ConfigError(field, raw, "expected { open?, close? }");
  const m = raw as Readonly<Record<string, unknown>>;
  const open = text(`${field}.open`, m.open, 0, MAX_MARKER_CHARS);
  const close = text(`${field}.close`, m.close, 0, MAX_MARKER_CHARS);
  return { ...(open !== undefined ? { open } : {}), ...(close !== undefined ? { close } : {}) };
}

/**
 * The one check of each guard option, wherever it is set (a call's options, MonitorOptions.guard,
 * the config file's monitor.guard, a GROUNDWATCH_GUARD_* variable): config/parse.ts's Parser shape,
 * the field a ConfigError names and the raw value; undefined when not given.
 */
export const GUARD_PARSERS = {
  budgetMs: integerIn(1, 60_000),
  onFail: oneOf(["block", "pass"] as const),
  action: oneOf(["block", "correct"] as const),
  replacement: (field: string, raw: unknown): string | undefined => text(field, raw, 1, MAX_REPLACEMENT_CHARS),
  correction: oneOf(["remove", "mark"] as const),
  marker,
} as const satisfies { readonly [K in keyof GuardOptions]-?: Parser<unknown> };

/**
 * Resolves guard options over `base` (the monitor's resolved defaults; the built-in ones when
 * absent): each field given replaces the base's, checked; a bad one throws a ConfigError naming it
 * (`guard.budgetMs`, `guard.marker.open`, …). Reads each field of `options` once.
 */
export function resolveGuardOptions(options: GuardOptions | undefined, base: ResolvedGuardOptions = GUARD_DEFAULTS): ResolvedGuardOptions {
  if (options === undefined || options === null) return base;
  if (typeof options !== "object") throw new ConfigError("guard", options, "expected an object of guard options");
  const m = GUARD_PARSERS.marker("guard.marker", options.marker);
  return {
    budgetMs: GUARD_PARSERS.budgetMs("guard.budgetMs", options.budgetMs) ?? base.budgetMs,
    onFail: GUARD_PARSERS.onFail("guard.onFail", options.onFail) ?? base.onFail,
    action: GUARD_PARSERS.action("guard.action", options.action) ?? base.action,
    replacement: GUARD_PARSERS.replacement("guard.replacement", options.replacement) ?? base.replacement,
    correction: GUARD_PARSERS.correction("guard.correction", options.correction) ?? base.correction,
    marker: { open: m?.open ?? base.marker.open, close: m?.close ?? base.marker.close },
  };
}
