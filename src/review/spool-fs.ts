import * as nodeFs from "node:fs";
import type { REVIEW_FILE_SKIP_REASONS } from "../telemetry/semconv.ts";
import { GroundwatchError } from "../errors/groundwatch-error.ts";

/**
 * How every reader and writer of a review spool opens its files: by a descriptor opened without
 * following a link (O_NOFOLLOW) and without blocking on a FIFO (O_NONBLOCK), kept only when fstat
 * says it is a regular file, and read in bounded chunks up to a cap. Anyone who can write the spool
 * directory (reviewers, every replica on shared storage) can plant a link, a FIFO or a device under
 * a spool name; such a file is passed over with a reason, never followed, waited on or read
 * without end. Appends go through an O_NOFOLLOW descriptor too, so a label or record is never
 * written through a link to a file outside the spool.
 */

/** The file operations used (node:fs by default; tests count or fail them). */
export type SpoolFileOps = Pick<typeof nodeFs, "openSync" | "fstatSync" | "readSync" | "writeSync" | "closeSync">;

/** Why a spool file was passed over: it is not a regular file (a link, FIFO, socket, device or directory), or it is over the read cap. */
export type SpoolFileSkip = (typeof REVIEW_FILE_SKIP_REASONS)[number];

/** The most bytes read from one spool file (a segment or a labels file); a larger file is passed over (`too_large`). */
export const SPOOL_FILE_MAX_BYTES = 2 ** 30;

/** The longest line read, bytes (the largest segment, so the longest record); a longer one is delivered as unreadable. */
export const SPOOL_LINE_MAX_BYTES = 2 ** 28;

/** Bytes read per read call. */
const CHUNK_BYTES = 1024 * 1024;

const C = nodeFs.constants;
const NOFOLLOW = C.O_NOFOLLOW ?? 0;
const NONBLOCK = C.O_NONBLOCK ?? 0;

/** An open regular spool file: its descriptor and what fstat said when it was opened. */
export interface SpoolFile {
  readonly fd: number;
  readonly size: number;
  readonly dev: number;
  readonly ino: number;
}

/** What opening a spool file found: the file, nothing under the name, or something passed over (and why). */
export type SpoolOpen = { readonly file: SpoolFile } | { readonly absent: true } | { readonly skipped: SpoolFileSkip };

/** Thrown by `appendSpoolLine` when the target is not a regular file: nothing was written. */
export class SpoolFileRefused extends GroundwatchError {
  override readonly name = "SpoolFileRefused";
  override readonly code = "spool_file_refused";
  constructor(
    readonly path: string,
    readonly reason: SpoolFileSkip,
  ) {
    super(`${path} is ${describeSkip(reason)}: nothing was written to it`);
  }
}

/** A skip reason in words, for stderr and diag. */
export function describeSkip(reason: SpoolFileSkip): string {
  return reason === "not_regular" ? "not a regular file (a link, FIFO, socket, device or directory)" : `over ${SPOOL_FILE_MAX_BYTES} bytes`;
}

const codeOf = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code;
/** Errors opening a name that is a link (O_NOFOLLOW) or a FIFO/socket without a peer (O_NONBLOCK). */
const NOT_REGULAR_CODES = new Set(["ELOOP", "EMLINK", "ENXIO", "EISDIR", "EOPNOTSUPP"]);

/**
 * Opens a spool file for reading (`"read"`) or for changing bytes in place (`"update"`, review
 * delete): never through a link, never waiting on a FIFO; a file that is not regular or is over
 * `maxBytes` (default SPOOL_FILE_MAX_BYTES) is closed again and reported skipped. Other errors
 * (permissions) are thrown. The caller closes `file.fd`.
 */
export function openSpoolFile(path: string, mode: "read" | "update", options: { readonly fs?: SpoolFileOps; readonly maxBytes?: number } = {}): SpoolOpen {
  const fs = options.fs ?? nodeFs;
  let fd: number;
  try {
    fd = fs.openSync(path, (mode === "read" ? C.O_RDONLY : C.O_RDWR) | NOFOLLOW | NONBLOCK);
  } catch (error) {
    const code = codeOf(error);
    if (code === "ENOENT") return { absent: true };
    if (code !== undefined && NOT_REGULAR_CODES.has(code)) return { skipped: "not_regular" };
    throw error;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) {
      fs.closeSync(fd);
      return { skipped: "not_regular" };
    }
    if (st.size > (options.maxBytes ?? SPOOL_FILE_MAX_BYTES)) {
      fs.closeSync(fd);
      return { skipped: "too_large" };
    }
    return { file: { fd, size: st.size, dev: st.dev, ino: st.ino } };
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

/** One line as read: its text (undefined when longer than SPOOL_LINE_MAX_BYTES), its byte range without the newline, and whether a newline ended it. */
export interface SpoolLine {
  readonly text: string | undefined;
  readonly start: number;
  readonly end: number;
  readonly terminated: boolean;
}

/** How far `readSpoolLines` reads: an unterminated last line delivered too (`tail`), and a budget after which it stops at the next line's end. */
export interface ReadLinesOptions {
  /** Deliver an unterminated last line (a crash's leftover) too. */
  readonly tail?: boolean;
  /** Stop once this many bytes were read and a line ended in them (default: read to `to`). */
  readonly budget?: number;
}

/**
 * Reads the lines of bytes [from, to) of an open file in chunks, calling `onLine` for each line a
 * newline ends (and, with `tail`, for an unterminated last one); `onLine` returning "stop" ends the
 * read after that line. Stops early where the file ends (it shrank). Returns the offset after the
 * last line delivered that a newline ended: where the next read of the file should start. Linear
 * in the bytes read; at most one line is held at a time.
 */
export function readSpoolLines(fs: SpoolFileOps, fd: number, from: number, to: number, onLine: (line: SpoolLine) => "stop" | void, options: ReadLinesOptions = {}): number {
  const budget = options.budget ?? Infinity;
  const buf = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK_BYTES, budget, to - from)));
  /** The start of the current line and the pieces of it carried over from earlier chunks (none once it is too long). */
  let lineStart = from;
  let pieces: Buffer[] = [];
  let pieceBytes = 0;
  let tooLong = false;
  let pos = from;
  while (pos < to) {
    const n = fs.readSync(fd, buf, 0, Math.min(buf.length, to - pos), pos);
    if (n === 0) break;
    let i = 0;
    while (i < n) {
      const nl = buf.indexOf(10, i);
      if (nl === -1 || nl >= n) break;
      const end = pos + nl;
      const start = lineStart;
      const long = tooLong || end - start > SPOOL_LINE_MAX_BYTES;
      const text = long ? undefined : pieces.length === 0 ? buf.toString("utf8", i, nl) : Buffer.concat([...pieces, buf.subarray(i, nl)]).toString("utf8");
      pieces = [];
      pieceBytes = 0;
      tooLong = false;
      lineStart = end + 1;
      i = nl + 1;
      if (onLine({ text, start, end, terminated: true }) === "stop") return lineStart;
    }
    if (i < n) {
      pieceBytes += n - i;
      if (tooLong || pieceBytes > SPOOL_LINE_MAX_BYTES) {
        tooLong = true;
        pieces = [];
      } else pieces.push(Buffer.from(buf.subarray(i, n)));
    }
    pos += n;
    if (pos - from >= budget && lineStart > from) return lineStart;
  }
  if (options.tail && pos > lineStart) onLine({ text: tooLong ? undefined : Buffer.concat(pieces).toString("utf8"), start: lineStart, end: pos, terminated: false });
  return lineStart;
}

/**
 * Every line of a spool file (an unterminated last one included, as a crash leaves it), or why it
 * was not read. Opens, reads and closes.
 */
export function readSpoolFile(path: string, onLine: (line: SpoolLine) => void, options: { readonly fs?: SpoolFileOps; readonly maxBytes?: number } = {}): { readonly read: true } | { readonly absent: true } | { readonly skipped: SpoolFileSkip } {
  const fs = options.fs ?? nodeFs;
  const opened = openSpoolFile(path, "read", options);
  if (!("file" in opened)) return opened;
  try {
    readSpoolLines(fs, opened.file.fd, 0, opened.file.size, onLine, { tail: true });
  } finally {
    fs.closeSync(opened.file.fd);
  }
  return { read: true };
}

/**
 * The last line a newline ends in a file of `size` bytes (its text, undefined when there is none),
 * read backwards in chunks: at most the last line and what follows it.
 */
export function lastSpoolLine(fs: SpoolFileOps, fd: number, size: number): string | undefined {
  const end = lastNewlineBefore(fs, fd, size);
  if (end === undefined) return undefined;
  const start = (lastNewlineBefore(fs, fd, end) ?? -1) + 1;
  if (end - start > SPOOL_LINE_MAX_BYTES) return undefined;
  const buf = Buffer.allocUnsafe(end - start);
  let got = 0;
  while (got < buf.length) {
    const n = fs.readSync(fd, buf, got, buf.length - got, start + got);
    if (n === 0) return undefined;
    got += n;
  }
  return buf.toString("utf8");
}

/** The offset of the last newline before `before`, or undefined when none. */
function lastNewlineBefore(fs: SpoolFileOps, fd: number, before: number): number | undefined {
  const buf = Buffer.allocUnsafe(Math.max(1, Math.min(64 * 1024, before)));
  let end = before;
  while (end > 0) {
    const start = Math.max(0, end - buf.length);
    const n = fs.readSync(fd, buf, 0, end - start, start);
    if (n === 0) return undefined;
    const at = buf.subarray(0, n).lastIndexOf(10);
    if (at !== -1) return start + at;
    end = start;
  }
  return undefined;
}

/**
 * Appends `data` (one or more whole lines) with one write through an O_APPEND descriptor that does
 * not follow a link and does not wait on a FIFO, creating the file with `mode` when absent. Throws
 * SpoolFileRefused (nothing written) when the name is not a regular file, and the system's error
 * when the write fails.
 */
export function appendSpoolLine(path: string, data: string | Buffer, options: { readonly fs?: SpoolFileOps; readonly mode?: number } = {}): void {
  const fs = options.fs ?? nodeFs;
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  let fd: number;
  try {
    fd = fs.openSync(path, C.O_WRONLY | C.O_APPEND | C.O_CREAT | NOFOLLOW | NONBLOCK, options.mode ?? 0o666);
  } catch (error) {
    const code = codeOf(error);
    if (code !== undefined && NOT_REGULAR_CODES.has(code)) throw new SpoolFileRefused(path, "not_regular");
    throw error;
  }
  try {
    if (!fs.fstatSync(fd).isFile()) throw new SpoolFileRefused(path, "not_regular");
    let written = 0;
    while (written < bytes.length) written += fs.writeSync(fd, bytes, written, bytes.length - written);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Overwrites byte ranges of an open file with spaces, in place: the file keeps its inode and its
 * size, so what others append meanwhile (at its end, O_APPEND) is untouched. A line overwritten
 * whole reads as blank, which every reader skips.
 */
export function blankSpoolRanges(fs: SpoolFileOps, fd: number, ranges: ReadonlyArray<{ readonly start: number; readonly end: number }>): void {
  const longest = ranges.reduce((m, r) => Math.max(m, r.end - r.start), 0);
  const spaces = Buffer.alloc(Math.max(1, Math.min(CHUNK_BYTES, longest)), 0x20);
  for (const r of ranges) {
    let at = r.start;
    while (at < r.end) at += fs.writeSync(fd, spaces, 0, Math.min(spaces.length, r.end - at), at);
  }
}
