import type { Writable } from "node:stream";
import type { SkippedSpoolFile } from "../../review/spool-files.ts";
import { describeSkip } from "../../review/spool-fs.ts";
import { sanitizeForTerminal } from "../io.ts";

/**
 * Says on stderr which spool files a command passed over (a link, FIFO or device under a spool
 * name, or a file over the read cap): one line each, `groundwatch <command>: passed over FILE: why`.
 */
export function reportSkippedFiles(command: string, skipped: readonly SkippedSpoolFile[], stderr: Writable): void {
  for (const s of skipped) stderr.write(`groundwatch ${command}: passed over ${sanitizeForTerminal(s.path)}: ${describeSkip(s.reason)}\n`);
}
