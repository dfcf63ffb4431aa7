import { stripControls } from "../core/safe-text.ts";

/**
 * A label value safe to show in metrics, dashboards and terminals: ANSI sequences (with an OSC's
 * payload), control and bidi characters removed, tabs and line breaks made spaces (see
 * core/safe-text.ts), at most `max` characters (default 200). Empty results become `fallback`.
 * Route templates pass through unchanged.
 */
export function sanitizeLabel(value: string, fallback = "unknown", max = 200): string {
  let clean = stripControls(value).slice(0, max);
  // A cut must not leave half a surrogate pair.
  if (/[\ud800-\udbff]$/.test(clean)) clean = clean.slice(0, -1);
  clean = clean.trim();
  return clean === "" ? fallback : clean;
}

/**
 * An untrusted value (a span's route or service name) as a metric label: sanitizeLabel's cleaning
 * (ANSI sequences, control and bidi characters removed, at most 200 characters); undefined when it is
 * not a string or nothing is left.
 */
export function labelOrUndefined(v: unknown): string | undefined {
  if (typeof v !== "string") return undefined;
  const clean = sanitizeLabel(v, "");
  return clean === "" ? undefined : clean;
}
