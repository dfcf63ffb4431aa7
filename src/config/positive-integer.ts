import { ConfigError } from "./errors.ts";

/**
 * A code option that must be a positive whole number (a byte cap, a timeout in ms): `fallback`
 * when it is not given, else the value, or a ConfigError naming `field`.
 */
export function positiveInteger(field: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw new ConfigError(field, value, "a positive whole number");
  return value;
}
