import * as nodeFs from "node:fs";
import { basename } from "node:path";
import type { LabelRecord, SpoolRecord } from "./record.ts";
import { SEGMENT_PATTERN, isSpoolRecord, parseLabelLine, segmentFiles } from "./spool-files.ts";
import { openSpoolFile, readSpoolLines } from "./spool-fs.ts";

/**
 * One spool's records and one labels file's label records read a page at a time, from where the last
 * page ended: a byte offset in a segment (records) or in the labels file. Each page reads only its
 * own bytes (at most about `maxBytes` of lines, `limit` items), so reading a whole spool page by page
 * costs one read of it, and a spool that grows meanwhile is read on to its new end. Segments are
 * read in their order (segmentFiles); one deleted meanwhile (retention) is passed, the page going on
 * at the next. `review delete` blanks lines in place, so offsets stay valid. Files are opened as every
 * spool reader opens them (spool-fs.ts): never through a link, never waiting on a FIFO.
 */

/** Where a page ended: the segment's file name (records) and the byte offset after the last line read. */
export interface SpoolPosition {
  readonly seg?: string | undefined;
  readonly off: number;
}

/** A page: its items, where the next one starts, whether it stopped at its bounds (more may follow), and the lines in it that were not items. */
export interface SpoolPage<T> {
  readonly items: T[];
  readonly position: SpoolPosition;
  readonly more: boolean;
  readonly unreadable: number;
}

/** A segment name's order key (start ms, sequence), or undefined when the name is not a segment's. */
function segmentKey(name: string): readonly [number, number] | undefined {
  const m = SEGMENT_PATTERN.exec(name);
  return m ? [Number(m[2]), Number(m[3])] : undefined;
}

/** Whether `a` sorts before `b` as segmentFiles sorts them. */
function before(a: string, b: string): boolean {
  const [ka, kb] = [segmentKey(a), segmentKey(b)];
  if (!ka || !kb) return a < b;
  return ka[0] - kb[0] < 0 || (ka[0] === kb[0] && (ka[1] - kb[1] < 0 || (ka[1] === kb[1] && a.localeCompare(b) < 0)));
}

/** Whether a position names a segment (its file name as segments are named) and a byte offset. */
export function isSpoolPosition(p: SpoolPosition): boolean {
  return Number.isSafeInteger(p.off) && p.off >= 0 && (p.seg === undefined || SEGMENT_PATTERN.test(p.seg));
}

/** Reads lines of `path` from `from`, handing each terminated line's text to `take` until it says stop; returns where reading ended and the file's size (undefined: not read). */
function readFrom(path: string, from: number, take: (text: string | undefined, bytes: number, start: number) => "stop" | void): { end: number; size: number } | undefined {
  const opened = openSpoolFile(path, "read");
  if (!("file" in opened)) return undefined;
  try {
    const start = Math.min(from, opened.file.size);
    const end = readSpoolLines(nodeFs, opened.file.fd, start, opened.file.size, (line) => take(line.text, line.end - line.start + 1, line.start));
    return { end, size: opened.file.size };
  } finally {
    nodeFs.closeSync(opened.file.fd);
  }
}

/** The next page of records of the spool in `dir` after `position` (see the file's comment). */
export function readRecordsPage(dir: string, position: SpoolPosition | undefined, limit: number, maxBytes: number): SpoolPage<SpoolRecord> {
  const files = segmentFiles(dir);
  const names = files.map((f) => basename(f));
  let i = position?.seg === undefined ? 0 : names.findIndex((n) => !before(n, position.seg as string));
  if (i < 0) i = files.length;
  let off = position?.seg !== undefined && names[i] === position.seg ? position.off : 0;
  const items: SpoolRecord[] = [];
  let bytes = 0;
  let unreadable = 0;
  let stopped = false;
  const take = (text: string | undefined, size: number): "stop" | void => {
    bytes += size;
    if (text !== undefined && text.trim() === "") return;
    let v: unknown;
    try {
      v = text === undefined ? undefined : (JSON.parse(text) as unknown);
    } catch {
      v = undefined;
    }
    if (isSpoolRecord(v)) items.push(v);
    else unreadable++;
    if (items.length >= limit || bytes >= maxBytes) {
      stopped = true;
      return "stop";
    }
  };
  while (i < files.length && !stopped) {
    const read = readFrom(files[i] as string, off, take);
    if (read === undefined || (!stopped && i < files.length - 1)) {
      // Passed over (not a regular file), or read to its end with a later segment after it (a torn last line there is counted).
      if (read !== undefined && read.end < read.size) unreadable++;
      i++;
      off = 0;
      continue;
    }
    off = read.end;
    if (!stopped) break;
  }
  const seg = names[Math.min(i, names.length - 1)];
  return { items, position: seg === undefined ? { off: 0 } : { seg, off: i >= names.length ? 0 : off }, more: stopped, unreadable };
}

/** The next page of label records of the labels file at `path` after `position`. */
export function readLabelsPage(path: string, position: SpoolPosition | undefined, limit: number, maxBytes: number): SpoolPage<LabelRecord> {
  const items: LabelRecord[] = [];
  let bytes = 0;
  let unreadable = 0;
  let stopped = false;
  const read = readFrom(path, position?.off ?? 0, (text, size) => {
    bytes += size;
    const line = parseLabelLine(text);
    if (line === "unreadable") unreadable++;
    else if (typeof line === "object" && "label" in line) items.push(line.label);
    if (items.length >= limit || bytes >= maxBytes) {
      stopped = true;
      return "stop";
    }
  });
  return { items, position: { off: read?.end ?? position?.off ?? 0 }, more: stopped, unreadable };
}

/** Which answers a spool holds, kept up to date by reading only what each segment gained since the last look. */
export interface SpoolIndex {
  /** Whether the spool holds an answer with this id (segments read to their current end first). */
  holds(id: string): boolean;
}

/** The id of the record on a spool line, or undefined (blank, erased, not a record). */
function recordIdOf(text: string | undefined): string | undefined {
  try {
    const v = text === undefined || text.trim() === "" ? undefined : (JSON.parse(text) as unknown);
    return isSpoolRecord(v) ? v.id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An index of the spool in `dir` (see SpoolIndex); a segment deleted (retention) takes its ids with
 * it. Each id keeps where its lines start, and a hit is checked by reading that line again: an answer
 * `review delete` blanked in place is not held any more (and leaves the index).
 */
export function createSpoolIndex(dir: string): SpoolIndex {
  const segments = new Map<string, { file: string; off: number; ids: Map<string, number[]> }>();
  const refresh = (): void => {
    const files = segmentFiles(dir);
    const live = new Set(files.map((f) => basename(f)));
    for (const name of segments.keys()) if (!live.has(name)) segments.delete(name);
    for (const file of files) {
      const name = basename(file);
      const seg = segments.get(name) ?? { file, off: 0, ids: new Map<string, number[]>() };
      segments.set(name, seg);
      const read = readFrom(file, seg.off, (text, _bytes, start) => {
        const id = recordIdOf(text);
        if (id !== undefined) seg.ids.set(id, [...(seg.ids.get(id) ?? []), start]);
      });
      if (read) seg.off = read.end;
    }
  };
  /** Whether the line at `start` of `file` is still the record `id` (one line read). */
  const stillThere = (file: string, start: number, id: string): boolean => {
    let found = false;
    readFrom(file, start, (text) => {
      found = recordIdOf(text) === id;
      return "stop";
    });
    return found;
  };
  return {
    holds(id) {
      refresh();
      for (const seg of segments.values()) {
        const starts = seg.ids.get(id);
        if (starts === undefined) continue;
        const kept = starts.filter((start) => stillThere(seg.file, start, id));
        if (kept.length > 0) {
          seg.ids.set(id, kept);
          return true;
        }
        seg.ids.delete(id);
      }
      return false;
    },
  };
}
