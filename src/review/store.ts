import { ConfigError } from "../config/errors.ts";
import type { LabelRecord, SpoolRecord } from "./record.ts";
import type { SkippedSpoolFile } from "./spool-files.ts";
import { appendLabel, currentLabels, labelsPath, readLabelRecords, readSpools } from "./spool-files.ts";
import { describeSkip } from "./spool-fs.ts";

/**
 * Where a review reads its answers and labels and writes its labels: the port the review session,
 * `review export` and evidence's review section work through. Two stores fill it: spool directories
 * on this machine (`createDirectoryStore`, below) and a deployment's collectors over their
 * authenticated API (the CLI's remote store). The session's logic is written once, over this port.
 *
 * The conflict rule, the same for both: a label is written only when the labels in force of its
 * answer by other reviewers are all among those the writer says it has seen (`seen`: reviewer and
 * time of each); else nothing is written and the writer is told the others (`conflict`), so two
 * reviewers never label one answer without knowing of each other. An undo is never refused.
 */

/** A label in force the writer has seen: whose, and when it was written. */
export interface SeenLabel {
  readonly reviewer: string;
  readonly time: string;
}

/** A replica whose answers and labels could not be read (a remote store): figures cover the others. */
export interface MissingReplica {
  /** The replica's name, when known. */
  readonly replica?: string | undefined;
  /** Its address, when known. */
  readonly peer?: string | undefined;
  /** Why it did not answer: timeout, too_large, unauthorized, unreachable, bad_reply, dns. */
  readonly reason: string;
}

/** What a store read: the answers (spool order, each id once), every label record, what it could not read, and where from. */
export interface ReviewSnapshot {
  readonly records: readonly SpoolRecord[];
  /** Every label record of every labels file read, each file in the order written. */
  readonly labels: readonly LabelRecord[];
  readonly unreadable: { readonly spoolLines: number; readonly labelLines: number };
  /** Spool files passed over (links, FIFOs, devices, over the read cap), the labels file included. */
  readonly skippedFiles: readonly SkippedSpoolFile[];
  /** Where the answers came from and where labels go, in words (for reports). */
  readonly source: { readonly answers: string; readonly labels: string };
  /** Replicas that did not answer (never silent): empty for directories. */
  readonly missing: readonly MissingReplica[];
}

/** What writing a label did: written (by the replica that holds the answer, when remote), or refused for labels of others the writer had not seen. */
export type LabelWriteOutcome = { readonly written: LabelRecord; readonly replica?: string | undefined } | { readonly conflict: readonly LabelRecord[] };

export interface ReviewStore {
  /** Reads the answers and the labels. */
  load(): Promise<ReviewSnapshot>;
  /** Writes one label record under the conflict rule (see the file's comment). */
  write(record: LabelRecord, seen: readonly SeenLabel[]): Promise<LabelWriteOutcome>;
}

/** The labels in force of answer `id` by reviewers other than `reviewer` that are not in `seen`: what a write of `reviewer`'s label is refused for. */
export function unseenLabels(labels: readonly LabelRecord[], id: string, reviewer: string, seen: readonly SeenLabel[]): LabelRecord[] {
  const known = new Set(seen.map((s) => `${s.reviewer}\u0000${s.time}`));
  return [...currentLabels(labels.filter((l) => l.id === id)).values()].filter((l) => l.reviewer !== reviewer && !known.has(`${l.reviewer}\u0000${l.time}`));
}

/** Where a directory store reads and writes. */
export interface DirectoryStoreOptions {
  /** Spool directories (replicas), merged. */
  readonly dirs: readonly string[];
  /** One labels file read and written; default: labels.jsonl of every directory read (first to last), written in the first. */
  readonly labelsFile?: string | undefined;
  /**
   * A labels file that is not a regular file or is over the read cap: a ConfigError naming --labels
   * (`refuse`, the default: a session appends to it), or passed over and reported in `skippedFiles`
   * (`report`: readers that only read).
   */
  readonly unreadableLabels?: "refuse" | "report" | undefined;
}

/** The labels files a directory store reads: the one given, else labels.jsonl of each directory (each once). */
function labelsFilesOf(options: DirectoryStoreOptions): string[] {
  if (options.labelsFile !== undefined) return [options.labelsFile];
  return [...new Set(options.dirs.map(labelsPath))];
}

/**
 * Spool directories on this machine as a store. A labels file that is not a regular file (a link, a
 * FIFO) or is over the read cap is a ConfigError naming --labels: labels are read from and appended
 * to a regular file only.
 */
export function createDirectoryStore(options: DirectoryStoreOptions): ReviewStore {
  const files = labelsFilesOf(options);
  const target = files[0];
  if (target === undefined) throw new ConfigError("--dir", undefined, "give at least one spool directory");
  const readLabels = (): { labels: LabelRecord[]; unreadable: number; skipped: SkippedSpoolFile[] } => {
    const labels: LabelRecord[] = [];
    const skipped: SkippedSpoolFile[] = [];
    let unreadable = 0;
    for (const file of files) {
      const read = readLabelRecords(file);
      if (read.skipped !== undefined && options.unreadableLabels !== "report") throw new ConfigError("--labels", file, `it is ${describeSkip(read.skipped)}: labels are read from and appended to a regular file only`);
      if (read.skipped !== undefined) skipped.push({ path: file, reason: read.skipped });
      labels.push(...read.labels);
      unreadable += read.unreadable;
    }
    return { labels, unreadable, skipped };
  };
  return {
    load() {
      const labels = readLabels();
      const spools = readSpools(options.dirs);
      return Promise.resolve({
        records: spools.records,
        labels: labels.labels,
        unreadable: { spoolLines: spools.unreadable, labelLines: labels.unreadable },
        skippedFiles: [...spools.skipped, ...labels.skipped],
        source: { answers: options.dirs.join(", "), labels: files.join(", ") },
        missing: [],
      });
    },
    write(record, seen) {
      if (record.undo !== true) {
        const others = unseenLabels(readLabels().labels, record.id, record.reviewer, seen);
        if (others.length > 0) return Promise.resolve({ conflict: others });
      }
      appendLabel(target, record);
      return Promise.resolve({ written: record });
    },
  };
}
