import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { GUARD_BYPASS_THRESHOLD, overviewDashboard } from "../../scripts/dashboards.ts";
import { panelQueries } from "../helpers/dashboards.ts";
import { promtoolAvailable, promtoolExprTests } from "../helpers/prometheus.ts";

const ROOT = join(import.meta.dirname, "..", "..");

const decisions = (route: string, decision: string, perMinute: number, reason?: string): { series: string; values: string } => ({
  series: `groundwatch_guard_decisions_total{groundwatch_route="${route}",groundwatch_guard_decision="${decision}"${reason ? `,groundwatch_reason="${reason}"` : ""}}`,
  values: `0+${perMinute}x40`,
});

describe("the overview's guard panels", () => {
  it("sit in a Guard row: decisions by type, and the bypass rate by reason with the threshold the bypass alert tickets on", () => {
    const panels = (overviewDashboard() as { panels: Array<{ type: string; title: string; fieldConfig?: { defaults?: { thresholds?: { steps?: Array<{ value: number | null }> } } } }> }).panels;
    const titles = panels.map((p) => p.title);
    const row = titles.indexOf("Guard");
    expect(row).toBeGreaterThan(-1);
    expect(titles.slice(row + 1, row + 4)).toEqual(["Guard decisions by type", "Guard bypass rate by reason", "Guard duration"]);
    const steps = panels.find((p) => p.title === "Guard bypass rate by reason")?.fieldConfig?.defaults?.thresholds?.steps ?? [];
    expect(steps.map((s) => s.value)).toContain(GUARD_BYPASS_THRESHOLD);
    const rules = parse(readFileSync(join(ROOT, "alerts", "rules.yml"), "utf8")) as { groups: Array<{ rules: Array<{ alert?: string; expr: string }> }> };
    const alert = rules.groups.flatMap((g) => g.rules).find((r) => r.alert === "GroundwatchGuardBypassHigh");
    expect(alert?.expr).toContain(`groundwatch:guard_bypass_rate:ratio_rate10m > ${GUARD_BYPASS_THRESHOLD}`);
  });

  it.skipIf(!promtoolAvailable())("draw decisions a second by type, and each bypass reason's share of all decisions (promtool)", () => {
    const [byType] = panelQueries().filter((q) => q.panel === "Guard decisions by type");
    const [byReason, all] = panelQueries().filter((q) => q.panel === "Guard bypass rate by reason");
    // Two routes, 40 decisions a minute in all: 24 pass, 8 block, 4 bypass budget_exceeded, 4 bypass scorer_error.
    const r = promtoolExprTests([
      {
        name: "guard panels",
        interval: "1m",
        input_series: [
          decisions("/a", "pass", 12),
          decisions("/b", "pass", 12),
          decisions("/a", "block", 8),
          decisions("/a", "bypass", 4, "budget_exceeded"),
          decisions("/b", "bypass", 4, "scorer_error"),
        ],
        promql_expr_test: [
          {
            expr: byType!.expr,
            eval_time: "20m",
            exp_samples: [
              { labels: '{groundwatch_guard_decision="pass"}', value: 0.4 },
              { labels: '{groundwatch_guard_decision="block"}', value: 8 / 60 },
              { labels: '{groundwatch_guard_decision="bypass"}', value: 8 / 60 },
            ],
          },
          {
            expr: `round(${byReason!.expr}, 0.001)`,
            eval_time: "20m",
            exp_samples: [
              { labels: '{groundwatch_reason="budget_exceeded"}', value: 0.1 },
              { labels: '{groundwatch_reason="scorer_error"}', value: 0.1 },
            ],
          },
          { expr: `round(${all!.expr}, 0.001)`, eval_time: "20m", exp_samples: [{ labels: "{}", value: 0.2 }] },
        ],
      },
      {
        name: "no guard check made",
        interval: "1m",
        input_series: [{ series: 'groundwatch_evaluations_total{groundwatch_route="/a",groundwatch_verdict="grounded"}', values: "0+1x40" }],
        promql_expr_test: [
          { expr: byReason!.expr, eval_time: "20m", exp_samples: [] },
          { expr: all!.expr, eval_time: "20m", exp_samples: [] },
        ],
      },
    ]);
    expect(r.output).toContain("SUCCESS");
    expect(r.status).toBe(0);
  });

  it("draws the guard duration panel in seconds, with a description", () => {
    const panels = (overviewDashboard() as { panels: Array<{ title: string; description?: string; fieldConfig?: { defaults?: { unit?: string } } }> }).panels;
    const panel = panels.find((p) => p.title === "Guard duration");
    expect(panel?.fieldConfig?.defaults?.unit).toBe("s");
    expect(panel?.description).toMatch(/groundwatch_guard_duration/);
    expect(panel?.description).toMatch(/budget/);
  });

  it.skipIf(!promtoolAvailable())("draw the guard duration's p50 and p99 by decision from the histogram's buckets, all routes together (promtool)", () => {
    const [p50, p99] = panelQueries().filter((q) => q.panel === "Guard duration");
    // Cumulative buckets a minute: 30 passes on each of two routes, all within 10 ms; 10 bypasses on /a, all between 100 ms and 1 s.
    const bucket = (route: string, decision: string, le: string, perMinute: number): { series: string; values: string } => ({
      series: `groundwatch_guard_duration_bucket{groundwatch_route="${route}",groundwatch_guard_decision="${decision}",le="${le}"}`,
      values: `0+${perMinute}x40`,
    });
    const les = ["0.01", "0.1", "1", "+Inf"];
    const r = promtoolExprTests([
      {
        name: "guard duration",
        interval: "1m",
        input_series: [...les.map((le) => bucket("/a", "pass", le, 30)), ...les.map((le) => bucket("/b", "pass", le, 30)), ...les.map((le) => bucket("/a", "bypass", le, le === "0.01" || le === "0.1" ? 0 : 10))],
        promql_expr_test: [
          {
            expr: `round(${p50!.expr}, 0.0001)`,
            eval_time: "20m",
            exp_samples: [
              { labels: '{groundwatch_guard_decision="pass"}', value: 0.005 },
              { labels: '{groundwatch_guard_decision="bypass"}', value: 0.55 },
            ],
          },
          {
            expr: `round(${p99!.expr}, 0.0001)`,
            eval_time: "20m",
            exp_samples: [
              { labels: '{groundwatch_guard_decision="pass"}', value: 0.0099 },
              { labels: '{groundwatch_guard_decision="bypass"}', value: 0.991 },
            ],
          },
        ],
      },
      {
        name: "no guard check made",
        interval: "1m",
        input_series: [{ series: 'groundwatch_evaluation_duration_bucket{groundwatch_route="/a",le="0.1"}', values: "0+1x40" }],
        promql_expr_test: [
          { expr: p50!.expr, eval_time: "20m", exp_samples: [] },
          { expr: p99!.expr, eval_time: "20m", exp_samples: [] },
        ],
      },
    ]);
    expect(r.output).toContain("SUCCESS");
    expect(r.status).toBe(0);
  });
});
