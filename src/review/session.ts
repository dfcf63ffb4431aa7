import type { LabelRecord, ReviewLabelValue, SpanLabel, SpoolRecord } from "./record.ts";
import { REVIEW_RECORD_VERSION, agreementOf, labelFromAgreement } from "./record.ts";
import { reviewOrder } from "./queue.ts";
import type { SkippedSpoolFile } from "./spool-files.ts";
import { currentLabels } from "./spool-files.ts";
import type { MissingReplica, ReviewSnapshot, ReviewStore, SeenLabel } from "./store.ts";
import { createDirectoryStore } from "./store.ts";
import { viewableRecord } from "./viewable.ts";
import { GroundwatchError } from "../errors/groundwatch-error.ts";

/**
 * One reviewer's pass over the spools, the one both review views drive (the terminal and the web
 * page): which answer comes next, what a label, a skip and an undo write, and where the reviewer
 * stands. Answers come in review order (flagged first, then the grounded sample, oldest first:
 * review/queue.ts), replicas merged, each answer once; those this reviewer has a label in force for
 * are not shown, nor those skipped in this session. Every label record is built here, and written
 * through the store at once (review/store.ts: spool directories, or a deployment's collectors); an
 * undo writes an undo record that takes back this session's last label, and that answer comes next
 * again. A label the store refuses for labels of others this session had not seen (the conflict
 * rule) is not written: the session learns of them, and the view asks the reviewer whether to label
 * anyway (a second `label`, now knowing them) or skip. No I/O beyond the store.
 */

/** What a reviewer gives for one answer: a label (1 grounded, 0 not) or an agreement with groundwatch's verdict, and optionally claim and span marks. */
export interface LabelInput {
  readonly id: string;
  readonly label?: ReviewLabelValue | undefined;
  readonly agreement?: "agree" | "disagree" | undefined;
  readonly claims?: ReadonlyArray<{ readonly index: number; readonly label: ReviewLabelValue }> | undefined;
  /** Spans marked wrong, by index into the record's `spans` (others are dropped). */
  readonly spans?: readonly SpanLabel[] | undefined;
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
  /** Where answers and labels are read and labels written (default: a directory store over `dirs` and `labelsFile`). */
  readonly store?: ReviewStore | undefined;
  /** Spool directories (replicas) to read, merged (without `store`). */
  readonly dirs?: readonly string[] | undefined;
  /** The labels file labels are appended to and read from (without `store`; default labels.jsonl of each directory). */
  readonly labelsFile?: string | undefined;
  /** The reviewer's name, written in every label. */
  readonly reviewer: string;
  /** The clock for label times (tests pass a fixed one). */
  readonly now?: (() => Date) | undefined;
}

/** Why the session refused a request: an id not in the spools, or a label request without a label or an agreement. */
export type ReviewSessionRefusal = "unknown_answer" | "no_label";

/** A request the session refuses; its code (`review_` and the reason) is what a view maps to its own answer (an HTTP status: net/error-status.ts). */
export class ReviewSessionError extends GroundwatchError {
  override readonly name = "ReviewSessionError";
  override readonly code: `review_${ReviewSessionRefusal}`;
  constructor(
    readonly reason: ReviewSessionRefusal,
    message: string,
  ) {
    super(message);
    this.code = `review_${reason}`;
  }
}

/** What a label did: written (by the replica holding the answer, when remote), or not written for labels of others this session had not seen (it knows them now). */
export type LabelOutcome = { readonly written: LabelRecord; readonly replica?: string | undefined } | { readonly conflict: readonly LabelRecord[] };

export interface ReviewSession {
  /** The next answer to review, or undefined when none is left. */
  next(): SpoolRecord | undefined;
  /** Writes a label for an answer in the spools (see LabelOutcome). */
  label(input: LabelInput): Promise<LabelOutcome>;
  /** Labels in force of an answer by other reviewers that this session knows of. */
  othersOf(id: string): LabelRecord[];
  /** Puts an answer aside for this session. */
  skip(id: string): void;
  /** Takes back this session's last label (an undo record); returns the id, or undefined when there is none to take back. */
  undo(): Promise<string | undefined>;
  progress(): ReviewProgress;
  /** Labels written in this session and not taken back. */
  labelledNow(): number;
  /** Segment-named files of the spools that were passed over (links, FIFOs, devices, over the read cap). */
  readonly skippedFiles: readonly SkippedSpoolFile[];
  /** Lines that could not be read: of the spools (a torn last write is expected after a crash), and of the labels file. */
  readonly unreadable: { readonly spoolLines: number; readonly labelLines: number };
  /** Where answers came from and labels go, in words. */
  readonly source: ReviewSnapshot["source"];
  /** Replicas that did not answer when the session loaded (remote): their answers are not in it. */
  readonly missing: readonly MissingReplica[];
}

/**
 * Reads the store once and keeps this reviewer's state. With a directory store, a labels file that is
 * not a regular file (a link, a FIFO) or is over the read cap is a ConfigError naming --labels.
 */
export async function openReviewSession(options: ReviewSessionOptions): Promise<ReviewSession> {
  const now = options.now ?? (() => new Date());
  const store = options.store ?? createDirectoryStore({ dirs: options.dirs ?? [], labelsFile: options.labelsFile });
  const snapshot = await store.load();
  const records = reviewOrder(snapshot.records).map(viewableRecord);
  const byId = new Map(records.map((r) => [r.id, r]));
  /** Every label record this session knows of (all reviewers): what it tells the store it has seen. */
  const known: LabelRecord[] = [...snapshot.labels];
  const labelRecords: LabelRecord[] = known.filter((l) => l.reviewer === options.reviewer);
  const skipped = new Set<string>();
  /** Ids labelled in this session, most recent last: what undo takes back. */
  const undoStack: string[] = [];
  /** Answers whose labels were just taken back, the latest first: shown before the spools' order resumes. */
  const front: string[] = [];

  const labelledIds = (): Set<string> => new Set([...currentLabels(labelRecords).values()].map((l) => l.id));
  const othersOf = (id: string): LabelRecord[] => [...currentLabels(known.filter((l) => l.id === id)).values()].filter((l) => l.reviewer !== options.reviewer);
  const remember = (record: LabelRecord): void => {
    known.push(record);
    if (record.reviewer === options.reviewer) labelRecords.push(record);
  };
  const write = async (record: LabelRecord): Promise<LabelOutcome> => {
    const seen: SeenLabel[] = othersOf(record.id).map((l) => ({ reviewer: l.reviewer, time: l.time }));
    const outcome = await store.write(record, seen);
    if ("conflict" in outcome) {
      for (const l of outcome.conflict) if (l.reviewer !== options.reviewer) known.push(l);
      return outcome;
    }
    remember(record);
    return outcome;
  };
  const recordOf = (id: string): SpoolRecord => {
    const record = byId.get(id);
    if (!record) throw new ReviewSessionError("unknown_answer", "no answer with this id in the spools");
    return record;
  };
  const leaveFront = (id: string): void => {
    const at = front.indexOf(id);
    if (at >= 0) front.splice(at, 1);
  };

  return {
    skippedFiles: snapshot.skippedFiles,
    unreadable: snapshot.unreadable,
    source: snapshot.source,
    missing: snapshot.missing,
    othersOf,
    next() {
      const labelled = labelledIds();
      const undone = front.find((id) => !labelled.has(id) && !skipped.has(id));
      if (undone !== undefined) return byId.get(undone);
      return records.find((r) => !labelled.has(r.id) && !skipped.has(r.id));
    },
    async label(input) {
      const record = recordOf(input.id);
      const label = input.label ?? (input.agreement === undefined ? undefined : labelFromAgreement(record.kind, input.agreement));
      if (label === undefined) throw new ReviewSessionError("no_label", "give label (0 or 1) or agreement (agree or disagree)");
      // The record's claims only, each once (the last mark given for an index), in index order.
      const claimIndexes = new Set(record.claims.map((c) => c.index));
      const marks = new Map((input.claims ?? []).filter((c) => claimIndexes.has(c.index)).map((c) => [c.index, c.label] as const));
      const claims = [...marks].sort((x, y) => x[0] - y[0]).map(([index, mark]) => ({ index, label: mark }));
      // The record's spans only, each once, in index order.
      const spanCount = record.spans?.length ?? 0;
      const wrong = [...new Set((input.spans ?? []).filter((s) => Number.isInteger(s.span) && s.span >= 0 && s.span < spanCount).map((s) => s.span))].sort((x, y) => x - y);
      const spans: SpanLabel[] = wrong.map((span) => ({ span, verdict: "wrong" }));
      const written: LabelRecord = {
        v: REVIEW_RECORD_VERSION,
        id: record.id,
        reviewer: options.reviewer,
        time: now().toISOString(),
        label,
        agreement: agreementOf(record.kind, label),
        ...(claims.length > 0 ? { claims } : {}),
        ...(spans.length > 0 ? { spans } : {}),
        kind: record.kind,
      };
      const outcome = await write(written);
      if ("conflict" in outcome) return outcome;
      skipped.delete(record.id);
      undoStack.push(record.id);
      leaveFront(record.id);
      return outcome;
    },
    skip(id) {
      recordOf(id);
      skipped.add(id);
      leaveFront(id);
    },
    async undo() {
      const id = undoStack.at(-1);
      if (id === undefined) return undefined;
      const record = recordOf(id);
      await write({ v: REVIEW_RECORD_VERSION, id, reviewer: options.reviewer, time: now().toISOString(), kind: record.kind, undo: true });
      undoStack.pop();
      leaveFront(id);
      front.unshift(id);
      return id;
    },
    progress() {
      const labelled = labelledIds();
      const inSpool = records.filter((r) => labelled.has(r.id)).length;
      const skippedNow = records.filter((r) => skipped.has(r.id) && !labelled.has(r.id)).length;
      return { total: records.length, labelled: inSpool, skipped: skippedNow, remaining: records.length - inSpool - skippedNow };
    },
    labelledNow: () => undoStack.length,
  };
}
