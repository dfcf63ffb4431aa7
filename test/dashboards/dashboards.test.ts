import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { CONTEXT_RELEVANCE_DROP, HALLUCINATION_THRESHOLD, INVALID_CITATION_THRESHOLD, LINK_VARIABLES, RESAMPLE_SUCCESS_THRESHOLD, TRENDS_RETENTION_DAYS, dashboardFiles, ratio } from "../../scripts/dashboards.ts";
import * as semconv from "../../src/telemetry/semconv.ts";
import { RESAMPLER_PANELS } from "../helpers/dashboards.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

describe("dashboards as code", () => {
  it("the committed JSON matches the generator (run `npm run build:dashboards` after changing it)", () => {
    for (const [name, text] of Object.entries(dashboardFiles())) {
      expect(readFileSync(`${ROOT}/dashboards/${name}`, "utf8"), `dashboards/${name} is stale`).toBe(text);
    }
  });

  it("gives every panel a unique id and a query, and takes datasource and route as variables (the overview also the bases of its links)", () => {
    for (const [name, text] of Object.entries(dashboardFiles())) {
      const d = JSON.parse(text) as { panels: Array<{ id: number; type: string; targets?: Array<{ expr: string }> }>; templating: { list: Array<{ name: string }> } };
      const ids = d.panels.map((p) => p.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const p of d.panels.filter((x) => x.type !== "row")) expect(p.targets?.[0]?.expr, `panel ${p.id}`).toBeTruthy();
      expect(d.templating.list.map((v) => v.name)).toEqual(name === "overview.json" ? ["datasource", "route", "collector", "jaeger", "trace_service"] : ["datasource", "route"]);
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

  it("reads only metrics and labels groundwatch emits: every name in a panel or rule query is in src/telemetry/semconv.ts", () => {
    // A histogram's series add _bucket, _sum and _count to its Prometheus name.
    const metrics = new Set(Object.values(semconv.METRICS).flatMap((m) => (m.kind === "histogram" ? ["_bucket", "_sum", "_count"].map((x) => `${m.prometheus}${x}`) : [m.prometheus])));
    const labels = new Set(Object.entries(semconv).flatMap(([k, v]) => (k.startsWith("ATTR_") && typeof v === "string" ? [v.replace(/\./g, "_")] : [])));
    const rules = parse(readFileSync(`${ROOT}/alerts/rules.yml`, "utf8")) as { groups: Array<{ rules: Array<{ expr: string }> }> };
    const exprs = [...Object.values(dashboardFiles()).flatMap((text) => (JSON.parse(text) as { panels: Array<{ targets?: Array<{ expr: string }> }> }).panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr))), ...rules.groups.flatMap((g) => g.rules.map((r) => r.expr))];
    const unknown = new Set(exprs.flatMap((e) => [...e.matchAll(/\bgroundwatch_\w+/g)].map((m) => m[0]).filter((n) => !metrics.has(n) && !labels.has(n))));
    expect([...unknown]).toEqual([]);
    // Issue 27's names, so this test cannot pass by not reading them.
    const all = exprs.join("\n");
    for (const name of ["groundwatch_context_relevance_sum", "groundwatch_context_relevance_bucket", "groundwatch_answer_relevance_count", "groundwatch_cause"]) expect(all, name).toContain(name);
  });

  it("draws the hallucination rate by cause, one stacked panel per route adding up to the dashed rate, with the paging threshold", () => {
    const d = JSON.parse(dashboardFiles()["overview.json"]!) as { panels: Array<{ type: string; title: string; repeat?: string; targets?: Array<{ expr: string; legendFormat?: string }>; fieldConfig: { defaults: { unit?: string; custom?: { stacking?: { mode: string } }; thresholds?: { steps: Array<{ value: number | null }> } }; overrides: Array<{ matcher: { options: string }; properties: Array<{ id: string; value: unknown }> }> } }> };
    const start = d.panels.findIndex((p) => p.type === "row" && p.title === "Cause and relevance");
    const end = d.panels.findIndex((p, i) => i > start && p.type === "row");
    expect(d.panels.slice(start + 1, end).map((p) => p.title)).toEqual(["Hallucination rate by cause: $route", "Context relevance by route", "Answer relevance by route", "Claims not supported, by cause", "Ungrounded answers of unknown cause, by reason"]);
    const panel = d.panels[start + 1]!;
    expect(panel.repeat).toBe("route");
    expect(panel.fieldConfig.defaults.unit).toBe("percentunit");
    expect(panel.fieldConfig.defaults.custom?.stacking?.mode).toBe("normal");
    expect(panel.fieldConfig.defaults.thresholds?.steps[1]?.value).toBe(HALLUCINATION_THRESHOLD);
    expect(panel.targets?.map((t) => t.legendFormat)).toEqual(["{{groundwatch_cause}}", "all causes"]);
    expect(panel.targets?.[0]?.expr).toContain('sum by (groundwatch_route, groundwatch_cause) (rate(groundwatch_evaluations_total{groundwatch_verdict="ungrounded"');
    expect(panel.fieldConfig.overrides.find((o) => o.matcher.options === "all causes")?.properties).toContainEqual({ id: "custom.stacking", value: { mode: "none", group: "A" } });
  });

  it("ties the context relevance drop the alert tickets on to the panel's description, and keeps relevance a 0–1 score", () => {
    const rules = parse(readFileSync(`${ROOT}/alerts/rules.yml`, "utf8")) as { groups: Array<{ rules: Array<{ alert?: string; expr: string }> }> };
    const drop = rules.groups.flatMap((g) => g.rules).find((r) => r.alert === "GroundwatchContextRelevanceDrop");
    expect(drop?.expr).toContain(`avg_over_time(groundwatch:context_relevance_mean:rate1h[7d]) - ${CONTEXT_RELEVANCE_DROP}`);
    const d = JSON.parse(dashboardFiles()["overview.json"]!) as { panels: Array<{ title: string; description?: string; fieldConfig?: { defaults: { unit?: string; min?: number; max?: number; decimals?: number } } }> };
    for (const title of ["Context relevance by route", "Answer relevance by route"]) expect(d.panels.find((p) => p.title === title)?.fieldConfig?.defaults, title).toMatchObject({ unit: "none", min: 0, max: 1, decimals: 2 });
    expect(d.panels.find((p) => p.title === "Context relevance by route")?.description).toContain(`${CONTEXT_RELEVANCE_DROP} below its 7-day average`);
  });

  it("links each route to its flagged answers and to the Jaeger search for its flagged evaluations, from the bases the alerts default to", () => {
    const d = JSON.parse(dashboardFiles()["overview.json"]!) as { panels: Array<{ title: string; fieldConfig?: { defaults: { links?: Array<{ title: string; url: string; targetBlank: boolean }> } } }> };
    for (const title of ["Hallucination rate by route", "Hallucination rate by cause: $route"]) {
      const links = d.panels.find((p) => p.title === title)?.fieldConfig?.defaults.links ?? [];
      expect(links.map((l) => l.url.split("?")[0]), title).toEqual(["${collector}/v1/flagged", "${jaeger}/search"]);
      expect(links[0]?.url, title).toMatch(/^\$\{collector\}\/v1\/flagged\?route=\$\{__field\.labels\.groundwatch_route:percentencode\}/);
      const search = new URLSearchParams(links[1]!.url.split("?")[1]!.replaceAll("${__field.labels.groundwatch_route:percentencode}", "%2Fapi%2Fask"));
      expect(search.get("service")).toBe("${trace_service:percentencode}");
      expect(JSON.parse(search.get("tags") ?? "")).toEqual({ "groundwatch.route": "/api/ask", "groundwatch.verdict": "ungrounded" });
      for (const l of links) expect(l.targetBlank).toBe(true);
    }
    // The alerts' annotations default to the same bases and service (alerts/rules.yml).
    const rules = readFileSync(`${ROOT}/alerts/rules.yml`, "utf8");
    const defaults = Object.fromEntries(LINK_VARIABLES.map((v) => [v.name, v.value]));
    expect(rules).toContain(`{{ with $externalLabels.groundwatch_collector_base }}{{ . }}{{ else }}${defaults.collector}{{ end }}/v1/flagged`);
    expect(rules).toContain(`{{ with $externalLabels.groundwatch_jaeger_base }}{{ . }}{{ else }}${defaults.jaeger}{{ end }}/search`);
    expect(rules).toContain(`{{ with $externalLabels.groundwatch_trace_service }}{{ . | urlquery }}{{ else }}${defaults.trace_service}{{ end }}`);
  });
});
