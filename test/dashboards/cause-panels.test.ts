import { describe, expect, it } from "vitest";
import { panelQueries } from "../helpers/dashboards.ts";
import { promtoolAvailable, promtoolExprTests } from "../helpers/prometheus.ts";

const series = (name: string, labels: string, perStep: number): { series: string; values: string } => ({ series: `${name}{${labels}}`, values: `0+${perStep}x40` });
const evaluations = (route: string, verdict: string, cause: string | undefined, perStep: number): { series: string; values: string } =>
  series("groundwatch_evaluations_total", `groundwatch_route="${route}",groundwatch_verdict="${verdict}"${cause ? `,groundwatch_cause="${cause}"` : ""}`, perStep);

/**
 * Synthetic series, 15 s apart for 10 minutes (per-step increments; ×4 for a minute): /a scores 16
 * answers a minute, 2 ungrounded with cause retrieval and 2 with cause generation, and measures
 * relevance; /old's ungrounded answers carry no cause (an older groundwatch); /clean has none ungrounded.
 */
const INPUT = [
  evaluations("/a", "grounded", undefined, 3),
  evaluations("/a", "ungrounded", "retrieval", 0.5),
  evaluations("/a", "ungrounded", "generation", 0.5),
  evaluations("/old", "grounded", undefined, 1),
  evaluations("/old", "ungrounded", undefined, 1),
  evaluations("/clean", "grounded", undefined, 1),
  // Context relevance on /a: mean 0.6; a fifth of the answers in (0.1, 0.2], none below 0.1.
  series("groundwatch_context_relevance_sum", 'groundwatch_route="/a"', 0.6),
  series("groundwatch_context_relevance_count", 'groundwatch_route="/a"', 1),
  series("groundwatch_context_relevance_bucket", 'groundwatch_route="/a",le="0.1"', 0),
  series("groundwatch_context_relevance_bucket", 'groundwatch_route="/a",le="0.2"', 0.2),
  series("groundwatch_context_relevance_bucket", 'groundwatch_route="/a",le="1"', 1),
  series("groundwatch_context_relevance_bucket", 'groundwatch_route="/a",le="+Inf"', 1),
  series("groundwatch_answer_relevance_sum", 'groundwatch_route="/a"', 0.9),
  series("groundwatch_answer_relevance_count", 'groundwatch_route="/a"', 1),
  // Claims on /a: 4 unsupported (retrieval) and 2 contradicted (generation) a minute; supported ones carry no cause.
  series("groundwatch_claims_total", 'groundwatch_route="/a",groundwatch_claim_verdict="unsupported",groundwatch_cause="retrieval"', 1),
  series("groundwatch_claims_total", 'groundwatch_route="/a",groundwatch_claim_verdict="contradicted",groundwatch_cause="generation"', 0.5),
  series("groundwatch_claims_total", 'groundwatch_route="/a",groundwatch_claim_verdict="supported"', 5),
  // Unknown causes on /a: 2 weak failures and 1 borderline relevance a minute.
  series("groundwatch_cause_unknown_total", 'groundwatch_route="/a",groundwatch_reason="weak_failure"', 0.5),
  series("groundwatch_cause_unknown_total", 'groundwatch_route="/a",groundwatch_reason="borderline_relevance"', 0.25),
];

type Samples = Array<{ labels: string; value: number }>;

/** What each panel query shows at 10 minutes, rounded to 0.001: one list per target, in order. */
const EXPECTED: Record<string, Samples[]> = {
  // The causes stack up to the route's rate (dashed): 2 + 2 of 16 on /a; /old's show as "not recorded"; /clean is 0 with no stack.
  "Hallucination rate by cause: $route": [
    [
      { labels: '{groundwatch_route="/a",groundwatch_cause="retrieval"}', value: 0.125 },
      { labels: '{groundwatch_route="/a",groundwatch_cause="generation"}', value: 0.125 },
      { labels: '{groundwatch_route="/old",groundwatch_cause="not recorded"}', value: 0.5 },
    ],
    [
      { labels: '{groundwatch_route="/a"}', value: 0.25 },
      { labels: '{groundwatch_route="/old"}', value: 0.5 },
      { labels: '{groundwatch_route="/clean"}', value: 0 },
    ],
  ],
  "Context relevance by route": [[{ labels: '{groundwatch_route="/a"}', value: 0.6 }], [{ labels: '{groundwatch_route="/a"}', value: 0.15 }]],
  "Answer relevance by route": [[{ labels: '{groundwatch_route="/a"}', value: 0.9 }]],
  // Per second: 4 and 2 a minute.
  "Claims not supported, by cause": [
    [
      { labels: '{groundwatch_cause="retrieval"}', value: 0.067 },
      { labels: '{groundwatch_cause="generation"}', value: 0.033 },
    ],
    [{ labels: "{}", value: 0.1 }],
  ],
  // The routes selected, together, per step: 0.5 retrieval, 0.5 generation and 1 without a cause, of 7 scored answers.
  "Hallucination rate by cause, 30-day window": [
    [
      { labels: '{groundwatch_cause="retrieval"}', value: 0.071 },
      { labels: '{groundwatch_cause="generation"}', value: 0.071 },
      { labels: '{groundwatch_cause="not recorded"}', value: 0.143 },
    ],
    [{ labels: "{}", value: 0.286 }],
  ],
  "Context relevance, 30-day mean by route": [[{ labels: '{groundwatch_route="/a"}', value: 0.6 }]],
  // Per second: 2 and 1 a minute (and the flat 0 that keeps the panel drawn when there are none).
  "Ungrounded answers of unknown cause, by reason": [
    [
      { labels: "{}", value: 0 },
      { labels: '{groundwatch_reason="weak_failure"}', value: 0.033 },
      { labels: '{groundwatch_reason="borderline_relevance"}', value: 0.017 },
    ],
  ],
};

describe.skipIf(!promtoolAvailable())("the cause and relevance panels on synthetic series (promtool)", () => {
  it("split the hallucination rate by cause up to the rate, and compute relevance means, p10 and claims by cause; no relevance measured is no data", () => {
    const queries = panelQueries().filter((q) => q.panel in EXPECTED);
    expect(new Set(queries.map((q) => q.panel))).toEqual(new Set(Object.keys(EXPECTED)));
    const tests = Object.entries(EXPECTED).flatMap(([panel, targets]) => {
      const exprs = queries.filter((q) => q.panel === panel);
      expect(exprs.length, panel).toBe(targets.length);
      return targets.map((exp_samples, i) => ({ expr: `round(${exprs[i]!.expr}, 0.001)`, eval_time: "10m", exp_samples }));
    });
    // Answers scored, but no relevance measured (a backend without it) and none ungrounded: the
    // relevance panels are no data, not 0, and the by-cause stack is empty.
    const relevance = queries.filter((q) => /relevance/i.test(q.panel) || q.expr.startsWith("label_replace"));
    expect(relevance.length).toBeGreaterThanOrEqual(5);
    const none = relevance.map((q) => ({ expr: q.expr, eval_time: "10m", exp_samples: [] }));
    const r = promtoolExprTests(
      [
          { name: "cause and relevance panels", interval: "15s", input_series: INPUT, promql_expr_test: tests },
          { name: "no relevance, nothing ungrounded", interval: "15s", input_series: [evaluations("/b", "grounded", undefined, 1)], promql_expr_test: none },
      ],
    );
    expect(r.output).toContain("SUCCESS");
    expect(r.status).toBe(0);
  });
});
