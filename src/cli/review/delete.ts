import { existsSync, statSync, unlinkSync } from "node:fs";
import * as nodeFs from "node:fs";
import { basename, resolve } from "node:path";
import { REVIEW_RECORD_VERSION } from "../../review/record.ts";
import type { SkippedSpoolFile } from "../../review/spool-files.ts";
import { SEGMENT_PATTERN, appendLabel, labelsPath, segmentFiles } from "../../review/spool-files.ts";
import type { SpoolFileOps } from "../../review/spool-fs.ts";
import { blankSpoolRanges, openSpoolFile, readSpoolLines } from "../../review/spool-fs.ts";
import { UsageError, parseFlags, runCommand } from "../shared/command.ts";
import { EXIT } from "../shared/exit-codes.ts";
import type { CommandIo } from "../shared/io.ts";
import { sanitizeForTerminal } from "../shared/io.ts";
import { reportSkippedFiles } from "./skips.ts";

export const REVIEW_DELETE_HELP = `groundwatch review delete — remove one trace's answers and labels from a review spool

Usage:
  groundwatch review delete --dir DIR --trace TRACE_ID [--labels FILE]

Removes every spooled answer of the trace (32 hex digits) from every segment of DIR, and every
label of those answers from the labels file (DIR/labels.jsonl, or --labels FILE). Each line removed
is overwritten in place with spaces (readers skip blank lines): no file is replaced, so what a
running collector or a reviewer appends meanwhile is kept. A segment no writer appends to any more
that is left with nothing is removed. A partial last line (a write cut by a crash) that names the
trace is removed too, once no writer appends to its file. Prints how many answers and labels it
removed; a link, FIFO or device under a spool name is passed over and named on stderr.

  --dir DIR         the spool directory (groundwatch serve --review-dir)
  --trace ID        the trace id, as on the evaluation span (groundwatch flagged shows it)
  --labels FILE     the labels file (default DIR/labels.jsonl)

Exit codes: 0 done (also when the trace had nothing spooled), 1 a file could not be changed,
2 bad flags (no such directory, not a trace id).
`;

const TRACE_ID = /^[0-9a-f]{32}$/;

/** What a line says about the trace: it is one of its records (or a torn line naming it), and the record's id. */
function lineOf(line: string, traceId: string): { drop: boolean; id?: string } {
  if (!line.includes(traceId)) return { drop: false };
  try {
    const v = JSON.parse(line) as { id?: unknown; traceId?: unknown };
    const id = typeof v.id === "string" ? v.id : undefined;
    return { drop: v.traceId === traceId || (id?.startsWith(`${traceId}-`) ?? false), ...(id !== undefined ? { id } : {}) };
  } catch {
    // A torn line that names the trace: nothing of it is left behind.
    return { drop: true };
  }
}

/** What blanking one file did. */
type Blanked = { readonly removed: number; readonly gone: boolean; readonly tornLeft: boolean } | { readonly skipped: SkippedSpoolFile };

/**
 * Overwrites the lines `drop` picks with spaces, in place, through one descriptor (never through a
 * link, never a FIFO). The file keeps its inode and size, so appends that land meanwhile (at its
 * end) are kept. `sealed`: no writer appends to the file any more, so its unterminated last line
 * is a crash's leftover (dropped when it names the trace) and, left with nothing, the file is
 * removed. In a file still appended to, an unterminated last line may be a write in progress: it
 * is left (`tornLeft` when it names the trace).
 */
function blankLines(fs: SpoolFileOps, path: string, drop: (line: string) => boolean, sealed: boolean): Blanked {
  const opened = openSpoolFile(path, "update", { fs });
  if ("absent" in opened) return { removed: 0, gone: false, tornLeft: false };
  if ("skipped" in opened) return { skipped: { path, reason: opened.skipped } };
  const { fd, size } = opened.file;
  const ranges: Array<{ start: number; end: number }> = [];
  let kept = 0;
  let tornLeft = false;
  try {
    readSpoolLines(
      fs,
      fd,
      0,
      size,
      (line) => {
        if (line.text === undefined || line.text.trim() === "") {
          if (line.text === undefined) kept++;
          return;
        }
        const dropped = drop(line.text);
        if (dropped && (line.terminated || sealed)) ranges.push({ start: line.start, end: line.end });
        else {
          kept++;
          if (dropped) tornLeft = true;
        }
      },
      { tail: true },
    );
    if (ranges.length === 0) return { removed: 0, gone: false, tornLeft };
    if (kept === 0 && sealed) {
      unlinkSync(path);
      return { removed: ranges.length, gone: true, tornLeft };
    }
    blankSpoolRanges(fs, fd, ranges);
    return { removed: ranges.length, gone: false, tornLeft };
  } finally {
    fs.closeSync(fd);
  }
}

/** The segments of `files` some writer may still append to: the newest (highest sequence number) of each replica. */
function liveSegments(files: readonly string[]): Set<string> {
  const newest = new Map<string, { seq: number; path: string }>();
  for (const path of files) {
    const m = SEGMENT_PATTERN.exec(basename(path));
    if (!m) continue;
    const replica = m[1] ?? "";
    const seq = Number(m[3]);
    const had = newest.get(replica);
    if (!had || seq > had.seq) newest.set(replica, { seq, path });
  }
  return new Set([...newest.values()].map((n) => n.path));
}

/** What deleting a trace did. */
export interface DeleteResult {
  readonly records: number;
  readonly segments: number;
  readonly labels: number;
  /** Files under spool names that were passed over (not regular files, or over the read cap). */
  readonly skipped: readonly SkippedSpoolFile[];
  /** Files still appended to whose unterminated last line names the trace: left, as it may be a write in progress. */
  readonly tornLeft: readonly string[];
}

export interface DeleteOptions {
  /** The clock for the erasure mark's time (default: now). */
  readonly now?: () => Date;
  /** File operations (default node:fs; tests interleave appends with them). */
  readonly fs?: SpoolFileOps;
}

/**
 * Removes a trace's spooled answers and their labels by blanking their lines in place; returns the
 * counts. After labels were blanked, an erasure mark is appended to the labels file, so that a
 * reader that counts labels as the file grows (the labels gauge) reads it again.
 */
export function deleteTrace(dir: string, traceId: string, labels: string = labelsPath(dir), options: DeleteOptions = {}): DeleteResult {
  const fs = options.fs ?? nodeFs;
  const now = options.now ?? (() => new Date());
  const ids = new Set<string>();
  const skipped: SkippedSpoolFile[] = [];
  const tornLeft: string[] = [];
  let records = 0;
  let segments = 0;
  const files = segmentFiles(dir);
  const live = liveSegments(files);
  for (const file of files) {
    const done = blankLines(
      fs,
      file,
      (line) => {
        const seen = lineOf(line, traceId);
        if (seen.drop && seen.id !== undefined) ids.add(seen.id);
        return seen.drop;
      },
      !live.has(file),
    );
    if ("skipped" in done) {
      skipped.push(done.skipped);
      continue;
    }
    if (done.tornLeft) tornLeft.push(file);
    if (done.removed > 0) segments++;
    records += done.removed;
  }
  let labelCount = 0;
  const done = blankLines(
    fs,
    labels,
    (line) => {
      if (!line.includes(traceId) && ![...ids].some((id) => line.includes(id))) return false;
      try {
        const id = (JSON.parse(line) as { id?: unknown }).id;
        return typeof id === "string" && (ids.has(id) || id.startsWith(`${traceId}-`));
      } catch {
        return line.includes(traceId);
      }
    },
    false,
  );
  if ("skipped" in done) skipped.push(done.skipped);
  else {
    if (done.tornLeft) tornLeft.push(labels);
    labelCount = done.removed;
    if (labelCount > 0) appendLabel(labels, { v: REVIEW_RECORD_VERSION, erased: labelCount, time: now().toISOString() });
  }
  return { records, segments, labels: labelCount, skipped, tornLeft };
}

/** `groundwatch review delete`. */
export function runReviewDelete(argv: readonly string[], io: CommandIo): Promise<number> {
  return runCommand("review delete", REVIEW_DELETE_HELP, io, async () => {
    const { values } = parseFlags(argv, { dir: { type: "string" }, trace: { type: "string" }, labels: { type: "string" } });
    if (values.dir === undefined) throw new UsageError("--dir DIR is required (the spool directory)", true);
    if (values.trace === undefined) throw new UsageError("--trace TRACE_ID is required", true);
    const traceId = values.trace.trim().toLowerCase();
    if (!TRACE_ID.test(traceId) || /^0+$/.test(traceId)) throw new UsageError(`--trace: ${JSON.stringify(values.trace.slice(0, 80))} is not a trace id (32 hex digits)`);
    const dir = resolve(io.cwd, values.dir);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--dir: ${values.dir} is not a directory`);
    const labels = values.labels !== undefined ? resolve(io.cwd, values.labels) : labelsPath(dir);
    const done = deleteTrace(dir, traceId, labels);
    reportSkippedFiles("review delete", done.skipped, io.stderr);
    for (const file of done.tornLeft) io.stderr.write(`groundwatch review delete: the last line of ${sanitizeForTerminal(file)} names the trace but is not finished (a write in progress, or a writer that crashed and has not restarted): left; run the command again once the writer has moved on\n`);
    io.stdout.write(`removed ${done.records} spooled answer${done.records === 1 ? "" : "s"} (from ${done.segments} segment${done.segments === 1 ? "" : "s"}) and ${done.labels} label${done.labels === 1 ? "" : "s"} of trace ${traceId}\n`);
    return EXIT.ok;
  });
}
