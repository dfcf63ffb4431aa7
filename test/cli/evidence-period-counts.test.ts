import { describe, expect, it } from "vitest";
import type { PromRow } from "../../src/cli/evidence/scoring.ts";
import { countRows, countText, periodCountQueries, seriesCounts, sumBy, total } from "../../src/cli/evidence/period-counts.ts";
import { promtoolAvailable, promtoolExprTests } from "../helpers/prometheus.ts";

const row = (metric: Record<string, string>, v: string): PromRow => ({ metric, value: [1_700_000_000, v] });

// Issue 36: evidence read counts with increase(), which extrapolates ("398.4 flagged answers") and
// loses the first value of a series that starts in the period; its route and backend tables, read
// from two counters, disagreed by one answer.
describe.skipIf(!promtoolAvailable())("the period's counts in PromQL (promtool)", () => {
  it("are each series' value at the period's end less its value before it, whole; a series that restarted is estimated apart", () => {
    // A 60 min period ending at 120 min; samples every minute.
    const { exact, estimated } = periodCountQueries("c_total", 'route=~".+"', "60m", "120m");
    const { output, status } = promtoolExprTests([
      {
        interval: "1m",
        input_series: [
          // One a minute since 0: 60 in the period.
          { series: 'c_total{route="/steady"}', values: "0+1x120" },
          // First scraped at 70 min with 5 already counted (a series that appears mid-window): 55 in the period, none lost.
          { series: 'c_total{route="/born"}', values: "_x70 5+1x50" },
          // Restarted at 81 min: no difference of two values holds; increase() estimates it (59).
          { series: 'c_total{route="/restarted"}', values: "0+1x80 0+1x39" },
          // Last scraped before the period: nothing in it.
          { series: 'c_total{route="/gone"}', values: "0+1x30" },
          // Another label set the matcher leaves out.
          { series: "c_total", values: "0+1x120" },
        ],
        promql_expr_test: [
          { expr: exact, eval_time: "120m", exp_samples: [{ labels: '{route="/steady"}', value: 60 }, { labels: '{route="/born"}', value: 55 }] },
          { expr: estimated, eval_time: "120m", exp_samples: [{ labels: '{route="/restarted"}', value: 59 }] },
        ],
      },
    ]);
    expect(output).toContain("SUCCESS");
    expect(status).toBe(0);
  });
});

describe("the period's counts, summed", () => {
  const counts = seriesCounts(
    [
      row({ groundwatch_route: "/a", groundwatch_verdict: "grounded", groundwatch_backend_name: "onnx", groundwatch_backend_tier: "production" }, "300"),
      row({ groundwatch_route: "/a", groundwatch_verdict: "ungrounded", groundwatch_backend_name: "onnx", groundwatch_backend_tier: "production" }, "98"),
      row({ groundwatch_route: "/b", groundwatch_verdict: "grounded", groundwatch_backend_name: "offline", groundwatch_backend_tier: "triage" }, "130"),
    ],
    [],
  );

  it("gives every table the same total, whatever it sums by", () => {
    const byRoute = sumBy(counts, ["groundwatch_route"]);
    const byBackend = sumBy(counts, ["groundwatch_backend_name", "groundwatch_backend_tier"]);
    const sum = (m: Map<string, { count: number }>): number => [...m.values()].reduce((n, c) => n + c.count, 0);
    expect(sum(byRoute)).toBe(528);
    expect(sum(byBackend)).toBe(528);
    expect(total(counts)).toEqual({ count: 528, exact: true });
    expect(countText(byRoute.get("/a") ?? { count: -1, exact: false })).toBe("398");
    expect(countRows(byBackend, ["groundwatch_backend_name", "groundwatch_backend_tier"], 9)).toEqual([
      { metric: { groundwatch_backend_name: "onnx", groundwatch_backend_tier: "production" }, value: [9, "398"] },
      { metric: { groundwatch_backend_name: "offline", groundwatch_backend_tier: "triage" }, value: [9, "130"] },
    ]);
  });

  it("says about for a sum with an estimated series in it, and keeps counts whole and non-negative", () => {
    const mixed = seriesCounts([row({ groundwatch_route: "/a" }, "10")], [row({ groundwatch_route: "/a" }, "3.6"), row({ groundwatch_route: "/b" }, "NaN"), row({ groundwatch_route: "/c" }, "-2")]);
    const byRoute = sumBy(mixed, ["groundwatch_route"]);
    expect(byRoute.get("/a")).toEqual({ count: 14, exact: false });
    expect(countText(byRoute.get("/a") ?? { count: 0, exact: true })).toBe("about 14");
    expect(byRoute.get("/b")?.count).toBe(0);
    expect(byRoute.get("/c")?.count).toBe(0);
  });
});
