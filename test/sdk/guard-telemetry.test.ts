import { describe, expect, it, onTestFinished } from "vitest";
import { startCollector } from "../../src/collector/server.ts";
import { DEFAULT_GUARD_REPLACEMENT } from "../../src/sdk/guard-options.ts";
import type { MonitorOptions } from "../../src/sdk/options.ts";
import {
  ATTR_GEN_AI_GUARDRAIL_CONTENT_OUTPUT_VALUE,
  ATTR_GEN_AI_GUARDRAIL_RISK_SCORE,
  EVENT_GEN_AI_EVALUATION_RESULT,
  EVENT_GEN_AI_GUARDRAIL_RESULT,
  METRICS,
} from "../../src/telemetry/semconv.ts";
import { MONITOR_TEST_ENV, testMonitor } from "../helpers/monitor.ts";
import type { TestOtel } from "../helpers/otel.ts";
import { testOtel } from "../helpers/otel.ts";
import { waitForValue } from "../helpers/wait.ts";

/** The offline backend finds these sentences supported, contradicted or unsupported by this context (as in guard.test.ts). */
const CONTEXT = ["Returns are accepted within 30 days of delivery for a full refund. Shipping is free on orders over $50."];
const GROUNDED = "Returns are accepted within 30 days of delivery.";
const INVENTED = "Returns are accepted within 90 days of delivery.";
const MIXED = "Returns are accepted within 30 days of delivery. Shipping is free on orders over $20. Refunds take 10 business days.";
/** Over maxAnswerChars 120 (MIXED is under it): a bypass (over_limits) decided without scoring. */
const LONG = `${GROUNDED} ${"It is so. ".repeat(10)}`;
const BUDGET = { budgetMs: 20_000 };

/** The gen_ai.guardrail.result events recorded so far, waiting until there are `n`. */
async function guardrailEvents(otel: TestOtel, n: number): Promise<Array<Record<string, unknown>>> {
  return waitForValue(`${n} guardrail events`, () => {
    const events = otel.logs.getFinishedLogRecords().filter((l) => l.eventName === EVENT_GEN_AI_GUARDRAIL_RESULT);
    return events.length >= n ? events.map((e) => ({ ...e.attributes })) : undefined;
  });
}

function monitorWith(extra: MonitorOptions = {}): { otel: TestOtel; monitor: ReturnType<typeof testMonitor> } {
  const otel = testOtel();
  return { otel, monitor: testMonitor(otel, { scoring: { backend: "offline", maxAnswerChars: 120 }, ...extra }) };
}

describe("guard telemetry: the gen_ai.guardrail.result event", () => {
  it("records a pass as result value pass, risk ungrounded scored 1 − the groundedness score, source OUTPUT, component groundwatch", async () => {
    const { otel, monitor } = monitorWith();
    const pass = await monitor.guard({ route: "/api/returns", context: CONTEXT, answer: GROUNDED }, BUDGET);
    expect(pass.decision).toBe("pass");
    const [event] = await guardrailEvents(otel, 1);
    expect(event).toEqual({
      "gen_ai.guardrail.component.name": "groundwatch",
      "gen_ai.guardrail.result.type": "decision",
      "gen_ai.guardrail.result.value": "pass",
      "gen_ai.guardrail.risk.category": "ungrounded",
      "gen_ai.guardrail.risk.score": expect.any(Number),
      "gen_ai.guardrail.source": "OUTPUT",
      "groundwatch.route": "/api/returns",
      "groundwatch.verdict": "grounded",
    });
    expect(event?.[ATTR_GEN_AI_GUARDRAIL_RISK_SCORE]).toBeCloseTo(1 - (pass.decision === "pass" ? pass.score : Number.NaN), 10);
  });

  it("records a block and a correct by their decision, with the ungrounded verdict and no reason", async () => {
    const { otel, monitor } = monitorWith();
    expect((await monitor.guard({ route: "/r", context: CONTEXT, answer: INVENTED }, BUDGET)).decision).toBe("block");
    expect((await monitor.guard({ route: "/r", context: CONTEXT, answer: MIXED }, { ...BUDGET, action: "correct" })).decision).toBe("correct");
    const events = await guardrailEvents(otel, 2);
    expect(events.map((e) => [e["gen_ai.guardrail.result.value"], e["groundwatch.verdict"], e["gen_ai.guardrail.result.reason"]])).toEqual([
      ["block", "ungrounded", undefined],
      ["correct", "ungrounded", undefined],
    ]);
    for (const e of events) expect(e[ATTR_GEN_AI_GUARDRAIL_RISK_SCORE]).toBeGreaterThan(0.5);
  });

  it("records a bypass with its reason, and no risk score when nothing was scored", async () => {
    const { otel, monitor } = monitorWith();
    expect((await monitor.guard({ route: "/r", context: CONTEXT, answer: LONG }, BUDGET)).decision).toBe("bypass");
    const [event] = await guardrailEvents(otel, 1);
    expect(event).toMatchObject({ "gen_ai.guardrail.result.value": "bypass", "gen_ai.guardrail.result.reason": "over_limits", "gen_ai.guardrail.source": "OUTPUT" });
    expect(event).not.toHaveProperty(ATTR_GEN_AI_GUARDRAIL_RISK_SCORE);
  });

  it("carries no text without content capture", async () => {
    const { otel, monitor } = monitorWith();
    await monitor.guard({ route: "/r", context: CONTEXT, answer: GROUNDED }, BUDGET);
    await monitor.guard({ route: "/r", context: CONTEXT, answer: INVENTED }, BUDGET);
    for (const e of await guardrailEvents(otel, 2)) {
      expect(e).not.toHaveProperty(ATTR_GEN_AI_GUARDRAIL_CONTENT_OUTPUT_VALUE);
      expect(JSON.stringify(e)).not.toContain("Returns are accepted");
    }
  });

  it("carries the text it let out, redacted, under content capture: the answer on pass, the replacement on block", async () => {
    const { otel, monitor } = monitorWith({ captureContent: true, redact: (t) => t.replace("30 days", "[days]") });
    await monitor.guard({ route: "/r", context: CONTEXT, answer: GROUNDED }, BUDGET);
    await monitor.guard({ route: "/r", context: CONTEXT, answer: INVENTED }, BUDGET);
    const events = await guardrailEvents(otel, 2);
    expect(events.map((e) => e[ATTR_GEN_AI_GUARDRAIL_CONTENT_OUTPUT_VALUE])).toEqual(["Returns are accepted within [days] of delivery.", DEFAULT_GUARD_REPLACEMENT]);
  });

  it("makes the event without its text when the redact hook throws, counted under sink guard", async () => {
    const { otel, monitor } = monitorWith({
      captureContent: true,
      redact: () => {
        throw new Error("redaction service down");
      },
    });
    expect((await monitor.guard({ route: "/r", context: CONTEXT, answer: GROUNDED }, BUDGET)).decision).toBe("pass");
    const [event] = await guardrailEvents(otel, 1);
    expect(event).toMatchObject({ "gen_ai.guardrail.result.value": "pass" });
    expect(event).not.toHaveProperty(ATTR_GEN_AI_GUARDRAIL_CONTENT_OUTPUT_VALUE);
    const withheld = (await otel.metrics()).get(METRICS.contentWithheld.name) ?? [];
    expect(withheld.map((p) => p.attributes["groundwatch.content.sink"])).toContain("guard");
  });

  it("leaves monitoring's gen_ai.evaluation.result to observations: a guard check emits none", async () => {
    const { otel, monitor } = monitorWith({ sampling: { default: 1 } });
    await monitor.guard({ route: "/r", context: CONTEXT, answer: GROUNDED }, BUDGET);
    monitor.observe({ route: "/r", context: CONTEXT, answer: GROUNDED });
    await monitor.flush();
    await guardrailEvents(otel, 1);
    expect(otel.logs.getFinishedLogRecords().filter((l) => l.eventName === EVENT_GEN_AI_EVALUATION_RESULT)).toHaveLength(1);
  });
});

describe("guard telemetry: the guard metrics", () => {
  it("counts decisions by route and decision, bypasses also by reason, and times them by route and decision", async () => {
    const { otel, monitor } = monitorWith();
    await monitor.guard({ route: "/a", context: CONTEXT, answer: GROUNDED }, BUDGET);
    await monitor.guard({ route: "/a", context: CONTEXT, answer: GROUNDED }, BUDGET);
    await monitor.guard({ route: "/a", context: CONTEXT, answer: INVENTED }, BUDGET);
    await monitor.guard({ route: "/b", context: CONTEXT, answer: MIXED }, { ...BUDGET, action: "correct" });
    await monitor.guard({ route: "/b", context: CONTEXT, answer: LONG }, BUDGET);
    await monitor.guard({ route: "/b", context: [], answer: GROUNDED }, BUDGET);
    const metrics = await otel.metrics();
    const decisions = (metrics.get(METRICS.guardDecisions.name) ?? []).map((p) => ({ ...p.attributes, value: p.value }));
    expect(decisions).toEqual(
      expect.arrayContaining([
        { "groundwatch.route": "/a", "groundwatch.guard.decision": "pass", value: 2 },
        { "groundwatch.route": "/a", "groundwatch.guard.decision": "block", value: 1 },
        { "groundwatch.route": "/b", "groundwatch.guard.decision": "correct", value: 1 },
        { "groundwatch.route": "/b", "groundwatch.guard.decision": "bypass", "groundwatch.reason": "over_limits", value: 1 },
        { "groundwatch.route": "/b", "groundwatch.guard.decision": "bypass", "groundwatch.reason": "unscorable", value: 1 },
      ]),
    );
    expect(decisions).toHaveLength(5);
    expect(monitor.stats().guard).toMatchObject({ pass: 2, block: 1, correct: 1, bypass: { over_limits: 1, unscorable: 1 } });
    const durations = (metrics.get(METRICS.guardDuration.name) ?? []).map((p) => ({ ...p.attributes, count: (p.value as { count: number }).count }));
    expect(durations).toEqual(
      expect.arrayContaining([
        { "groundwatch.route": "/a", "groundwatch.guard.decision": "pass", count: 2 },
        { "groundwatch.route": "/a", "groundwatch.guard.decision": "block", count: 1 },
        { "groundwatch.route": "/b", "groundwatch.guard.decision": "correct", count: 1 },
        { "groundwatch.route": "/b", "groundwatch.guard.decision": "bypass", count: 2 },
      ]),
    );
    expect(durations).toHaveLength(4);
  });

  it("labels them with the capped route label every other route-labelled instrument uses: past maxRoutes, __other__", async () => {
    const { otel, monitor } = monitorWith({ maxRoutes: 1 });
    await monitor.guard({ route: "/first", context: CONTEXT, answer: GROUNDED }, BUDGET);
    await monitor.guard({ route: "/second", context: CONTEXT, answer: GROUNDED }, BUDGET);
    const routes = ((await otel.metrics()).get(METRICS.guardDecisions.name) ?? []).map((p) => p.attributes["groundwatch.route"]);
    expect(routes.sort()).toEqual(["/first", "__other__"]);
    expect((await guardrailEvents(otel, 2)).map((e) => e["groundwatch.route"])).toEqual(["/first", "__other__"]);
  });

  it("shows them on /metrics under their Prometheus names", { timeout: 60_000 }, async () => {
    const c = await startCollector({ env: MONITOR_TEST_ENV, port: 0, monitor: { workers: 1, scoring: { backend: "offline" } } });
    onTestFinished(() => c.close(2000));
    await c.monitor.ready();
    expect((await c.monitor.guard({ route: "/g", context: CONTEXT, answer: GROUNDED }, BUDGET)).decision).toBe("pass");
    expect((await c.monitor.guard({ route: "/g", context: [], answer: GROUNDED }, BUDGET)).decision).toBe("bypass");
    expect(METRICS.guardDecisions.prometheus).toBe("groundwatch_guard_decisions_total");
    expect(METRICS.guardDuration.prometheus).toBe("groundwatch_guard_duration");
    const metrics = await (await fetch(`${c.url}/metrics`)).text();
    expect(metrics).toMatch(/^groundwatch_guard_decisions_total\{[^}]*groundwatch_route="\/g"[^}]*\} 1/m);
    expect(metrics).toMatch(/^groundwatch_guard_decisions_total\{(?=[^}]*groundwatch_guard_decision="bypass")(?=[^}]*groundwatch_reason="unscorable")[^}]*\} 1/m);
    expect(metrics).toMatch(/^groundwatch_guard_duration_count\{(?=[^}]*groundwatch_route="\/g")(?=[^}]*groundwatch_guard_decision="pass")[^}]*\} 1/m);
  });
});
