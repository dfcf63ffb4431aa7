import * as nodeFs from "node:fs";
import { basename } from "node:path";
import { SEGMENT_PATTERN, segmentFiles } from "./spool-files.ts";
import type { SpoolFileOps, SpoolFileSkip } from "./spool-fs.ts";
import { openSpoolFile } from "./spool-fs.ts";

/**
 * Reads one replica's spool segments from the newest line back: segments newest first, each read
 * from its end in chunks, so a reader that wants only the newest records (the flagged ring filled
 * back at start) stops after them and never reads the rest of the spool. The last line of a
 * segment that no newline ends (a write cut by a crash) is delivered as `torn`; a line longer than
 * `maxLineBytes` as unreadable (undefined), without holding it. Files are opened as every spool
 * reader opens them (spool-fs.ts: never through a link, never a FIFO).
 */

/** One line as read from the end: its text (undefined when over the line cap), or a torn last line of a segment. */
export type TailLine = { readonly text: string | undefined } | { readonly torn: true };

export interface ReadNewestOptions {
  /** Stop once this many bytes were read (at the end of the chunk that passes it). */
  readonly budgetBytes: number;
  /** The longest line delivered whole; a longer one is delivered as unreadable. */
  readonly maxLineBytes: number;
  /** File operations (default node:fs). */
  readonly fs?: SpoolFileOps;
  /** Told of each segment-named file passed over (not a regular file, or over the read cap). */
  readonly onSkippedFile?: (path: string, reason: SpoolFileSkip) => void;
}

/** What a read from the newest line back did: bytes read, and whether it stopped before the oldest line (budget or the caller). */
export interface ReadNewestResult {
  readonly bytesRead: number;
  readonly stopped: boolean;
}

/** Bytes read per read call. */
const CHUNK_BYTES = 256 * 1024;

/** The segments of `dir` written by `replica`, newest first. */
export function replicaSegmentsNewestFirst(dir: string, replica: string): string[] {
  return segmentFiles(dir)
    .filter((path) => SEGMENT_PATTERN.exec(basename(path))?.[1] === replica)
    .reverse();
}

/**
 * Calls `onLine` for each line of `replica`'s segments in `dir`, newest first, until it returns
 * "stop", the budget is spent, or the oldest line was read. Blank lines (removed by review delete)
 * are skipped. Linear in the bytes read; at most one line (up to maxLineBytes) and one chunk held.
 */
export function readSpoolNewestFirst(dir: string, replica: string, onLine: (line: TailLine) => "stop" | void, options: ReadNewestOptions): ReadNewestResult {
  const fs = options.fs ?? nodeFs;
  let bytesRead = 0;
  for (const path of replicaSegmentsNewestFirst(dir, replica)) {
    if (bytesRead >= options.budgetBytes) return { bytesRead, stopped: true };
    let opened;
    try {
      opened = openSpoolFile(path, "read", { fs });
    } catch {
      // Unreadable (permissions) or gone meanwhile: nothing to fill back from it.
      continue;
    }
    if ("absent" in opened) continue;
    if ("skipped" in opened) {
      options.onSkippedFile?.(path, opened.skipped);
      continue;
    }
    const { fd, size } = opened.file;
    try {
      const read = readFileBackwards(fs, fd, size, onLine, options.maxLineBytes, options.budgetBytes - bytesRead);
      bytesRead += read.bytesRead;
      if (read.stopped) return { bytesRead, stopped: true };
    } finally {
      fs.closeSync(fd);
    }
  }
  return { bytesRead, stopped: false };
}

/** One file's lines from its end; stops when `onLine` says so or `budget` bytes were read. */
function readFileBackwards(fs: SpoolFileOps, fd: number, size: number, onLine: (line: TailLine) => "stop" | void, maxLine: number, budget: number): ReadNewestResult {
  const buf = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK_BYTES, size)));
  /** Pieces of the line being assembled (it starts in an earlier chunk), in file order; none once it is too long. */
  let pieces: Buffer[] = [];
  let pieceBytes = 0;
  /** The first line met is the part after the file's last newline: torn when not empty. */
  let last = true;
  let pos = size;
  let bytesRead = 0;
  const deliver = (bytes: number, text: () => string): "stop" | void => {
    if (last) {
      last = false;
      return bytes > 0 ? onLine({ torn: true }) : undefined;
    }
    if (bytes > maxLine) return onLine({ text: undefined });
    const t = text();
    return t.trim() === "" ? undefined : onLine({ text: t });
  };
  while (pos > 0) {
    const start = Math.max(0, pos - buf.length);
    const n = fs.readSync(fd, buf, 0, pos - start, start);
    if (n <= 0) break;
    bytesRead += n;
    let end = n;
    while (end > 0) {
      const nl = buf.lastIndexOf(10, end - 1);
      if (nl === -1) break;
      const tail = buf.subarray(nl + 1, end);
      const bytes = tail.length + pieceBytes;
      const held = pieces;
      pieces = [];
      pieceBytes = 0;
      if (deliver(bytes, () => Buffer.concat([tail, ...held]).toString("utf8")) === "stop") return { bytesRead, stopped: true };
      end = nl;
    }
    // The start of this chunk belongs to a line that began earlier: carry it (unless already too long).
    pieceBytes += end;
    pieces = pieceBytes > maxLine ? [] : [Buffer.from(buf.subarray(0, end)), ...pieces];
    pos = start;
    if (bytesRead >= budget && pos > 0) return { bytesRead, stopped: true };
  }
  if (pieceBytes > 0 || last) {
    const held = pieces;
    if (deliver(pieceBytes, () => Buffer.concat(held).toString("utf8")) === "stop") return { bytesRead, stopped: true };
  }
  return { bytesRead, stopped: false };
}
