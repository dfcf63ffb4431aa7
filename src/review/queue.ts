import type { SpoolRecord } from "./record.ts";

/**
 * The order answers are put before a reviewer, in the terminal and on the web page alike: flagged
 * answers first, then the grounded sample, each oldest first (an unreadable time last), spool order
 * breaking ties.
 */
export function reviewOrder(records: readonly SpoolRecord[]): SpoolRecord[] {
  const rank = (r: SpoolRecord): number => (r.kind === "flagged" ? 0 : 1);
  const time = (r: SpoolRecord): number => {
    const t = Date.parse(r.time);
    return Number.isNaN(t) ? Infinity : t;
  };
  return records
    .map((r, i) => ({ r, i, t: time(r) }))
    .sort((a, b) => rank(a.r) - rank(b.r) || a.t - b.t || a.i - b.i)
    .map((e) => e.r);
}
