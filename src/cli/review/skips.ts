import type { Writable } from "node:stream";
import type { ReviewSession } from "../../review/session.ts";
import type { SkippedSpoolFile } from "../../review/spool-files.ts";
import { describeSkip } from "../../review/spool-fs.ts";
import { sanitizeForTerminal } from "../shared/io.ts";
import type { MissingReplica } from "../../review/store.ts";
import { describeMissing } from "./remote-store.ts";

/**
 * Says on stderr which spool files a command passed over (a link, FIFO or device under a spool
 * name, or a file over the read cap): one line each, `groundwatch <command>: passed over FILE: why`.
 */
export function reportSkippedFiles(command: string, skipped: readonly SkippedSpoolFile[], stderr: Writable): void {
  for (const s of skipped) stderr.write(`groundwatch ${command}: passed over ${sanitizeForTerminal(s.path)}: ${describeSkip(s.reason)}\n`);
}

/**
 * Says on stderr what a review session could not read: the spool files passed over, and how many
 * spool and label lines were unreadable. The terminal and the web review say it alike.
 */
export function reportSessionReads(command: string, session: Pick<ReviewSession, "skippedFiles" | "unreadable"> & { readonly missing?: readonly MissingReplica[] }, stderr: Writable): void {
  reportMissing(command, session.missing ?? [], stderr);
  reportSkippedFiles(command, session.skippedFiles, stderr);
  const { spoolLines, labelLines } = session.unreadable;
  if (spoolLines > 0) stderr.write(`groundwatch ${command}: ${spoolLines} spool lines could not be read (a partial last write is expected after a crash)\n`);
  if (labelLines > 0) stderr.write(`groundwatch ${command}: ${labelLines} label lines could not be read\n`);
}

/** Says on stderr which replicas did not answer (--url): their answers are not in what follows. */
export function reportMissing(command: string, missing: readonly MissingReplica[], stderr: Writable): void {
  const text = describeMissing(missing);
  if (text !== undefined) stderr.write(`groundwatch ${command}: partial: ${sanitizeForTerminal(text)}\n`);
}
