import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { HALLUCINATION_THRESHOLD, TRENDS_RETENTION_DAYS, dashboardFiles, ratio } from "../../scripts/dashboards.ts";

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
