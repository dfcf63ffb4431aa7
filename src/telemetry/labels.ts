/**
 * ANSI escape sequences (CSI "ESC [ … final", OSC "ESC ] … BEL/ST", and two-character escapes),
 * C0/C1 control characters and DEL, and the Unicode bidirectional controls (which reorder how a
 * label is displayed: a route could be shown as another). Built from escapes so this file holds
 * none of them literally.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-Z\\-_]/g;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * A label value safe to show in metrics, dashboards and terminals: ANSI sequences, control and
 * bidi characters removed, at most `max` characters (default 200). Empty results become
 * `fallback`. Route templates pass through unchanged.
 */
export function sanitizeLabel(value: string, fallback = "unknown", max = 200): string {
  let clean = value.replace(ANSI, "").replace(CONTROL, "").slice(0, max);
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
