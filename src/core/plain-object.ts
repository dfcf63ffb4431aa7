/**
 * A plain object read from JSON or passed by a caller: an object that is neither null nor an array.
 * The one test every reader of untyped input uses (config files, calibration.json, spools, OTLP
 * attributes, tokenizer.json, HTTP bodies).
 */

/** Whether `v` is an object that is neither null nor an array. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** `v` when it is a plain object (not null, not an array), else undefined. */
export function asPlainObject(v: unknown): Record<string, unknown> | undefined {
  return isPlainObject(v) ? v : undefined;
}
