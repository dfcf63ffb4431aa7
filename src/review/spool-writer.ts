import * as nodeFs from "node:fs";
import { join } from "node:path";
import type { SpoolRecord } from "./record.ts";
import { SEGMENT_PATTERN, segmentFiles, segmentName } from "./spool-files.ts";

/**
 * The review spool's writer: append-only JSONL segments in one directory, one whole line per record
 * written with one write call (a SIGKILL loses at most the line being written, which readers skip),
 * a new segment at `segmentBytes`, a byte cap over every segment in the directory (at the cap it stops
 * writing and says so; it never deletes unread data to make room), and retention by age (a segment
 * whose newest record is older than `retentionMs` is removed, on open and at each rotation). A writer
 * that opens a directory holding segments continues after them in a new segment with the next
 * sequence number, so a restart never appends to a possibly torn segment and never duplicates.
 */

/** The file operations the writer uses (node:fs by default; tests inject failures). */
export type SpoolFs = Pick<typeof nodeFs, "mkdirSync" | "readdirSync" | "statSync" | "unlinkSync" | "readFileSync" | "appendFileSync">;

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

/** A segment's newest record time (ms): the `time` of its last whole line, else its modification time. */
function newestRecordMs(fs: SpoolFs, path: string): number {
  try {
    const text = fs.readFileSync(path, "utf8");
    const end = text.lastIndexOf("\n");
    if (end > 0) {
      const line = text.slice(text.lastIndexOf("\n", end - 1) + 1, end);
      const time = (JSON.parse(line) as { time?: unknown }).time;
      const ms = typeof time === "string" ? Date.parse(time) : NaN;
      if (Number.isFinite(ms)) return ms;
    }
  } catch {
    // A torn or unreadable last line: fall back to when the file was last written.
  }
  return fs.statSync(path).mtimeMs;
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
        if (path !== current?.path) {
          let ms = newest.get(path);
          if (ms === undefined) {
            ms = newestRecordMs(fs, path);
            newest.set(path, ms);
          }
          if (lastRetention - ms > retentionMs) {
            fs.unlinkSync(path);
            newest.delete(path);
            continue;
          }
        }
        bytes += fs.statSync(path).size;
      } catch {
        // Removed by another process meanwhile: nothing to count.
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
        // One append of the whole line, by path: a segment that `review delete` rewrote (renamed over) is written from then on.
        fs.appendFileSync(seg.path, line, { mode: 0o600 });
        seg.bytes += line.length;
        total += line.length;
        const ms = Date.parse(record.time);
        newest.set(seg.path, Number.isFinite(ms) ? ms : clock());
        return { written: true };
      } catch {
        // A failed open or write: the next record tries a fresh segment.
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
