import type { BatchObservableResult, Meter } from "@opentelemetry/api";
import { ValueType, diag } from "@opentelemetry/api";
import { statSync } from "node:fs";
import { ATTR_REVIEW_AGREEMENT, ATTR_REVIEW_KIND, METRICS } from "../telemetry/semconv.ts";
import { majorityLabels } from "./export.ts";
import type { SpoolKind } from "./record.ts";
import { SPOOL_KINDS, agreementOf } from "./record.ts";
import { currentLabels, readLabelRecords } from "./spool-files.ts";

/** Labelled answers by kind and agreement: `${kind} ${agreement}` → count. */
export type LabelCounts = ReadonlyMap<`${SpoolKind} ${"agree" | "disagree"}`, number>;

/** How the labels file behind groundwatch.review.labels is read. */
export interface LabelCountsOptions {
  /** The labels file (`labelsPath(reviewDir)`). */
  readonly path: string;
  /** Least time between two looks at the file, ms (default 30 000): a scrape between them gets the last counts. */
  readonly minIntervalMs?: number;
  /** Largest file read, bytes (default 64 MiB): a larger one is not read; its last counts stay and the reason is kept. */
  readonly maxBytes?: number;
  /** The clock, ms. */
  readonly now?: () => number;
}

/** Counts over every labelled answer of a labels file: one label per answer (the majority; ties left out), by its kind and agreement. */
export function countLabels(path: string): LabelCounts {
  const majority = majorityLabels(currentLabels(readLabelRecords(path).labels));
  const counts = new Map<`${SpoolKind} ${"agree" | "disagree"}`, number>();
  for (const l of majority.labels.values()) {
    const key = `${l.kind} ${agreementOf(l.kind, l.label)}` as const;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/**
 * The counts of a labels file, looked at at most every `minIntervalMs` and read again only when its
 * size or modification time changed; a file over `maxBytes` is not read (`skipped()` says so).
 */
export function createLabelCounts(options: LabelCountsOptions): { counts(): LabelCounts; skipped(): "too_large" | undefined } {
  const interval = options.minIntervalMs ?? 30_000;
  const maxBytes = options.maxBytes ?? 64 * 2 ** 20;
  const now = options.now ?? Date.now;
  let lookedAt: number | undefined;
  let seen = "";
  let counts: LabelCounts = new Map();
  let skipped: "too_large" | undefined;
  const refresh = (): void => {
    const t = now();
    if (lookedAt !== undefined && t - lookedAt < interval) return;
    lookedAt = t;
    let size: number;
    let stamp: string;
    try {
      const st = statSync(options.path);
      size = st.size;
      stamp = `${st.size} ${st.mtimeMs}`;
    } catch {
      // No labels yet: nothing labelled.
      counts = new Map();
      seen = "";
      return;
    }
    if (stamp === seen) return;
    if (size > maxBytes) {
      if (skipped === undefined) diag.warn(`groundwatch: the review labels file ${options.path} is ${size} bytes, over the ${maxBytes} read for groundwatch.review.labels: the gauge keeps its last counts`);
      skipped = "too_large";
      return;
    }
    skipped = undefined;
    seen = stamp;
    try {
      counts = countLabels(options.path);
    } catch (error) {
      diag.warn(`groundwatch: cannot read the review labels file ${options.path}: ${(error as Error).message}`);
    }
  };
  return {
    counts() {
      refresh();
      return counts;
    },
    skipped: () => skipped,
  };
}

/** Registers groundwatch.review.labels on `meter`, observed from the labels file (every kind and agreement, 0 when none). */
export function registerReviewLabelsGauge(meter: Meter, options: LabelCountsOptions): void {
  const reader = createLabelCounts(options);
  const gauge = meter.createObservableGauge(METRICS.reviewLabels.name, { unit: METRICS.reviewLabels.unit, description: METRICS.reviewLabels.description, valueType: ValueType.INT });
  meter.addBatchObservableCallback((r: BatchObservableResult) => {
    const counts = reader.counts();
    for (const kind of SPOOL_KINDS) for (const agreement of ["agree", "disagree"] as const) r.observe(gauge, counts.get(`${kind} ${agreement}`) ?? 0, { [ATTR_REVIEW_KIND]: kind, [ATTR_REVIEW_AGREEMENT]: agreement });
  }, [gauge]);
}
