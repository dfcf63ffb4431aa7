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
    expect(titles.slice(row + 1, row + 3)).toEqual(["Guard decisions by type", "Guard bypass rate by reason"]);
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
});
