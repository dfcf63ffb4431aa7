import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { ErasureRecord, LabelRecord, SpoolRecord } from "./record.ts";
import { REVIEW_RECORD_VERSION, SPAN_VERDICTS } from "./record.ts";
import type { SpoolFileSkip } from "./spool-fs.ts";
import { appendSpoolLine, readSpoolFile } from "./spool-fs.ts";
import { isPlainObject } from "../core/plain-object.ts";

/**
 * Where a spool's files are and how they are read: segments `segment-<replica>-<start ms>-<seq>.jsonl`
 * in the spool directory (appended one whole line a record, so a crash leaves at most a partial last
 * line, which readers skip), and the reviewers' labels in `labels.jsonl` beside them. Every file is
 * opened through spool-fs.ts: a name that is not a regular file is passed over and reported.
 */

/** A segment file's name: the replica that wrote it, when it started (ms) and its sequence number. */
export const SEGMENT_PATTERN = /^segment-([A-Za-z0-9_.-]{1,64})-(\d{13})-(\d{1,9})\.jsonl$/;

export function segmentName(replica: string, startMs: number, seq: number): string {
  return `segment-${replica}-${String(Math.floor(startMs)).padStart(13, "0")}-${seq}.jsonl`;
}

/** The labels file of a spool directory (default; `--labels FILE` may name another). */
export function labelsPath(dir: string): string {
  return join(dir, "labels.jsonl");
}

/** The segment files of a spool directory, oldest first (by start time, then sequence). */
export function segmentFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((name) => ({ name, m: SEGMENT_PATTERN.exec(name) }))
    .filter((e): e is { name: string; m: RegExpExecArray } => e.m !== null)
    .sort((a, b) => Number(a.m[2]) - Number(b.m[2]) || Number(a.m[3]) - Number(b.m[3]) || a.name.localeCompare(b.name))
    .map((e) => join(dir, e.name));
}

/** Lines of a JSONL file parsed as values; a line that is not JSON (a partial last write, a line over the cap) is counted, not thrown; blank lines (removed by review delete) are skipped. */
function jsonLines(path: string): { values: unknown[]; bad: number; skipped?: SpoolFileSkip } {
  const values: unknown[] = [];
  let bad = 0;
  const read = readSpoolFile(path, ({ text }) => {
    if (text === undefined) {
      bad++;
      return;
    }
    if (text.trim() === "") return;
    try {
      values.push(JSON.parse(text) as unknown);
    } catch {
      bad++;
    }
  });
  return { values, bad, ...("skipped" in read ? { skipped: read.skipped } : {}) };
}


/** Whether a parsed line is a spool record of this version in outline (its kind, id, answer, documents and claims present; the view checks the rest: viewable.ts). */
export function isSpoolRecord(v: unknown): v is SpoolRecord {
  return isPlainObject(v) && v.v === REVIEW_RECORD_VERSION && typeof v.id === "string" && (v.kind === "flagged" || v.kind === "grounded_sample") && typeof v.answer === "string" && Array.isArray(v.documents) && Array.isArray(v.claims);
}

const isClaimLabel = (c: unknown): boolean => isPlainObject(c) && Number.isSafeInteger(c.index) && (c.index as number) >= 0 && (c.label === 0 || c.label === 1);
const isSpanLabel = (c: unknown): boolean => isPlainObject(c) && Number.isSafeInteger(c.span) && (c.span as number) >= 0 && (SPAN_VERDICTS as readonly unknown[]).includes(c.verdict);

function isLabelRecord(v: unknown): v is LabelRecord {
  return (
    isPlainObject(v) &&
    v.v === REVIEW_RECORD_VERSION &&
    typeof v.id === "string" &&
    typeof v.reviewer === "string" &&
    typeof v.time === "string" &&
    (v.kind === "flagged" || v.kind === "grounded_sample") &&
    (v.undo === true || v.label === 0 || v.label === 1) &&
    (v.claims === undefined || (Array.isArray(v.claims) && v.claims.every(isClaimLabel))) &&
    (v.spans === undefined || (Array.isArray(v.spans) && v.spans.every(isSpanLabel)))
  );
}

function isErasureRecord(v: unknown): v is ErasureRecord {
  return isPlainObject(v) && v.v === REVIEW_RECORD_VERSION && Number.isSafeInteger(v.erased) && typeof v.time === "string";
}

/** What one line of a labels file is: a label, review delete's erasure mark, blank (skipped), or unreadable (not JSON, not a label of this version, a claim list that is not one). */
export type LabelLine = { readonly label: LabelRecord } | { readonly erasure: ErasureRecord } | "blank" | "unreadable";

/** Reads one line of a labels file (`undefined`: a line over the length cap). */
export function parseLabelLine(text: string | undefined): LabelLine {
  if (text === undefined) return "unreadable";
  if (text.trim() === "") return "blank";
  let v: unknown;
  try {
    v = JSON.parse(text) as unknown;
  } catch {
    return "unreadable";
  }
  if (isLabelRecord(v)) return { label: v };
  if (isErasureRecord(v)) return { erasure: v };
  return "unreadable";
}

/** A spool file a reader passed over, and why. */
export interface SkippedSpoolFile {
  readonly path: string;
  readonly reason: SpoolFileSkip;
}

/** What reading spools found: the records (each id once, the first seen), the lines it could not read, and the files it passed over. */
export interface SpoolRead {
  readonly records: SpoolRecord[];
  /** Lines that were not a record of this version (a partial last write after a crash, another version). */
  readonly unreadable: number;
  /** Segment-named files that were not read: not regular files (links, FIFOs, devices), or over the read cap. */
  readonly skipped: readonly SkippedSpoolFile[];
}

/** Reads every segment of every spool directory (replicas merge), oldest first, each answer once. */
export function readSpools(dirs: readonly string[]): SpoolRead {
  const seen = new Set<string>();
  const records: SpoolRecord[] = [];
  const skipped: SkippedSpoolFile[] = [];
  let unreadable = 0;
  for (const dir of dirs) {
    for (const file of segmentFiles(dir)) {
      const { values, bad, skipped: skip } = jsonLines(file);
      if (skip !== undefined) skipped.push({ path: file, reason: skip });
      unreadable += bad;
      for (const v of values) {
        if (!isSpoolRecord(v)) {
          unreadable++;
          continue;
        }
        if (seen.has(v.id)) continue;
        seen.add(v.id);
        records.push(v);
      }
    }
  }
  return { records, unreadable, skipped };
}

/** What reading a labels file found: its label records in the order written, the lines it could not read, and why the file was passed over (when it was). */
export interface LabelsRead {
  readonly labels: LabelRecord[];
  readonly unreadable: number;
  /** The labels file is not a regular file (a link, FIFO, device) or over the read cap: nothing was read from it. */
  readonly skipped?: SpoolFileSkip;
}

/** Every label record of a labels file, in the order written (an absent file has none; review delete's erasure marks are not labels and not unreadable). */
export function readLabelRecords(path: string): LabelsRead {
  const labels: LabelRecord[] = [];
  let unreadable = 0;
  const read = readSpoolFile(path, ({ text }) => {
    const line = parseLabelLine(text);
    if (line === "unreadable") unreadable++;
    else if (typeof line === "object" && "label" in line) labels.push(line.label);
  });
  return { labels, unreadable, ...("skipped" in read ? { skipped: read.skipped } : {}) };
}

/**
 * The labels in force: per (id, reviewer) the last label record, an undo taking back the one
 * before it. Keyed `${id}\u0000${reviewer}`.
 */
export function currentLabels(records: readonly LabelRecord[]): Map<string, LabelRecord> {
  const stacks = new Map<string, LabelRecord[]>();
  for (const r of records) {
    const key = `${r.id}\u0000${r.reviewer}`;
    const stack = stacks.get(key) ?? [];
    if (r.undo) stack.pop();
    else stack.push(r);
    stacks.set(key, stack);
  }
  const out = new Map<string, LabelRecord>();
  for (const [key, stack] of stacks) {
    const last = stack.at(-1);
    if (last) out.set(key, last);
  }
  return out;
}

/**
 * Appends one label record as one whole line (one write call), never through a link: throws
 * SpoolFileRefused (spool-fs.ts) when the labels file is not a regular file.
 */
export function appendLabel(path: string, label: LabelRecord | ErasureRecord): void {
  appendSpoolLine(path, `${JSON.stringify(label)}\n`);
}
