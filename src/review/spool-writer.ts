import * as nodeFs from "node:fs";
import { join } from "node:path";
import type { SpoolRecord } from "./record.ts";
import { SEGMENT_PATTERN, segmentFiles, segmentName } from "./spool-files.ts";
import type { SpoolFileSkip } from "./spool-fs.ts";
import { SpoolFileRefused, appendSpoolLine, lastSpoolLine, openSpoolFile } from "./spool-fs.ts";

/**
 * The review spool's writer: append-only JSONL segments in one directory, one whole line per record
 * written with one write call (a SIGKILL loses at most the line being written, which readers skip),
 * a new segment at `segmentBytes`, a byte cap over every segment in the directory (at the cap it stops
 * writing and says so; it never deletes unread data to make room), and retention by age (a segment
 * whose newest record is older than `retentionMs` is removed, on open and at each rotation). A writer
 * that opens a directory holding segments continues after them in a new segment with the next
 * sequence number, so a restart never appends to a possibly torn segment and never duplicates.
 * Files are opened through spool-fs.ts: a segment-named file that is not a regular file (a link, a
 * FIFO) is neither read, counted, removed nor written through; each one met is reported to
 * `onSkippedFile`.
 */

/** The file operations the writer uses (node:fs by default; tests inject failures). */
export type SpoolFs = Pick<typeof nodeFs, "mkdirSync" | "readdirSync" | "unlinkSync" | "openSync" | "fstatSync" | "readSync" | "writeSync" | "closeSync">;

export interface SpoolWriterOptions {
  /** The spool directory (created 0700 when absent). */
  readonly dir: string;
  /** This writer's replica name, [A-Za-z0-9_.-]{1,64}: it names its segments. */
  readonly replica: string;
  /** Most bytes all segments of the directory may hold; at it, records are skipped (`bytes`). */
  readonly maxBytes: number;
  /** A segment is closed and a new one started before it would pass this many bytes; a longer record is skipped (`too_large`). */
  readonly segmentBytes: number;
  /** A segment whose newest record is older than this (ms) is removed, on open and at each rotation. */
  readonly retentionMs: number;
  /** Wall clock in ms since the epoch (names segments, dates retention). */
  readonly clock: () => number;
  /** File operations (default node:fs). */
  readonly fs?: SpoolFs;
  /** Told of each segment-named file passed over (not a regular file, or over the read cap), each time one is met. */
  readonly onSkippedFile?: (path: string, reason: SpoolFileSkip) => void;
}

/** Why a record was not written. */
export type SpoolSkipReason = "bytes" | "too_large" | "io_error";
export type SpoolAppendResult = { readonly written: true } | { readonly written: false; readonly reason: SpoolSkipReason };

export interface SpoolWriter {
  /** Writes one record as one line; never throws (a failed write is `io_error`). */
  append(record: SpoolRecord): SpoolAppendResult;
  /** Stops writing; later appends are `io_error`. */
  close(): void;
}

/** How often (clock ms) a writer at its byte cap looks again for segments retention removes. */
const CAP_RECHECK_MS = 60_000;

/**
 * A segment's size and newest record time (ms: the `time` of its last whole line, else its
 * modification time), or why it was passed over; undefined when it is gone.
 */
function lookAt(fs: SpoolFs, path: string, newest: number | undefined): { size: number; newestMs: number } | { skipped: SpoolFileSkip } | undefined {
  const opened = openSpoolFile(path, "read", { fs });
  if ("absent" in opened) return undefined;
  if ("skipped" in opened) return opened;
  const { fd, size } = opened.file;
  try {
    if (newest !== undefined) return { size, newestMs: newest };
    try {
      const line = lastSpoolLine(fs, fd, size);
      const time = line === undefined ? undefined : (JSON.parse(line) as { time?: unknown }).time;
      const ms = typeof time === "string" ? Date.parse(time) : NaN;
      if (Number.isFinite(ms)) return { size, newestMs: ms };
    } catch {
      // A torn or unreadable last line: fall back to when the file was last written.
    }
    return { size, newestMs: fs.fstatSync(fd).mtimeMs };
  } finally {
    fs.closeSync(fd);
  }
}

/** Opens (or creates) a spool directory for appending; throws only when the directory cannot be created or read. */
export function createSpoolWriter(options: SpoolWriterOptions): SpoolWriter {
  const fs = options.fs ?? nodeFs;
  const { dir, replica, maxBytes, segmentBytes, retentionMs, clock } = options;
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  /** Newest record time of segments already looked at, by path (the open one's is kept as it is written). */
  const newest = new Map<string, number>();
  let total = 0;
  let lastRetention = clock();
  let seq = 0;
  let current: { path: string; bytes: number } | undefined;
  let closed = false;

  /** Removes expired segments (never the open one) and recounts the directory's bytes. */
  const applyRetention = (): void => {
    lastRetention = clock();
    let bytes = 0;
    for (const path of segmentFiles(dir)) {
      try {
        const seen = lookAt(fs, path, newest.get(path));
        if (seen === undefined) continue;
        if ("skipped" in seen) {
          options.onSkippedFile?.(path, seen.skipped);
          continue;
        }
        if (path !== current?.path) {
          newest.set(path, seen.newestMs);
          if (lastRetention - seen.newestMs > retentionMs) {
            fs.unlinkSync(path);
            newest.delete(path);
            continue;
          }
        }
        bytes += seen.size;
      } catch {
        // Removed by another process meanwhile, or unreadable: nothing to count.
      }
    }
    total = Math.max(bytes, current?.bytes ?? 0);
  };

  // Continue after this replica's segments: the next sequence number, in a new segment.
  for (const name of fs.readdirSync(dir)) {
    const m = SEGMENT_PATTERN.exec(name);
    if (m && m[1] === replica) seq = Math.max(seq, Number(m[3]) + 1);
  }
  applyRetention();

  const rotate = (): void => {
    current = undefined;
    applyRetention();
    current = { path: join(dir, segmentName(replica, clock(), seq++)), bytes: 0 };
  };

  return {
    append(record: SpoolRecord): SpoolAppendResult {
      try {
        if (closed) return { written: false, reason: "io_error" };
        const line = Buffer.from(`${JSON.stringify(record)}\n`, "utf8");
        if (line.length > segmentBytes) return { written: false, reason: "too_large" };
        if (total + line.length > maxBytes && clock() - lastRetention >= CAP_RECHECK_MS) applyRetention();
        if (total + line.length > maxBytes) return { written: false, reason: "bytes" };
        if (!current || current.bytes + line.length > segmentBytes) rotate();
        const seg = current as { path: string; bytes: number };
        // One append of the whole line, by an O_NOFOLLOW descriptor opened for it: never through a
        // link planted under the segment's name. `review delete` blanks lines in place and never
        // replaces a segment, so nothing appended here can land in a file that is about to go.
        appendSpoolLine(seg.path, line, { fs, mode: 0o600 });
        seg.bytes += line.length;
        total += line.length;
        const ms = Date.parse(record.time);
        newest.set(seg.path, Number.isFinite(ms) ? ms : clock());
        return { written: true };
      } catch (error) {
        // A failed open or write: the next record tries a fresh segment.
        if (error instanceof SpoolFileRefused) options.onSkippedFile?.(error.path, error.reason);
        current = undefined;
        return { written: false, reason: "io_error" };
      }
    },
    close(): void {
      closed = true;
      current = undefined;
    },
  };
}
