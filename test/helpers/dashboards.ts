import { dashboardFiles } from "../../scripts/dashboards.ts";

/**
 * The overview's "Live semantic entropy (resampling)" panels that read only the resampler's own
 * metrics (groundwatch_resample_*): no data — not an error, not 0 — while resampling is off. The row's
 * other two, "Semantic entropy by route" and "Unstable-claim share by route", also read what is
 * measured on samples sent with observations, so they have data without the resampler.
 */
/** Panels that read the review loop's labels: no data on a collector without a review spool. */
export const REVIEW_PANELS = ["Review agreement", "Review spool: answers written and skipped"];
/** The guard panels: no data where no Monitor.guard() check was made (the collector makes none of its own). */
export const GUARD_PANELS = ["Guard decisions by type", "Guard bypass rate by reason", "Guard duration"];
export const RESAMPLER_PANELS = ["Resampler calls by outcome", "Resampler success rate by route", "Resampler tokens per minute, by kind", "Resampler latency"];

/**
 * Every PromQL query of the generated dashboards, with Grafana's variables filled in for a test:
 * `route` is the route variable's regular expression (all routes by default).
 */
export function panelQueries(range = "5m", route = ".*"): Array<{ dashboard: string; panel: string; expr: string }> {
  const out: Array<{ dashboard: string; panel: string; expr: string }> = [];
  for (const [name, text] of Object.entries(dashboardFiles())) {
    const d = JSON.parse(text) as { panels: Array<{ title: string; targets?: Array<{ expr: string }> }> };
    for (const p of d.panels) for (const t of p.targets ?? []) out.push({ dashboard: name, panel: p.title, expr: t.expr.replaceAll("$route", route).replaceAll("$__rate_interval", "1m").replaceAll("$__range", range).replaceAll("[30d]", `[${range}]`).replaceAll("[90d]", `[${range}]`).replaceAll("[1d]", `[${range}]`) });
  }
  return out;
}
