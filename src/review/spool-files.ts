import { appendFileSync, existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { LabelRecord, SpoolRecord } from "./record.ts";
import { REVIEW_RECORD_VERSION } from "./record.ts";

/**
 * Where a spool's files are and how they are read: segments `segment-<replica>-<start ms>-<seq>.jsonl`
 * in the spool directory (appended one whole line a record, so a crash leaves at most a partial last
 * line, which readers skip), and the reviewers' labels in `labels.jsonl` beside them.
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

/** Lines of a JSONL file parsed as objects; a line that is not one (a partial last write) is counted, not thrown. */
function jsonLines(path: string): { values: unknown[]; bad: number } {
  const values: unknown[] = [];
  let bad = 0;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    try {
      values.push(JSON.parse(line) as unknown);
    } catch {
      bad++;
    }
  }
  return { values, bad };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function isSpoolRecord(v: unknown): v is SpoolRecord {
  return isObject(v) && v.v === REVIEW_RECORD_VERSION && typeof v.id === "string" && (v.kind === "flagged" || v.kind === "grounded_sample") && typeof v.answer === "string" && Array.isArray(v.documents) && Array.isArray(v.claims);
}

function isLabelRecord(v: unknown): v is LabelRecord {
  return isObject(v) && v.v === REVIEW_RECORD_VERSION && typeof v.id === "string" && typeof v.reviewer === "string" && (v.kind === "flagged" || v.kind === "grounded_sample") && (v.undo === true || v.label === 0 || v.label === 1);
}

/** What reading spools found: the records (each id once, the first seen), and the lines it could not read. */
export interface SpoolRead {
  readonly records: SpoolRecord[];
  /** Lines that were not a record of this version (a partial last write after a crash, another version). */
  readonly unreadable: number;
}

/** Reads every segment of every spool directory (replicas merge), oldest first, each answer once. */
export function readSpools(dirs: readonly string[]): SpoolRead {
  const seen = new Set<string>();
  const records: SpoolRecord[] = [];
  let unreadable = 0;
  for (const dir of dirs) {
    for (const file of segmentFiles(dir)) {
      const { values, bad } = jsonLines(file);
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
  return { records, unreadable };
}

/** Every label record of a labels file, in the order written (an absent file has none). */
export function readLabelRecords(path: string): { labels: LabelRecord[]; unreadable: number } {
  if (!existsSync(path)) return { labels: [], unreadable: 0 };
  const { values, bad } = jsonLines(path);
  const labels = values.filter(isLabelRecord);
  return { labels, unreadable: bad + values.length - labels.length };
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

/** Appends one label record as one whole line (one write call). */
export function appendLabel(path: string, label: LabelRecord): void {
  appendFileSync(path, `${JSON.stringify(label)}\n`);
}
