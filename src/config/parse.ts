import { ConfigError } from "./errors.ts";

/**
 * The one parser set for option, environment and config-file values. Each takes the field a
 * ConfigError names (an option name, an environment variable, or "config file section.key") and
 * the raw value: undefined, an empty or all-blank string means "not set" and gives undefined;
 * strings are trimmed before they are read.
 */

/** The range a number must lie in (both ends included). */
export interface NumberRange {
  /** Smallest value accepted. */
  readonly min: number;
  /** Largest value accepted. */
  readonly max: number;
  /** Accept whole numbers only. Default false. */
  readonly integer?: boolean;
  /** What the value is, in words, for the message ("a temperature"); default "an integer" or "a number". */
  readonly what?: string;
}

/** Words read as true or false (after trimming, in any case), wherever a boolean is configured. */
export const TRUE_WORDS: readonly string[] = ["true", "1", "yes", "on"];
export const FALSE_WORDS: readonly string[] = ["false", "0", "no", "off"];

/** Whether a raw value means "not set": undefined, or a string with nothing but blanks. */
export function isBlank(raw: unknown): raw is undefined | string {
  return raw === undefined || (typeof raw === "string" && raw.trim() === "");
}

/** A finite number in `range` (a number, or a string holding one), or undefined when blank. */
export function parseNumber(field: string, raw: unknown, range: NumberRange): number | undefined {
  if (isBlank(raw)) return undefined;
  const n = typeof raw === "number" ? raw : typeof raw === "string" ? Number(raw.trim()) : NaN;
  if (!Number.isFinite(n) || n < range.min || n > range.max || (range.integer === true && !Number.isInteger(n))) {
    // A number out of range is shown as the number it was read as; anything else as given.
    throw new ConfigError(field, Number.isFinite(n) ? n : raw, `expected ${range.what ?? (range.integer === true ? "an integer" : "a number")} from ${range.min} to ${range.max}`);
  }
  return n;
}

/** A whole number from `min` to `max`, or undefined when blank. */
export function parseInteger(field: string, raw: unknown, min: number, max: number): number | undefined {
  return parseNumber(field, raw, { min, max, integer: true });
}

/** A rate from 0 to 1 (a sampling rate, a share), or undefined when blank. */
export function parseRate(field: string, raw: unknown, what = "a rate"): number | undefined {
  return parseNumber(field, raw, { min: 0, max: 1, what });
}

/** A boolean, or one of TRUE_WORDS / FALSE_WORDS; undefined when blank. */
export function parseBoolean(field: string, raw: unknown): boolean | undefined {
  if (isBlank(raw)) return undefined;
  if (typeof raw === "boolean") return raw;
  const word = typeof raw === "string" ? raw.trim().toLowerCase() : undefined;
  if (word !== undefined && TRUE_WORDS.includes(word)) return true;
  if (word !== undefined && FALSE_WORDS.includes(word)) return false;
  throw new ConfigError(field, raw, "expected true or false");
}

/** One of `choices` (compared after trimming), or undefined when blank. */
export function parseOneOf<T extends string>(field: string, raw: unknown, choices: readonly T[]): T | undefined {
  if (isBlank(raw)) return undefined;
  const value = typeof raw === "string" ? raw.trim() : undefined;
  if (value === undefined || !(choices as readonly string[]).includes(value)) throw new ConfigError(field, raw, `expected one of ${choices.join(", ")}`);
  return value as T;
}

/** A string with something in it, trimmed; undefined when blank. */
export function parseNonEmpty(field: string, raw: unknown): string | undefined {
  if (isBlank(raw)) return undefined;
  if (typeof raw !== "string") throw new ConfigError(field, raw, "expected a non-empty string");
  return raw.trim();
}
