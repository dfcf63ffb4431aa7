import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { HALLUCINATION_THRESHOLD, INVALID_CITATION_THRESHOLD, RESAMPLE_SUCCESS_THRESHOLD, TRENDS_RETENTION_DAYS, dashboardFiles, ratio } from "../../scripts/dashboards.ts";
import { RESAMPLER_PANELS } from "../helpers/dashboards.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

describe("dashboards as code", () => {
  it("the committed JSON matches the generator (run `npm run build:dashboards` after changing it)", () => {
    for (const [name, text] of Object.entries(dashboardFiles())) {
      expect(readFileSync(`${ROOT}/dashboards/${name}`, "utf8"), `dashboards/${name} is stale`).toBe(text);
    }
  });

  it("gives every panel a unique id and a query, and takes datasource and route as variables", () => {
    for (const text of Object.values(dashboardFiles())) {
      const d = JSON.parse(text) as { panels: Array<{ id: number; type: string; targets?: Array<{ expr: string }> }>; templating: { list: Array<{ name: string }> } };
      const ids = d.panels.map((p) => p.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const p of d.panels.filter((x) => x.type !== "row")) expect(p.targets?.[0]?.expr, `panel ${p.id}`).toBeTruthy();
      expect(d.templating.list.map((v) => v.name)).toEqual(["datasource", "route"]);
    }
  });

  it("draws the same hallucination threshold the alerts page on", () => {
    const rules = parse(readFileSync(`${ROOT}/alerts/rules.yml`, "utf8")) as { groups: Array<{ rules: Array<{ alert?: string; expr: string }> }> };
    const high = rules.groups.flatMap((g) => g.rules).find((r) => r.alert === "GroundwatchHallucinationRateHigh");
    expect(high?.expr).toContain(`> ${HALLUCINATION_THRESHOLD.toFixed(2)}`);
  });

  it("groups the resampler's panels, and entropy by route, in the overview's live semantic entropy row", () => {
    const d = JSON.parse(dashboardFiles()["overview.json"]!) as { panels: Array<{ type: string; title: string }> };
    const start = d.panels.findIndex((p) => p.type === "row" && p.title === "Live semantic entropy (resampling)");
    expect(start).toBeGreaterThan(0);
    const end = d.panels.findIndex((p, i) => i > start && p.type === "row");
    expect(d.panels.slice(start + 1, end === -1 ? undefined : end).map((p) => p.title)).toEqual([
      "Resampler calls by outcome",
      "Resampler success rate by route",
      "Resampler tokens per minute, by kind",
      "Resampler latency",
      "Semantic entropy by route",
      "Unstable-claim share by route",
    ]);
    // The panels the end-to-end test expects no data from while resampling is off are all in this row.
    for (const title of RESAMPLER_PANELS) expect(d.panels.findIndex((p) => p.title === title), title).toBeGreaterThan(start);
  });

  it("draws the resampler success threshold the resample alert tickets on, red below it, and leaves budget skips and shutdown aborts out of the share", () => {
    const rules = parse(readFileSync(`${ROOT}/alerts/rules.yml`, "utf8")) as { groups: Array<{ rules: Array<{ alert?: string; record?: string; expr: string }> }> };
    const all = rules.groups.flatMap((g) => g.rules);
    expect(all.find((r) => r.alert === "GroundwatchResampleFailing")?.expr).toContain(`< ${RESAMPLE_SUCCESS_THRESHOLD.toFixed(2)}`);
    expect(all.find((r) => r.record === "groundwatch:resample_success:ratio_rate30m")?.expr).toContain('groundwatch_resample_outcome=~"ok|error|too_large|timeout|short"');
    const d = JSON.parse(dashboardFiles()["overview.json"]!) as { panels: Array<{ title: string; targets?: Array<{ expr: string }>; fieldConfig?: { defaults: { thresholds?: { steps: Array<{ value: number | null; color: string }> } } } }> };
    const panel = d.panels.find((p) => p.title === "Resampler success rate by route");
    expect(panel?.fieldConfig?.defaults.thresholds?.steps).toEqual([
      { value: null, color: "red" },
      { value: RESAMPLE_SUCCESS_THRESHOLD, color: "green" },
    ]);
    expect(panel?.targets?.[0]?.expr).toContain('groundwatch_resample_outcome=~"ok|error|too_large|timeout|short"');
  });

  it("draws invalid and misattributed citation shares by route in a citations row, with the threshold the invalid-citation alert tickets on", () => {
    const rules = parse(readFileSync(`${ROOT}/alerts/rules.yml`, "utf8")) as { groups: Array<{ rules: Array<{ alert?: string; record?: string; expr: string }> }> };
    const all = rules.groups.flatMap((g) => g.rules);
    expect(all.find((r) => r.alert === "GroundwatchInvalidCitationsHigh")?.expr).toContain(`> ${INVALID_CITATION_THRESHOLD.toFixed(2)}`);
    expect(all.find((r) => r.record === "groundwatch:invalid_citation_rate:ratio_rate1h")?.expr).toContain('groundwatch_citation_status="not_retrieved"');
    const d = JSON.parse(dashboardFiles()["overview.json"]!) as { panels: Array<{ type: string; title: string; targets?: Array<{ expr: string; legendFormat?: string }>; fieldConfig?: { defaults: { unit?: string; thresholds?: { steps: Array<{ value: number | null; color: string }> } } } }> };
    const start = d.panels.findIndex((p) => p.type === "row" && p.title === "Citations");
    const end = d.panels.findIndex((p, i) => i > start && p.type === "row");
    expect(d.panels.slice(start + 1, end).map((p) => p.title)).toEqual(["Invalid and misattributed citations by route", "Citations by status"]);
    const rates = d.panels.find((p) => p.title === "Invalid and misattributed citations by route");
    expect(rates?.fieldConfig?.defaults.unit).toBe("percentunit");
    expect(rates?.fieldConfig?.defaults.thresholds?.steps).toEqual([
      { value: null, color: "green" },
      { value: INVALID_CITATION_THRESHOLD, color: "red" },
    ]);
    const allCitations = 'sum by (groundwatch_route) (rate(groundwatch_citations_total{groundwatch_route=~"$route"}[$__rate_interval]))';
    expect(rates?.targets?.map((t) => [t.legendFormat, t.expr])).toEqual([
      ["invalid {{groundwatch_route}}", ratio('sum by (groundwatch_route) (rate(groundwatch_citations_total{groundwatch_citation_status="not_retrieved", groundwatch_route=~"$route"}[$__rate_interval]))', allCitations)],
      ["misattributed {{groundwatch_route}}", ratio('sum by (groundwatch_route) (rate(groundwatch_citations_total{groundwatch_citation_status="misattributed", groundwatch_route=~"$route"}[$__rate_interval]))', allCitations)],
    ]);
  });

  it("divides ratios by (denominator > 0), never by clamp_min(…, 1e-9): nothing scored is no data, not 0%", () => {
    for (const [name, text] of Object.entries(dashboardFiles())) expect(text, name).not.toContain("clamp_min");
    expect(readFileSync(`${ROOT}/alerts/rules.yml`, "utf8")).not.toContain("clamp_min");
    expect(ratio("a", "b")).toBe("(a or b * 0) / (b > 0)");
  });

  it("draws mean groundedness as a 0–1 score with decimals, not a percentage", () => {
    const d = JSON.parse(dashboardFiles()["overview.json"]!) as { panels: Array<{ title: string; fieldConfig?: { defaults: { unit?: string; min?: number; max?: number; decimals?: number } } }> };
    const mean = d.panels.find((p) => p.title === "Mean groundedness by route");
    expect(mean?.fieldConfig?.defaults).toMatchObject({ unit: "none", min: 0, max: 1, decimals: 2 });
  });

  it("says in the trends dashboard how much Prometheus retention its 90-day window needs", () => {
    const d = JSON.parse(dashboardFiles()["trends.json"]!) as { description?: string };
    expect(d.description).toContain(`at least ${TRENDS_RETENTION_DAYS} days`);
  });
});
