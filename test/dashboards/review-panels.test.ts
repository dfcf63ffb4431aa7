import { describe, expect, it } from "vitest";
import { panelQueries } from "../helpers/dashboards.ts";
import { promtoolAvailable, promtoolExprTests } from "../helpers/prometheus.ts";

const labelled = (replica: string, kind: string, agreement: string, n: number): { series: string; values: string } => ({
  series: `groundwatch_review_labels{instance="${replica}",groundwatch_review_kind="${kind}",groundwatch_review_agreement="${agreement}"}`,
  values: `${n}x40`,
});

/**
 * Two replicas' gauges: flagged 8 agree + 2 disagree and 3 + 1 (11 of 14 right); grounded samples
 * 19 agree + 1 disagree on the first, none reviewed on the second (1 of 20 missed).
 */
const INPUT = [
  labelled("a", "flagged", "agree", 8),
  labelled("a", "flagged", "disagree", 2),
  labelled("b", "flagged", "agree", 3),
  labelled("b", "flagged", "disagree", 1),
  labelled("a", "grounded_sample", "agree", 19),
  labelled("a", "grounded_sample", "disagree", 1),
  labelled("b", "grounded_sample", "agree", 0),
  labelled("b", "grounded_sample", "disagree", 0),
];

describe("the overview's Review agreement panel", () => {
  it("is on the overview with the precision of the flags and the miss rate of grounded samples", () => {
    const queries = panelQueries().filter((q) => q.panel === "Review agreement");
    expect(queries.map((q) => q.dashboard)).toEqual(["overview.json", "overview.json"]);
  });

  it.skipIf(!promtoolAvailable())("computes them from groundwatch_review_labels, and is no data where nothing of a kind was reviewed (promtool)", () => {
    const [precision, miss] = panelQueries().filter((q) => q.panel === "Review agreement");
    const r = promtoolExprTests([
      {
        name: "review agreement",
        interval: "15s",
        input_series: INPUT,
        promql_expr_test: [
          { expr: `round(${precision!.expr}, 0.001)`, eval_time: "5m", exp_samples: [{ labels: "{}", value: 0.786 }] },
          { expr: `round(${miss!.expr}, 0.001)`, eval_time: "5m", exp_samples: [{ labels: "{}", value: 0.05 }] },
        ],
      },
      {
        name: "nothing reviewed",
        interval: "15s",
        input_series: [labelled("a", "flagged", "agree", 0), labelled("a", "flagged", "disagree", 0)],
        promql_expr_test: [
          { expr: precision!.expr, eval_time: "5m", exp_samples: [] },
          { expr: miss!.expr, eval_time: "5m", exp_samples: [] },
        ],
      },
    ]);
    expect(r.output).toContain("SUCCESS");
    expect(r.status).toBe(0);
  });
});

describe("the overview's review spool panel", () => {
  it.skipIf(!promtoolAvailable())("draws answers written by kind and skipped by reason, a second (promtool)", () => {
    const [written, skipped] = panelQueries().filter((q) => q.panel === "Review spool: answers written and skipped");
    const r = promtoolExprTests([
      {
        name: "review spool",
        interval: "15s",
        input_series: [
          { series: 'groundwatch_review_spooled_total{instance="a",groundwatch_review_kind="flagged"}', values: "0+3x40" },
          { series: 'groundwatch_review_spooled_total{instance="b",groundwatch_review_kind="flagged"}', values: "0+3x40" },
          { series: 'groundwatch_review_skipped_total{instance="a",groundwatch_reason="bytes"}', values: "0+15x40" },
        ],
        promql_expr_test: [
          { expr: written!.expr, eval_time: "5m", exp_samples: [{ labels: '{groundwatch_review_kind="flagged"}', value: 0.4 }] },
          { expr: skipped!.expr, eval_time: "5m", exp_samples: [{ labels: '{groundwatch_reason="bytes"}', value: 1 }] },
        ],
      },
    ]);
    expect(r.output).toContain("SUCCESS");
    expect(r.status).toBe(0);
  });
});
