import { describe, expect, it } from "vitest";
import { panelQueries } from "../helpers/dashboards.ts";
import { promtoolAvailable, promtoolExprTests } from "../helpers/prometheus.ts";

const calls = (route: string, outcome: string, perStep: number): { series: string; values: string } => ({ series: `groundwatch_resample_calls_total{groundwatch_route="${route}",groundwatch_resample_outcome="${outcome}"}`, values: `0+${perStep}x40` });

/**
 * Synthetic resampler series, 15 s apart for 10 minutes (per-step increments; ×4 for a minute):
 * /a makes 4 calls a minute, 3 ok and 1 error, skips 40 on the budget and has 1 aborted by a
 * shutdown; /b only skips (no call made); /c checks claims against resamples and finds none unstable.
 */
const INPUT = [
  calls("/a", "ok", 0.75),
  calls("/a", "error", 0.25),
  calls("/a", "budget", 10),
  calls("/a", "shutdown", 0.25),
  calls("/b", "budget", 10),
  { series: 'groundwatch_resample_tokens_total{groundwatch_route="/a",groundwatch_token_kind="prompt"}', values: "0+100x40" },
  { series: 'groundwatch_resample_tokens_total{groundwatch_route="/a",groundwatch_token_kind="completion"}', values: "0+50x40" },
  // Half the calls take up to 0.5 s, the other half 0.5–1 s.
  { series: 'groundwatch_resample_duration_bucket{groundwatch_route="/a",le="0.5"}', values: "0+1x40" },
  { series: 'groundwatch_resample_duration_bucket{groundwatch_route="/a",le="1"}', values: "0+2x40" },
  { series: 'groundwatch_resample_duration_bucket{groundwatch_route="/a",le="+Inf"}', values: "0+2x40" },
  // Entropy on /a: half the sets up to 0.2, the rest 0.2–0.6.
  { series: 'groundwatch_entropy_bucket{groundwatch_route="/a",groundwatch_backend_name="onnx",groundwatch_backend_tier="production",le="0.2"}', values: "0+1x40" },
  { series: 'groundwatch_entropy_bucket{groundwatch_route="/a",groundwatch_backend_name="onnx",groundwatch_backend_tier="production",le="0.6"}', values: "0+2x40" },
  { series: 'groundwatch_entropy_bucket{groundwatch_route="/a",groundwatch_backend_name="onnx",groundwatch_backend_tier="production",le="+Inf"}', values: "0+2x40" },
  { series: 'groundwatch_claims_resampled_total{groundwatch_route="/a"}', values: "0+4x40" },
  { series: 'groundwatch_claims_unstable_total{groundwatch_route="/a"}', values: "0+1x40" },
  { series: 'groundwatch_claims_resampled_total{groundwatch_route="/c"}', values: "0+2x40" },
];

/** What each panel query shows at 10 minutes, rounded to 0.001: one list per target, in order. */
const EXPECTED: Record<string, Array<Array<{ labels: string; value: number }>>> = {
  // Per second: 3 ok, 1 error, 40 budget and 1 shutdown a minute on /a, 40 budget on /b.
  "Resampler calls by outcome": [
    [
      { labels: '{groundwatch_resample_outcome="ok"}', value: 0.05 },
      { labels: '{groundwatch_resample_outcome="error"}', value: 0.017 },
      { labels: '{groundwatch_resample_outcome="budget"}', value: 1.333 },
      { labels: '{groundwatch_resample_outcome="shutdown"}', value: 0.017 },
    ],
  ],
  // 3 of 4 calls; budget skips and shutdown aborts count for neither side, and /b, which made none, is no data.
  "Resampler success rate by route": [[{ labels: '{groundwatch_route="/a"}', value: 0.75 }]],
  "Resampler tokens per minute, by kind": [
    [
      { labels: '{groundwatch_token_kind="prompt"}', value: 400 },
      { labels: '{groundwatch_token_kind="completion"}', value: 200 },
    ],
  ],
  "Resampler latency": [[{ labels: "{}", value: 0.5 }], [{ labels: "{}", value: 0.99 }]],
  "Semantic entropy by route": [[{ labels: '{groundwatch_route="/a"}', value: 0.2 }], [{ labels: '{groundwatch_route="/a"}', value: 0.52 }]],
  // 1 of 4 claims unstable on /a; claims checked and none unstable on /c is 0, not no data.
  "Unstable-claim share by route": [
    [
      { labels: '{groundwatch_route="/a"}', value: 0.25 },
      { labels: '{groundwatch_route="/c"}', value: 0 },
    ],
  ],
};

describe.skipIf(!promtoolAvailable())("the live semantic entropy panels on synthetic resampler series (promtool)", () => {
  it("compute outcomes, success share without budget skips or shutdown aborts, tokens per minute, latency, entropy and unstable share", () => {
    const queries = panelQueries().filter((q) => q.dashboard === "overview.json" && q.panel in EXPECTED);
    expect(new Set(queries.map((q) => q.panel))).toEqual(new Set(Object.keys(EXPECTED)));
    const tests = Object.entries(EXPECTED).flatMap(([panel, targets]) => {
      const exprs = queries.filter((q) => q.panel === panel);
      expect(exprs.length, panel).toBe(targets.length);
      return targets.map((exp_samples, i) => ({ expr: `round(${exprs[i]!.expr}, 0.001)`, eval_time: "10m", exp_samples }));
    });
    // Answers scored, but nothing resampled and no samples sent: every panel of the row is no data, not 0.
    const off = queries.map((q) => ({ expr: q.expr, eval_time: "10m", exp_samples: [] }));
    const r = promtoolExprTests(
      [
          { name: "resampler panels", interval: "15s", input_series: INPUT, promql_expr_test: tests },
          { name: "nothing resampled", interval: "15s", input_series: [{ series: 'groundwatch_evaluations_total{groundwatch_route="/a",groundwatch_verdict="grounded"}', values: "0+1x40" }], promql_expr_test: off },
      ],
    );
    expect(r.output).toContain("SUCCESS");
    expect(r.status).toBe(0);
  });
});
