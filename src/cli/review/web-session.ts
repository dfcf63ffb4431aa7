import type { LabelRecord, ReviewLabelValue, SpoolRecord } from "../../review/record.ts";
import { reviewOrder } from "../../review/queue.ts";
import { REVIEW_RECORD_VERSION, agreementOf, labelFromAgreement } from "../../review/record.ts";
import type { SkippedSpoolFile } from "../../review/spool-files.ts";
import { appendLabel, currentLabels, readLabelRecords, readSpools } from "../../review/spool-files.ts";
import { describeSkip } from "../../review/spool-fs.ts";
import { ConfigError } from "../../config/errors.ts";
import { viewableRecord } from "./render.ts";

/**
 * One reviewer's pass over the spools for `groundwatch review --web`: which answer comes next (in
 * review order — flagged first, then the grounded sample, oldest first (review/queue.ts) — replicas merged, each answer once; those this reviewer labelled are
 * not shown again, those skipped in this session neither), and what a label, a skip and an undo
 * write. Labels are appended to the labels file through `appendLabel`; an undo appends an undo
 * record that takes back this session's last label, whose answer then comes next again.
 */

/** What a reviewer sends for one answer: a label (1 grounded, 0 not) or an agreement with groundwatch's verdict. */
export interface LabelInput {
  readonly id: string;
  readonly label?: ReviewLabelValue | undefined;
  readonly agreement?: "agree" | "disagree" | undefined;
  readonly claims?: ReadonlyArray<{ readonly index: number; readonly label: ReviewLabelValue }> | undefined;
}

/** Where the reviewer stands. */
export interface ReviewProgress {
  /** Answers in the spools. */
  readonly total: number;
  /** Of those, answers this reviewer has a label in force for. */
  readonly labelled: number;
  /** Skipped in this session (shown again next session). */
  readonly skipped: number;
  /** Neither labelled nor skipped. */
  readonly remaining: number;
}

export interface ReviewSessionOptions {
  /** Spool directories (replicas) to read, merged. */
  readonly dirs: readonly string[];
  /** The labels file labels are appended to and read from. */
  readonly labelsFile: string;
  /** The reviewer's name, written in every label. */
  readonly reviewer: string;
  /** The clock for label times (tests pass a fixed one). */
  readonly now?: (() => Date) | undefined;
}

/** A request the session refuses: the status to answer and why. */
export class ReviewRequestError extends Error {
  override readonly name = "ReviewRequestError";
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface ReviewSession {
  /** The next answer to review, or undefined when none is left. */
  next(): SpoolRecord | undefined;
  /** Writes a label for an answer in the spools; returns the record written. */
  label(input: LabelInput): LabelRecord;
  /** Puts an answer aside for this session. */
  skip(id: string): void;
  /** Takes back this session's last label (an undo record); returns the id, or undefined when there is none to take back. */
  undo(): string | undefined;
  progress(): ReviewProgress;
  /** Segment-named files of the spools that were passed over (links, FIFOs, devices, over the read cap). */
  readonly skippedFiles: readonly SkippedSpoolFile[];
}

/**
 * Reads the spools and the labels file once and keeps this reviewer's state. A labels file that is
 * not a regular file (a link, a FIFO) or is over the read cap is a ConfigError naming --labels:
 * labels are appended only to a regular file, never through a link.
 */
export function openReviewSession(options: ReviewSessionOptions): ReviewSession {
  const now = options.now ?? (() => new Date());
  const read = readLabelRecords(options.labelsFile);
  if (read.skipped !== undefined) throw new ConfigError("--labels", options.labelsFile, `it is ${describeSkip(read.skipped)}: labels are read from and appended to a regular file only`);
  // The terminal's order: flagged first, then the grounded sample, oldest first. Each record as the
  // terminal view shows it (viewableRecord): the reader checks a record's outline only, so a claim or
  // document that is not an object (a null claim) is dropped here, for the page, the API and labels.
  const spools = readSpools(options.dirs);
  const records = reviewOrder(spools.records).map(viewableRecord);
  const byId = new Map(records.map((r) => [r.id, r]));
  const labelRecords: LabelRecord[] = read.labels.filter((l) => l.reviewer === options.reviewer);
  const skipped = new Set<string>();
  /** Ids labelled in this session, most recent last: what undo takes back. */
  const undoStack: string[] = [];
  /** An answer whose label was just taken back: shown before the spools' order resumes. */
  let front: string | undefined;

  const labelledIds = (): Set<string> => new Set([...currentLabels(labelRecords).values()].map((l) => l.id));
  const write = (record: LabelRecord): void => {
    appendLabel(options.labelsFile, record);
    labelRecords.push(record);
  };

  return {
    skippedFiles: spools.skipped,
    next() {
      const labelled = labelledIds();
      if (front !== undefined && !labelled.has(front) && byId.has(front)) return byId.get(front);
      return records.find((r) => !labelled.has(r.id) && !skipped.has(r.id));
    },
    label(input) {
      const record = byId.get(input.id);
      if (!record) throw new ReviewRequestError(404, "no answer with this id in the spools");
      const label = input.label ?? (input.agreement === undefined ? undefined : labelFromAgreement(record.kind, input.agreement));
      if (label === undefined) throw new ReviewRequestError(400, "give label (0 or 1) or agreement (agree or disagree)");
      // The record's claims only, each once (the last mark given for an index), in index order.
      const known = new Set(record.claims.map((c) => c.index));
      const marks = new Map((input.claims ?? []).filter((c) => known.has(c.index)).map((c) => [c.index, c.label] as const));
      const claims = [...marks].sort((x, y) => x[0] - y[0]).map(([index, mark]) => ({ index, label: mark }));
      const written: LabelRecord = {
        v: REVIEW_RECORD_VERSION,
        id: record.id,
        reviewer: options.reviewer,
        time: now().toISOString(),
        label,
        agreement: agreementOf(record.kind, label),
        ...(claims.length > 0 ? { claims } : {}),
        kind: record.kind,
      };
      write(written);
      skipped.delete(record.id);
      undoStack.push(record.id);
      if (front === record.id) front = undefined;
      return written;
    },
    skip(id) {
      if (!byId.has(id)) throw new ReviewRequestError(404, "no answer with this id in the spools");
      skipped.add(id);
      if (front === id) front = undefined;
    },
    undo() {
      const id = undoStack.pop();
      if (id === undefined) return undefined;
      const record = byId.get(id);
      if (!record) return undefined;
      write({ v: REVIEW_RECORD_VERSION, id, reviewer: options.reviewer, time: now().toISOString(), kind: record.kind, undo: true });
      front = id;
      return id;
    },
    progress() {
      const labelled = labelledIds();
      const inSpool = records.filter((r) => labelled.has(r.id)).length;
      const skippedNow = records.filter((r) => skipped.has(r.id) && !labelled.has(r.id)).length;
      return { total: records.length, labelled: inSpool, skipped: skippedNow, remaining: records.length - inSpool - skippedNow };
    },
  };
}
