import { readFileSync } from "node:fs";

// Text files people edit (config files, calibration files, row sets) may start with a UTF-8 byte
// order mark: Windows editors and PowerShell write one. Every reader drops it here.

/** The text without a leading byte order mark. */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** A UTF-8 text file, without its byte order mark. */
export function readTextFile(path: string): string {
  return stripBom(readFileSync(path, "utf8"));
}
