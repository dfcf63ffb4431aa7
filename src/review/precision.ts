import { wilsonInterval } from "../core/calibration.ts";
import type { AnswerLabel } from "./export.ts";
import type { SpoolRecord } from "./record.ts";

/**
 * The monitor's own precision, for the supervisor: over the reviewed answers of a period (one
 * label per answer, the majority of its reviewers), how often a flag was right, how often a
 * grounded answer was in fact not, and the recall those two imply. Pure: the caller reads the spool,
 * the labels and the period's answer counts.
 *
 * - precision p = flagged answers reviewed whose reviewers say not grounded / flagged reviewed,
 *   with a Wilson 95% interval;
 * - miss rate m = grounded samples reviewed whose reviewers say not grounded / grounded samples
 *   reviewed, with a Wilson 95% interval (the sample is drawn at random, so it estimates the miss
 *   rate of every grounded answer);
 * - estimated recall = TP / (TP + FN), TP = p × flagged answers in the period, FN = m × grounded
 *   answers in the period. Its interval is conservative, from the two Wilson bounds: the lowest
 *   recall from the lowest precision and the highest miss rate, the highest from the reverse. It
 *   is not itself a 95% interval: it covers at least the two intervals' joint uncertainty.
 */

/** A proportion with its Wilson 95% interval; null figures when nothing was reviewed. */
export interface ReviewedProportion {
  /** Answers of this kind in the period (estimated: see `countsFrom`). */
  readonly answers: number;
  readonly reviewed: number;
  /** Reviewed answers the reviewers call not grounded. */
  readonly notGrounded: number;
  /** notGrounded / reviewed for flags (precision), the same for grounded samples (miss rate); null with none reviewed. */
  readonly rate: number | null;
  readonly interval: { readonly low: number; readonly high: number } | null;
}

/** One bucket of the trend (a day or a week from the period's start). */
export interface PrecisionBucket {
  /** Its start and end, Unix seconds. */
  readonly start: number;
  readonly end: number;
  readonly flagged: ReviewedProportion;
  readonly grounded: ReviewedProportion;
}

/** Where the period's answer counts came from. */
export type CountsFrom = "prometheus" | "spool";

export interface MonitorPrecision {
  /** The period, Unix seconds: [from, to). */
  readonly from: number;
  readonly to: number;
  readonly countsFrom: CountsFrom;
  /** Flagged answers: precision of the flags. */
  readonly flagged: ReviewedProportion;
  /** Grounded answers: the miss rate from the grounded sample. */
  readonly grounded: ReviewedProportion;
  /** Estimated recall with its conservative interval; null when there is nothing to estimate it from. */
  readonly recall: { readonly value: number; readonly low: number; readonly high: number } | null;
  readonly trend: { readonly bucket: "day" | "week"; readonly buckets: readonly PrecisionBucket[] };
}

/** What `monitorPrecision` reads. */
export interface PrecisionInput {
  /** The spools' records (every answer kept for review). */
  readonly records: readonly SpoolRecord[];
  /** One label per answer (`majorityLabels(…).labels`). */
  readonly labels: ReadonlyMap<string, AnswerLabel>;
  /** The period, Unix seconds: [from, to). */
  readonly from: number;
  readonly to: number;
  /** The period's flagged and grounded answers from Prometheus; without them the spool's records divided by their sample rate estimate them. */
  readonly counts?: { readonly flagged: number; readonly grounded: number };
}

const DAY = 86_400;

function proportion(answers: number, reviewed: number, notGrounded: number): ReviewedProportion {
  return { answers, reviewed, notGrounded, rate: reviewed > 0 ? notGrounded / reviewed : null, interval: reviewed > 0 ? wilsonInterval(notGrounded, reviewed) : null };
}

/** TP / (TP + FN) for a precision and a miss rate over F flagged and G grounded answers; null when both are 0. */
function recallOf(precision: number, missRate: number, flagged: number, grounded: number): number | null {
  const tp = precision * flagged;
  const fn = missRate * grounded;
  return tp + fn > 0 ? tp / (tp + fn) : null;
}

/** Tallies of reviewed answers of both kinds among `records`, with the answers they stand for (1 / sample rate each). */
function tally(records: readonly SpoolRecord[], labels: ReadonlyMap<string, AnswerLabel>): { flagged: ReviewedProportion; grounded: ReviewedProportion } {
  const t = { flagged: { answers: 0, reviewed: 0, notGrounded: 0 }, grounded: { answers: 0, reviewed: 0, notGrounded: 0 } };
  for (const r of records) {
    const side = r.kind === "flagged" ? t.flagged : t.grounded;
    side.answers += r.sampleRate > 0 ? 1 / r.sampleRate : 0;
    const label = labels.get(r.id);
    if (!label) continue;
    side.reviewed++;
    if (label.label === 0) side.notGrounded++;
  }
  return { flagged: proportion(t.flagged.answers, t.flagged.reviewed, t.flagged.notGrounded), grounded: proportion(t.grounded.answers, t.grounded.reviewed, t.grounded.notGrounded) };
}

/** The monitor's precision, miss rate and estimated recall over the period, and their trend by day (a period up to 14 days) or week. */
export function monitorPrecision(input: PrecisionInput): MonitorPrecision {
  const { from, to, labels } = input;
  const at = (r: SpoolRecord): number => Date.parse(r.time) / 1000;
  const inPeriod = input.records.filter((r) => at(r) >= from && at(r) < to);
  const all = tally(inPeriod, labels);
  const flagged = input.counts ? { ...all.flagged, answers: input.counts.flagged } : all.flagged;
  const grounded = input.counts ? { ...all.grounded, answers: input.counts.grounded } : all.grounded;
  let recall: MonitorPrecision["recall"] = null;
  if (flagged.rate !== null && grounded.rate !== null && flagged.interval && grounded.interval) {
    const value = recallOf(flagged.rate, grounded.rate, flagged.answers, grounded.answers);
    const low = recallOf(flagged.interval.low, grounded.interval.high, flagged.answers, grounded.answers);
    const high = recallOf(flagged.interval.high, grounded.interval.low, flagged.answers, grounded.answers);
    if (value !== null) recall = { value, low: low ?? 0, high: high ?? 1 };
  }
  const bucket = to - from <= 14 * DAY ? "day" : "week";
  const length = bucket === "day" ? DAY : 7 * DAY;
  // One pass: each record into its bucket.
  const groups = Array.from({ length: Math.max(0, Math.ceil((to - from) / length)) }, (): SpoolRecord[] => []);
  for (const r of inPeriod) groups[Math.floor((at(r) - from) / length)]?.push(r);
  const buckets: PrecisionBucket[] = groups.map((records, i) => ({ start: from + i * length, end: Math.min(to, from + (i + 1) * length), ...tally(records, labels) }));
  return { from, to, countsFrom: input.counts ? "prometheus" : "spool", flagged, grounded, recall, trend: { bucket, buckets } };
}
