import { describe, expect, it, onTestFinished } from "vitest";
import { startCollector } from "../../src/collector/server.ts";
import { METRICS } from "../../src/telemetry/semconv.ts";
import { MONITOR_TEST_ENV, testMonitor } from "../helpers/monitor.ts";
import { testOtel } from "../helpers/otel.ts";
import { waitUntil } from "../helpers/wait.ts";
import { summarize } from "../../src/evaluation/summary.ts";
import { createScorer } from "../../src/sdk/create-scorer.ts";
import { testAnalyzer } from "../helpers/analyzer.ts";
import { createFakeBackend } from "../helpers/fake-backend.ts";
import { recordSummary } from "../helpers/record-summary.ts";

const CONTEXT = ["Returns are accepted within 30 days of delivery. Refunds go back to the original card."];
// The first sentence is the document's word for word; the second is not.
const OBSERVATION = { context: CONTEXT, answer: "Returns are accepted within 30 days of delivery. The refund goes to your card." };

/** The value of one Prometheus series on /metrics whose labels include all of `labels`, 0 when absent. */
function series(metrics: string, name: string, labels: Readonly<Record<string, string>>): number {
  const line = metrics.split("\n").find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
  return line ? Number(line.split(" ").at(-1)) : 0;
}

describe("the entailment counters", () => {
  it("the SDK: counts pairs sent, and pairs saved by a verbatim sentence and by the judgement cache, by route", async () => {
    const otel = testOtel();
    const monitor = testMonitor(otel, { sampling: { default: 1 }, workers: 1 });
    monitor.observe({ route: "/r", ...OBSERVATION });
    await monitor.flush();
    monitor.observe({ route: "/r", ...OBSERVATION });
    await monitor.flush();
    const metrics = await otel.metrics();
    const calls = metrics.get(METRICS.entailmentCalls.name) ?? [];
    expect(calls.map((p) => p.attributes)).toEqual([{ "groundwatch.route": "/r", "groundwatch.engine": "claims" }]);
    const sent = Number(calls[0]?.value);
    expect(sent).toBeGreaterThan(0);
    const saved = Object.fromEntries((metrics.get(METRICS.entailmentSaved.name) ?? []).map((p) => [p.attributes["groundwatch.reason"], p.value]));
    // Each observation's verbatim claim costs no call; the second observation's other pairs come from the cache.
    expect(saved).toEqual({ verbatim: 2, cache: sent });
  });

  it("the collector: shows them on /metrics under their Prometheus names", { timeout: 60_000 }, async () => {
    const c = await startCollector({ env: MONITOR_TEST_ENV, port: 0, monitor: { sampling: { default: 1 }, workers: 1, scoring: { backend: "offline" } } });
    onTestFinished(() => c.close(2000));
    await c.monitor.ready();
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${c.url}/v1/observations`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify([{ route: "/observations", ...OBSERVATION }]) });
      expect(res.status).toBe(202);
      await waitUntil(`${i + 1} scored`, () => c.monitor.stats(), (s) => s.scored >= i + 1);
    }
    const metrics = await (await fetch(`${c.url}/metrics`)).text();
    const route = { groundwatch_route: "/observations" };
    const sent = series(metrics, METRICS.entailmentCalls.prometheus, route);
    expect(METRICS.entailmentCalls.prometheus).toBe("groundwatch_entailment_calls_total");
    expect(METRICS.entailmentSaved.prometheus).toBe("groundwatch_entailment_saved_total");
    expect(sent).toBeGreaterThan(0);
    expect(series(metrics, METRICS.entailmentSaved.prometheus, { ...route, groundwatch_reason: "verbatim" })).toBe(2);
    expect(series(metrics, METRICS.entailmentSaved.prometheus, { ...route, groundwatch_reason: "cache" })).toBe(sent);
  });

  it("counts the pairs the cascade decided without a model call under reason triage", async () => {
    const model = createFakeBackend();
    const scorer = await createScorer({ relevance: false, cascade: true, cascadeSupportAbove: 0.001, cascadeUnsupportBelow: 0 }, { backend: model, analyzer: testAnalyzer() });
    onTestFinished(() => scorer.close());
    const r = await scorer.score({ context: CONTEXT, answer: "Returns are taken back for a month after delivery. The refund goes to your card." });
    const decided = r.callsSaved?.triage ?? 0;
    expect(decided).toBeGreaterThan(0);
    expect(model.calls.flat()).toHaveLength(0);
    const { metrics } = await recordSummary(summarize(r, false), { openInference: false, captureContent: false }, "/r");
    const saved = Object.fromEntries((metrics.get(METRICS.entailmentSaved.name) ?? []).map((p) => [p.attributes["groundwatch.reason"], p.value]));
    expect(saved).toEqual({ triage: decided });
  });
});
