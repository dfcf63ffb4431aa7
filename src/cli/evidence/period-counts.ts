import type { PromRow } from "./scoring.ts";

/**
 * Whole counts over a report's period from Prometheus counters (groundwatch evidence).
 *
 * Prometheus' `increase()` extrapolates a counter's rise to the edges of its window, and loses the
 * first value of a series that appears within it: its answers are not whole ("398.4 answers"), and
 * two tables read from different counters, or summed by different labels, disagree. Here each
 * series' count is the difference of two values it actually had: its last value scraped in the
 * period, less its last value scraped before the period (the period's length back; none: the series
 * started in the period, from 0). That is exact to the scrapes nearest the period's two ends.
 *
 * A series that reset (its collector restarted) in the period, or in the look-back before it, has
 * no such difference: it is estimated with `increase()` instead, rounded, and marked not exact, so
 * the report says "about". Every table sums the same per-series counts, so they agree.
 */

/** One series' count over the period: its labels, whole answers, and whether it is exact. */
export interface SeriesCount {
  readonly labels: Readonly<Record<string, string>>;
  readonly count: number;
  readonly exact: boolean;
}

/** A sum of series counts: whole answers, exact only when every series in it is. */
export interface PeriodCount {
  readonly count: number;
  readonly exact: boolean;
}

/**
 * The two instant queries, evaluated at the period's end, for `counter{matcher}` over a period of
 * `range` (a PromQL duration) whose look-back before it is `lookBack` (the period's length too),
 * `resetWindow` being their sum: per series, the exact difference where it did not reset, and
 * Prometheus' estimate where it did.
 */
export function periodCountQueries(counter: string, matcher: string, range: string, resetWindow: string): { readonly exact: string; readonly estimated: string } {
  const series = `${counter}{${matcher}}`;
  const end = `last_over_time(${series}[${range}])`;
  const start = `last_over_time(${series}[${range}] offset ${range})`;
  const reset = `(resets(${series}[${resetWindow}]) > 0)`;
  return { exact: `(${end} - (${start} or ${end} * 0)) unless ${reset}`, estimated: `increase(${series}[${range}]) and ${reset}` };
}

/** Whole, non-negative answers from a value Prometheus sent (NaN or missing: 0). */
const whole = (raw: string | undefined): number => {
  const v = Number(raw);
  return Number.isFinite(v) && v > 0 ? Math.round(v) : 0;
};

/** The per-series counts from the answers to periodCountQueries' two queries. */
export function seriesCounts(exact: readonly PromRow[], estimated: readonly PromRow[]): SeriesCount[] {
  return [...exact.map((r) => ({ labels: r.metric, count: whole(r.value[1]), exact: true })), ...estimated.map((r) => ({ labels: r.metric, count: whole(r.value[1]), exact: false }))];
}

/** The counts summed by the values of `labels` (a missing label is ""), keyed by those values joined with NUL. */
export function sumBy(counts: readonly SeriesCount[], labels: readonly string[]): Map<string, PeriodCount> {
  const out = new Map<string, PeriodCount>();
  for (const c of counts) {
    const key = labels.map((l) => c.labels[l] ?? "").join("\u0000");
    const was = out.get(key) ?? { count: 0, exact: true };
    out.set(key, { count: was.count + c.count, exact: was.exact && c.exact });
  }
  return out;
}

/** All the counts together. */
export function total(counts: readonly SeriesCount[]): PeriodCount {
  return sumBy(counts, []).get("") ?? { count: 0, exact: true };
}

/** A count as the report writes it: "398", or "about 398" when part of it is Prometheus' estimate. */
export function countText(c: PeriodCount): string {
  return c.exact ? String(c.count) : `about ${c.count}`;
}

/** Sums as Prometheus instant-query rows (labels from the key, the count as the value), for code that reads rows. */
export function countRows(sums: ReadonlyMap<string, PeriodCount>, labels: readonly string[], time: number): PromRow[] {
  return [...sums].map(([key, c]) => {
    const values = key.split("\u0000");
    return { metric: Object.fromEntries(labels.map((l, i) => [l, values[i] ?? ""])), value: [time, String(c.count)] };
  });
}
