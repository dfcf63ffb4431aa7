/** Guard checks against a backend that hangs or fails (a judge server the test scripts), a shutdown mid-check, and a busy monitoring queue. */
import { describe, expect, it } from "vitest";
import type { MonitorOptions } from "../../src/sdk/options.ts";
import type { GuardDecision } from "../../src/sdk/guard-types.ts";
import type { JudgeReply, JudgeRequest } from "../helpers/judge-server.ts";
import { chat, startJudgeServer } from "../helpers/judge-server.ts";
import { MONITOR_TEST_ENV, testMonitor } from "../helpers/monitor.ts";
import { testOtel } from "../helpers/otel.ts";
import { waitForCondition } from "../helpers/wait.ts";

const CONTEXT = ["Returns are accepted within 30 days of delivery for a full refund."];
/** Not a verbatim sentence of the context: the judge is asked about it. */
const GOOD = { context: CONTEXT, answer: "Returns are accepted within 30 days of delivery." };
/** The judge hangs on every question about Zanzibar. */
const HANGS = { context: ["Zanzibar is an island off the coast of Tanzania."], answer: "Zanzibar is an island." };
/** Far above any budget a test sets: a bypass arrives long before it, or the test fails. */
const HANG_MS = 60_000;
/** The bound a decision past its budget arrives within, generous for a loaded machine: the point is that it comes, not when. */
const GENEROUS_BOUND_MS = 5_000;

const aboutZanzibar = (req: JudgeRequest): boolean => req.messages.some((m) => m.content.includes("Zanzibar"));

/** A monitor scoring with a judge whose replies `reply` scripts. */
async function judgeMonitor(reply: (req: JudgeRequest) => JudgeReply, extra: MonitorOptions = {}): Promise<ReturnType<typeof testMonitor>> {
  const judge = await startJudgeServer(reply);
  const monitor = testMonitor(testOtel(), { env: { ...MONITOR_TEST_ENV, GROUNDWATCH_JUDGE_API_KEY: "k" }, scoring: { backend: "judge", judgeUrl: judge.url, judgeModel: "m" }, ...extra });
  await monitor.ready();
  return monitor;
}

function as<K extends GuardDecision["decision"]>(decision: GuardDecision, kind: K): Extract<GuardDecision, { decision: K }> {
  expect(decision.decision, JSON.stringify({ ...decision, evaluation: undefined })).toBe(kind);
  return decision as Extract<GuardDecision, { decision: K }>;
}

describe("Monitor.guard when scoring fails", () => {
  it("bypasses a check whose backend hangs once the budget is spent, gives the scoring up, and the worker scores on", async () => {
    const monitor = await judgeMonitor((req) => (aboutZanzibar(req) ? { body: chat("ENTAILMENT"), delayMs: HANG_MS } : { body: chat("ENTAILMENT") }));
    const before = performance.now();
    const bypass = as(await monitor.guard({ route: "/r", ...HANGS }, { budgetMs: 300 }), "bypass");
    const waited = performance.now() - before;
    expect(bypass).toMatchObject({ reason: "budget_exceeded", outcome: "block" });
    expect(bypass.durationMs).toBeGreaterThanOrEqual(300);
    expect(bypass.durationMs).toBeLessThan(300 + GENEROUS_BOUND_MS);
    expect(waited).toBeLessThan(300 + GENEROUS_BOUND_MS);
    // The worker gave the check up (no replacement), and scores what comes next.
    expect(as(await monitor.guard({ route: "/r", ...GOOD }, { budgetMs: 20_000 }), "pass").text).toBe(GOOD.answer);
    monitor.observe({ route: "/r", sample: "always", ...GOOD });
    await monitor.flush();
    expect(monitor.stats()).toMatchObject({ scored: 1, guard: { pass: 1, bypass: { budget_exceeded: 1 } } });
    expect(monitor.health().workers.restarts).toBe(0);
  });

  it("lets a hung check through with onFail pass: the answer, unchecked", async () => {
    const monitor = await judgeMonitor((req) => (aboutZanzibar(req) ? { body: chat("ENTAILMENT"), delayMs: HANG_MS } : { body: chat("ENTAILMENT") }));
    expect(as(await monitor.guard({ route: "/r", ...HANGS }, { budgetMs: 300, onFail: "pass" }), "bypass")).toMatchObject({ reason: "budget_exceeded", outcome: "pass", text: HANGS.answer });
  });

  it("bypasses a check whose backend fails, reason scorer_error, failing closed", async () => {
    const monitor = await judgeMonitor(() => ({ status: 400, body: { error: { message: "bad request", type: "invalid_request_error" } } }));
    const bypass = as(await monitor.guard({ route: "/r", ...GOOD }, { budgetMs: 20_000 }), "bypass");
    expect(bypass).toMatchObject({ reason: "scorer_error", outcome: "block" });
    expect(bypass.text).not.toBe(GOOD.answer);
  });

  it("answers a check in flight at shutdown at once, reason closed", async () => {
    const monitor = await judgeMonitor(() => ({ body: chat("ENTAILMENT"), delayMs: HANG_MS }));
    const pending = monitor.guard({ route: "/r", ...GOOD }, { budgetMs: 50_000 });
    let decision: GuardDecision | undefined;
    void pending.then((d) => {
      decision = d;
    });
    const shutdown = monitor.shutdown(100);
    await waitForCondition("the check in flight was answered", () => decision !== undefined, { timeout: GENEROUS_BOUND_MS });
    expect(decision).toMatchObject({ decision: "bypass", reason: "closed", outcome: "block" });
    expect(decision?.durationMs).toBeLessThan(GENEROUS_BOUND_MS);
    await shutdown;
  });

  it("is not queued behind monitoring work: a check passes while every scoring slot and the queue hold hung observations", async () => {
    const monitor = await judgeMonitor((req) => (aboutZanzibar(req) ? { body: chat("ENTAILMENT"), delayMs: HANG_MS } : { body: chat("ENTAILMENT") }), { workers: 1, inFlightPerWorker: 1, queueSize: 10 });
    for (let i = 0; i < 5; i++) monitor.observe({ route: "/r", sample: "always", ...HANGS });
    expect(monitor.stats().pending).toBe(5);
    expect(as(await monitor.guard({ route: "/r", ...GOOD }, { budgetMs: 20_000 }), "pass").text).toBe(GOOD.answer);
    expect(monitor.stats().pending).toBe(5);
  });
});
