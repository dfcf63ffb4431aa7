import { sanitizeLabel } from "./labels.ts";

/** The route label of every route past the cap: one series for all of them, never a new one per route. */
export const OTHER_ROUTE = "__other__";

/** The label of a route that is missing, blank or not a string. */
export const UNKNOWN_ROUTE = "unknown";

/** Longest route kept as a label, in characters (longer ones are cut: labels are templates, not URLs). */
export const MAX_ROUTE_CHARS = 200;

/**
 * Raw routes longer than this are sanitised every time instead of being remembered: a memo keyed
 * by megabyte strings would hold them.
 */
const MAX_MEMO_KEY_CHARS = 1024;

export interface RouteLabels {
  /**
   * The label a route is recorded under, on every instrument: the route sanitised (ANSI, control and
   * bidi characters removed, at most MAX_ROUTE_CHARS), while fewer than maxRoutes distinct labels
   * are in use or the label is one of them; OTHER_ROUTE once the cap is reached. Constant time per
   * call for a route seen before; linear in the route's length (bounded) otherwise.
   */
  label(route: unknown): string;
  /** The route sanitised but not capped (what sampling rules are matched against), UNKNOWN_ROUTE when nothing is left. */
  clean(route: unknown): string;
  /** Distinct labels in use (OTHER_ROUTE included once it is). */
  readonly size: number;
}

/**
 * The one cap on route labels: every metric labelled by a route (the SDK's counters, histograms
 * and gauges, the collector's interaction and incomplete counters, drift per route) takes its
 * label from here, so an input that names a new route on every request (a service that records
 * raw URLs as its route, or an attacker) adds at most `maxRoutes` series, then OTHER_ROUTE.
 * `preset` labels (e.g. the routes named in the sampling rules) are admitted first.
 */
export function createRouteLabels(maxRoutes: number, preset: readonly string[] = []): RouteLabels {
  /** Admitted labels, in the order they were admitted. */
  const admitted = new Set<string>();
  /** Raw route → sanitised label, bounded; cleared when full (a cache, not a record). */
  const memo = new Map<string, string>();
  const memoMax = Math.max(64, maxRoutes * 4);
  const clean = (route: unknown): string => {
    if (typeof route !== "string") return UNKNOWN_ROUTE;
    const known = memo.get(route);
    if (known !== undefined) return known;
    // Only the head of a huge string can become the label: sanitising all of it would cost its length.
    const head = route.length > MAX_ROUTE_CHARS * 8 ? route.slice(0, MAX_ROUTE_CHARS * 8) : route;
    const label = sanitizeLabel(head, UNKNOWN_ROUTE, MAX_ROUTE_CHARS);
    if (route.length <= MAX_MEMO_KEY_CHARS) {
      if (memo.size >= memoMax) memo.clear();
      memo.set(route, label);
    }
    return label;
  };
  const admit = (label: string): string => {
    if (admitted.has(label)) return label;
    if (admitted.size < maxRoutes) {
      admitted.add(label);
      return label;
    }
    admitted.add(OTHER_ROUTE);
    return OTHER_ROUTE;
  };
  for (const route of preset) if (admitted.size < maxRoutes) admit(clean(route));
  return {
    label: (route) => admit(clean(route)),
    clean,
    get size() {
      return admitted.size;
    },
  };
}
