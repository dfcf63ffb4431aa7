import { ConfigError } from "./errors.ts";

/**
 * The one parser set for option, environment and config-file values. Each takes the field a
 * ConfigError names (an option name, an environment variable, or "config file section.key") and
 * the raw value: undefined, an empty or all-blank string means "not set" and gives undefined;
 * strings are trimmed before they are read.
 */

/** A parser of one setting: the field a ConfigError names and the raw value; undefined when blank (not set). */
export type Parser<T> = (field: string, raw: unknown) => T | undefined;

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

/** parseInteger as a Parser, for resolveField. */
export const integerIn = (min: number, max: number): Parser<number> => (field, raw) => parseInteger(field, raw, min, max);

/** parseNumber as a Parser, for resolveField. */
export const numberIn = (range: NumberRange): Parser<number> => (field, raw) => parseNumber(field, raw, range);

/** parseOneOf as a Parser, for resolveField. */
export const oneOf = <T extends string>(choices: readonly T[]): Parser<T> => (field, raw) => parseOneOf(field, raw, choices);

/** A size such as "512kb" or "2mb" in bytes (k = 1024; b, kb, mb in any case); undefined when it is not one. */
export function sizeBytes(size: string): number | undefined {
  const m = /^(\d+)(b|kb|mb)$/i.exec(size.trim());
  if (!m) return undefined;
  const unit = (m[2] as string).toLowerCase();
  return Number(m[1]) * (unit === "mb" ? 1024 * 1024 : unit === "kb" ? 1024 : 1);
}

/** A size such as "512kb" or "2mb" (sizeBytes reads it), trimmed and kept as written; undefined when blank. */
export function parseByteSize(field: string, raw: unknown): string | undefined {
  const size = parseNonEmpty(field, raw);
  if (size !== undefined && sizeBytes(size) === undefined) throw new ConfigError(field, raw, 'expected a size such as "512kb" or "2mb"');
  return size;
}

/** Per-route sampling rates written "route=rate,route=rate" ("/a/*=1,/b=0.2"), each rate from 0 to 1; undefined when blank. */
export function parseRouteRates(field: string, raw: unknown): Record<string, number> | undefined {
  if (isBlank(raw)) return undefined;
  if (typeof raw !== "string") throw new ConfigError(field, raw, 'expected "route=rate,route=rate"');
  const out: Record<string, number> = {};
  for (const part of raw.split(",").map((p) => p.trim()).filter((p) => p !== "")) {
    const eq = part.lastIndexOf("=");
    if (eq <= 0 || isBlank(part.slice(eq + 1))) throw new ConfigError(field, raw, 'expected "route=rate,route=rate"');
    out[part.slice(0, eq).trim()] = parseRate(`${field} route ${part.slice(0, eq).trim()}`, part.slice(eq + 1), "a sampling rate") as number;
  }
  return out;
}
