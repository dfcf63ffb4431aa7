import type { BatchObservableResult, Meter } from "@opentelemetry/api";
import { ValueType, diag } from "@opentelemetry/api";
import * as nodeFs from "node:fs";
import { ATTR_REVIEW_AGREEMENT, ATTR_REVIEW_KIND, METRICS } from "../telemetry/semconv.ts";
import type { LabelCounts } from "./label-tally.ts";
import { createLabelTally } from "./label-tally.ts";
import { SPOOL_KINDS } from "./record.ts";
import { parseLabelLine } from "./spool-files.ts";
import type { SpoolFileOps, SpoolFileSkip } from "./spool-fs.ts";
import { describeSkip, openSpoolFile, readSpoolLines, readSpoolFile } from "./spool-fs.ts";

export type { LabelCounts } from "./label-tally.ts";

/** How the labels file behind groundwatch.review.labels is read. */
export interface LabelCountsOptions {
  /** The labels file (`labelsPath(reviewDir)`). */
  readonly path: string;
  /** Least time between two looks at the file, ms (default 30 000): a scrape between them gets the last counts. */
  readonly minIntervalMs?: number;
  /** Largest file read, bytes (default 64 MiB): a larger one is not read; its last counts stay and the reason is kept. */
  readonly maxBytes?: number;
  /** Most bytes read at one look, at a line's end (default 256 KiB): a file that grew more is read on at the next look, without waiting for minIntervalMs. */
  readonly sliceBytes?: number;
  /** registerReviewLabelsGauge: most looks one scrape takes while the reader is behind the file's end, yielding to the event loop between them (default 32). */
  readonly slicesPerScrape?: number;
  /** The clock, ms. */
  readonly now?: () => number;
  /** File operations (default node:fs). */
  readonly fs?: SpoolFileOps;
  /** Told each time a look passes the file over (not a regular file, or over maxBytes). */
  readonly onSkipped?: (reason: SpoolFileSkip) => void;
}

/** Counts over every labelled answer of a labels file, read whole: one label per answer (the majority; ties left out), by its kind and agreement. */
export function countLabels(path: string): LabelCounts {
  const tally = createLabelTally();
  readSpoolFile(path, ({ text }) => {
    const line = parseLabelLine(text);
    if (typeof line === "object" && "label" in line) tally.add(line.label);
  });
  return tally.counts();
}

/** The labels file's counts as a scrape reads them. */
export interface LabelCountsReader {
  /** Looks at the file (at most one slice) when it is time to, and returns the counts of the last read that reached the file's end. */
  counts(): LabelCounts;
  /** Whether the last look stopped before the file's end: the next look reads on at once. */
  behind(): boolean;
  /** Why the file was passed over at the last look (not a regular file, over maxBytes), or undefined. */
  skipped(): SpoolFileSkip | undefined;
}

/** What the reader knows of the file: which file (device and inode), how far it was read, and the erasure marks already acted on. */
interface Position {
  readonly dev: number;
  readonly ino: number;
  offset: number;
  /**
   * The file's size when this read started from offset 0: an erasure mark before it was there
   * already, so the lines it speaks of were blanked before they were read; a mark past it may
   * speak of lines counted before they were blanked.
   */
  readonly freshTo: number;
}

/**
 * The counts of a labels file, kept as it grows: each look reads only the bytes appended since the
 * last (at most `sliceBytes`, ending at a line's end) and adds their labels to per-answer state, so
 * a scrape never parses the whole file. The file is read again from the start when it is another
 * file (another inode), when it shrank, and after an erasure mark (review delete blanked lines in
 * place). Looks are at most every `minIntervalMs`, except while the reader is behind the file's
 * end. Until a read reaches the end, scrapes get the counts of the last complete read. A file that
 * is not regular, or is over `maxBytes`, is not read (`skipped()` says why; the counts stay).
 */
export function createLabelCounts(options: LabelCountsOptions): LabelCountsReader {
  const interval = options.minIntervalMs ?? 30_000;
  const maxBytes = options.maxBytes ?? 64 * 2 ** 20;
  const slice = options.sliceBytes ?? 256 * 1024;
  const now = options.now ?? Date.now;
  const fs = options.fs ?? nodeFs;
  let lookedAt: number | undefined;
  let behind = false;
  let position: Position | undefined;
  let tally = createLabelTally();
  let shown: LabelCounts = new Map();
  let skipped: SpoolFileSkip | undefined;

  const restart = (at: Position | undefined): void => {
    tally = createLabelTally();
    position = at;
  };

  const refresh = (): void => {
    const t = now();
    if (!behind && lookedAt !== undefined && t - lookedAt < interval) return;
    lookedAt = t;
    const opened = openSpoolFile(options.path, "read", { fs, maxBytes });
    if ("absent" in opened) {
      // No labels (yet, or any more): nothing labelled.
      restart(undefined);
      shown = new Map();
      skipped = undefined;
      behind = false;
      return;
    }
    if ("skipped" in opened) {
      if (skipped !== opened.skipped) diag.warn(`groundwatch: the review labels file ${options.path} is ${opened.skipped === "too_large" ? `over the ${maxBytes} bytes read for ${METRICS.reviewLabels.name}` : describeSkip(opened.skipped)}: the gauge keeps its last counts`);
      skipped = opened.skipped;
      behind = false;
      options.onSkipped?.(opened.skipped);
      return;
    }
    skipped = undefined;
    const { fd, size, dev, ino } = opened.file;
    try {
      if (!position || position.dev !== dev || position.ino !== ino || size < position.offset) restart({ dev, ino, offset: 0, freshTo: size });
      const at = position as Position;
      let rescan = false;
      at.offset = readSpoolLines(
        fs,
        fd,
        at.offset,
        size,
        ({ text, end }) => {
          const line = parseLabelLine(text);
          if (typeof line !== "object") return;
          if ("label" in line) tally.add(line.label);
          else if (end >= at.freshTo) {
            // Review delete blanked labels already counted: count the file again from its start.
            rescan = true;
            return "stop";
          }
        },
        { budget: slice },
      );
      if (rescan) restart({ dev, ino, offset: 0, freshTo: size });
      behind = rescan || (position as Position).offset < size;
      if (!behind) shown = tally.counts();
    } catch (error) {
      // Some of the lines read may be counted already: the next look reads the file from its start.
      restart(undefined);
      behind = false;
      diag.warn(`groundwatch: cannot read the review labels file ${options.path}: ${(error as Error).message}`);
    } finally {
      fs.closeSync(fd);
    }
  };
  return {
    counts() {
      refresh();
      return shown;
    },
    behind: () => behind,
    skipped: () => skipped,
  };
}

/**
 * Registers groundwatch.review.labels on `meter`, observed from the labels file (every kind and
 * agreement, 0 when none). While the reader is behind the file's end (a large file at start, a
 * rescan after review delete), a scrape reads on slice by slice, yielding to the event loop between
 * slices, up to `slicesPerScrape`: no slice holds the main thread for long, and the next scrape
 * goes on where this one stopped.
 */
export function registerReviewLabelsGauge(meter: Meter, options: LabelCountsOptions): void {
  const reader = createLabelCounts(options);
  const slices = options.slicesPerScrape ?? 32;
  const gauge = meter.createObservableGauge(METRICS.reviewLabels.name, { unit: METRICS.reviewLabels.unit, description: METRICS.reviewLabels.description, valueType: ValueType.INT });
  meter.addBatchObservableCallback(async (r: BatchObservableResult) => {
    let counts = reader.counts();
    for (let i = 1; i < slices && reader.behind(); i++) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      counts = reader.counts();
    }
    for (const kind of SPOOL_KINDS) for (const agreement of ["agree", "disagree"] as const) r.observe(gauge, counts.get(`${kind} ${agreement}`) ?? 0, { [ATTR_REVIEW_KIND]: kind, [ATTR_REVIEW_AGREEMENT]: agreement });
  }, [gauge]);
}
