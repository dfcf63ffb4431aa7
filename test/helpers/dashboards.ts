import { dashboardFiles } from "../../scripts/dashboards.ts";

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
