/**
 * The building blocks scripts/dashboards.ts and scripts/dashboard-cause.ts share: the data source
 * and route variables, ratios that are no data where nothing was counted, queries, threshold lines
 * and time-series panels.
 */
import type { DashboardBuilder } from "@grafana/grafana-foundation-sdk/dashboard";
import { DatasourceVariableBuilder, QueryVariableBuilder, ThresholdsConfigBuilder, ThresholdsMode } from "@grafana/grafana-foundation-sdk/dashboard";
import { GraphThresholdsStyleConfigBuilder, GraphThresholdsStyleMode } from "@grafana/grafana-foundation-sdk/common";
import { DataqueryBuilder } from "@grafana/grafana-foundation-sdk/prometheus";
import { PanelBuilder as TimeseriesPanel } from "@grafana/grafana-foundation-sdk/timeseries";

export const DS = { type: "prometheus", uid: "${datasource}" };
export const R = 'groundwatch_route=~"$route"';

/**
 * `numerator / denominator` that is no result ("No data" in Grafana) when the denominator is 0 —
 * nothing scored is not 0% — and 0 when the denominator has data but the numerator's series does
 * not exist yet (a route with no ungrounded answer so far). Both sides must carry the same labels.
 */
export function ratio(numerator: string, denominator: string): string {
  return `(${numerator} or ${denominator} * 0) / (${denominator} > 0)`;
}

export function q(expr: string, legend: string, refId = "A"): DataqueryBuilder {
  return new DataqueryBuilder().refId(refId).expr(expr).legendFormat(legend);
}

/** A threshold line: red above `value` (a rate that must stay low), or below it with `lowIsBad` (a success share). */
export function thresholdLine(value: number, lowIsBad = false): ThresholdsConfigBuilder {
  return new ThresholdsConfigBuilder().mode(ThresholdsMode.Absolute).steps([
    { value: null, color: lowIsBad ? "red" : "green" },
    { value, color: lowIsBad ? "green" : "red" },
  ]);
}

export function variables(d: DashboardBuilder): DashboardBuilder {
  return d
    .withVariable(new DatasourceVariableBuilder("datasource").label("Data source").type("prometheus"))
    .withVariable(
      new QueryVariableBuilder("route")
        .label("Route")
        .datasource(DS)
        .query("label_values(groundwatch_observations_seen_total, groundwatch_route)")
        .multi(true)
        .includeAll(true)
        .allValue(".*")
        .refresh(2),
    );
}

export interface Placed {
  id: number;
  x: number;
  y: number;
  w: number;
  h: number;
}

export function ts(p: Placed, title: string, unit: string, targets: DataqueryBuilder[], opts: { min?: number; max?: number; decimals?: number; threshold?: number; lowIsBad?: boolean; description?: string } = {}): TimeseriesPanel {
  let panel = new TimeseriesPanel().id(p.id).title(title).datasource(DS).gridPos({ x: p.x, y: p.y, w: p.w, h: p.h }).unit(unit);
  if (opts.description) panel = panel.description(opts.description);
  if (opts.min !== undefined) panel = panel.min(opts.min);
  if (opts.max !== undefined) panel = panel.max(opts.max);
  if (opts.decimals !== undefined) panel = panel.decimals(opts.decimals);
  if (opts.threshold !== undefined) panel = panel.thresholds(thresholdLine(opts.threshold, opts.lowIsBad)).thresholdsStyle(new GraphThresholdsStyleConfigBuilder().mode(GraphThresholdsStyleMode.Line));
  for (const t of targets) panel = panel.withTarget(t);
  return panel;
}
