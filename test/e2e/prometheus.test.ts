import { describe, expect, it, onTestFinished } from "vitest";
import { startCollector } from "../../src/collector/server.ts";
import { prometheusAvailable, startPrometheus } from "../helpers/prometheus.ts";
import { waitUntil } from "../helpers/wait.ts";

const DOC = "Returns: you may return unopened items within 30 days of delivery for a full refund.";

describe.skipIf(!prometheusAvailable())("a real Prometheus scraping the collector", () => {
  it("stores groundwatch's series with their labels and values", { timeout: 60_000 }, async () => {
    const collector = await startCollector({ env: { HF_HOME: "/nonexistent" }, port: 0, monitor: { sampling: { default: 1 }, scoring: { backend: "offline" } } });
    onTestFinished(() => collector.close(2000));
    await collector.monitor.ready();
    const rows = [
      ...Array.from({ length: 6 }, () => ({ route: "/api/returns", context: [DOC], answer: "Unopened items can be returned within 30 days of delivery." })),
      ...Array.from({ length: 4 }, () => ({ route: "/api/returns", context: [DOC], answer: "Items can be returned within 90 days of delivery." })),
    ];
    const res = await fetch(`${collector.url}/v1/observations`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(rows) });
    expect(res.status).toBe(202);
    await collector.monitor.flush();
    const prom = await startPrometheus(collector.url.replace("http://", ""));
    const evaluations = await waitUntil("both verdicts' series scraped", () => prom.query('groundwatch_evaluations_total{groundwatch_route="/api/returns"}'), (r) => r.length >= 2, { timeout: 30_000, interval: 500 });
    // Ungrounded answers are split by cause (every cause's series started at 0): summed per verdict.
    const byVerdict: Record<string, number> = {};
    for (const r of evaluations) byVerdict[r.metric.groundwatch_verdict ?? ""] = (byVerdict[r.metric.groundwatch_verdict ?? ""] ?? 0) + Number(r.value[1]);
    expect(byVerdict).toEqual({ grounded: 6, ungrounded: 4 });
    expect(evaluations[0]?.metric).toMatchObject({ job: "groundwatch", groundwatch_backend_name: "offline", groundwatch_backend_tier: "triage" });
    const seen = await prom.query("sum(groundwatch_observations_seen_total)");
    expect(Number(seen[0]?.value[1])).toBe(10);
    const count = await prom.query('sum(groundwatch_groundedness_score_count{groundwatch_route="/api/returns"})');
    expect(Number(count[0]?.value[1])).toBe(10);
    const ratio = await prom.query('sum(groundwatch_evaluations_total{groundwatch_verdict="ungrounded"}) / sum(groundwatch_evaluations_total{groundwatch_verdict!="unscorable"})');
    expect(Number(ratio[0]?.value[1])).toBeCloseTo(0.4, 9);
  });
});
