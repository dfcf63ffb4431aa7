/** A monitor's accounting, as tests check it: in process (MonitorStats) or read from a child's /stats. */

/** The counters of the accounting identity: MonitorStats, or the same fields read from a child process. */
export interface AccountingStats {
  readonly seen: number;
  readonly sampled: number;
  readonly notSampled: number;
  readonly scored: number;
  readonly pending: number;
  readonly dropped: Readonly<Record<string, number>>;
  readonly failed: Readonly<Record<string, number>>;
}

/** The sum of a count-by-reason record. */
export const totalOf = (counts: Readonly<Record<string, number>>): number => Object.values(counts).reduce((a, b) => a + b, 0);

/** Every observation seen is sampled or not, and every sampled one is scored, dropped, failed or still pending. */
export function identityHolds(s: AccountingStats): boolean {
  return s.seen === s.sampled + s.notSampled && s.sampled === s.scored + totalOf(s.dropped) + totalOf(s.failed) + s.pending;
}

/** Observations whose scoring has ended, in a score or a failure. */
export const settledCount = (s: AccountingStats): number => s.scored + totalOf(s.failed);
