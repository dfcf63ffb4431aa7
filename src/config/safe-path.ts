/**
 * The one check for a relative path that names a file inside a folder groundwatch writes or reads
 * (a file the hub lists, a graph named by --variant): it must not climb out of the folder, start
 * at a root or a Windows drive, or hold characters that change how it is read.
 */

/** The longest such path accepted, in characters. */
export const MAX_RELATIVE_PATH_CHARS = 512;

/**
 * Relative, "/"-separated, with no empty, "." or ".." part; no leading "/", no Windows drive
 * prefix ("C:"), no backslash, control character or DEL; at most MAX_RELATIVE_PATH_CHARS characters.
 */
export function isSafeRelativePath(value: unknown): value is string {
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_RELATIVE_PATH_CHARS) return false;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(value) || value.startsWith("/") || /^[A-Za-z]:/.test(value)) return false;
  return value.split("/").every((part) => part !== "" && part !== "." && part !== "..");
}
