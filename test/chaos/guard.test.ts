/**
 * Guard mode under faults, in a host process (test/chaos/guard-host.mjs on the built package): a
 * scorer that hangs, a worker that dies mid-check, and answers over the scorer's limits each give the
 * configured bypass — fail closed ("block") and fail open ("pass") — within the budget and a
 * generous bound, counted in stats().guard and on /metrics; the scoring of a given-up check is
 * abandoned; and the host's event loop, its HTTP endpoint and its guard checks carry on throughout.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { ChatServer } from "../helpers/chat-server.ts";
import { chat, startJudgeServer } from "../helpers/judge-server.ts";
import type { JudgeRequest } from "../helpers/judge-server.ts";
import type { GroupProcess } from "../helpers/processes.ts";
import { listeningUrl, spawnGroup } from "../helpers/processes.ts";
import { metric } from "../helpers/serve.ts";
import { waitUntil } from "../helpers/wait.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** The bound a bypass past its budget arrives within, generous for a busy 2-core machine. */
const BOUND_MS = 1_500;
/** Far above any budget here: a bypass arrives long before it, or the test fails. */
const HANG_MS = 60_000;
const REPLACEMENT = "Sorry, that answer could not be checked.";
const CONTEXT = ["Returns are accepted within 30 days of delivery for a full refund."];
const GOOD = { route: "/answer", context: CONTEXT, answer: "Returns are accepted within 30 days of delivery." };
/** The judge hangs on every question about Zanzibar. */
const HANGS = { route: "/answer", context: ["Zanzibar is an island off the coast of Tanzania."], answer: "Zanzibar is an island." };
/** The scorer's limits in the host (the smallest each may be, or near). */
const LIMITS = { maxAnswerChars: 500, maxContextChars: 2_000, maxDocuments: 3 };
const OVER_LIMITS = [
  { what: "maxAnswerChars", input: { ...GOOD, answer: `${GOOD.answer} `.repeat(20) } },
  { what: "maxContextChars", input: { ...GOOD, context: [`${CONTEXT[0]} `.repeat(40)] } },
  { what: "maxDocuments", input: { ...GOOD, context: [...CONTEXT, ...CONTEXT, ...CONTEXT, ...CONTEXT] } },
] as const;

interface Decision {
  readonly decision: "pass" | "block" | "correct" | "bypass";
  readonly reason?: string;
  readonly outcome?: "block" | "pass";
  readonly text: string;
  readonly detail?: string;
  readonly durationMs: number;
}

interface HostState {
  readonly stats: { guard: { pass: number; block: number; correct: number; bypass: Record<string, number> } };
  readonly health: { ready: boolean; workers: { alive: number; size: number; restarts: number } };
  readonly beats: number;
}

interface Host {
  readonly process: GroupProcess;
  guard(input: object, options: object): Promise<{ decision: Decision; wallMs: number }>;
  state(): Promise<HostState>;
  metrics(): Promise<string>;
  killWorkers(): Promise<void>;
  /** The event loop turned (its heartbeat moved on) and the endpoint answers. */
  alive(): Promise<void>;
}

async function startHost(scoring: object): Promise<Host> {
  const p = spawnGroup(process.execPath, ["--require", "./test/chaos/fault-injector.cjs", "test/chaos/guard-host.mjs"], { cwd: ROOT, env: { ...process.env, GW_SCORING: JSON.stringify(scoring) } });
  const url = await listeningUrl(p, 60_000);
  const state = async (): Promise<HostState> => (await (await fetch(`${url}/state`)).json()) as HostState;
  let lastBeats = -1;
  return {
    process: p,
    state,
    guard: async (input, options) => {
      const res = await fetch(`${url}/guard`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ input, options }) });
      expect(res.status).toBe(200);
      return (await res.json()) as { decision: Decision; wallMs: number };
    },
    metrics: async () => (await fetch(`${url}/metrics`)).text(),
    killWorkers: async () => {
      await (await fetch(`${url}/chaos/kill-workers`, { method: "POST" })).arrayBuffer();
    },
    alive: async () => {
      const s = await waitUntil("the host's heartbeat moved on", state, (x) => x.beats > lastBeats, { timeout: 10_000, context: p.output });
      lastBeats = s.beats;
    },
  };
}

/** The judge: entailment for everything, and no answer at all for a question about Zanzibar. */
const aboutZanzibar = (req: JudgeRequest): boolean => req.messages.some((m) => m.content.includes("Zanzibar"));

/** What onFail makes of a bypass: the replacement (block) or the answer, unchecked (pass). */
function bypassed(onFail: "block" | "pass", answer: string): object {
  return { decision: "bypass", outcome: onFail, text: onFail === "block" ? REPLACEMENT : answer };
}

const decisions = (text: string, reason: string): number => metric(text, "groundwatch_guard_decisions_total", `groundwatch_reason="${reason}"`);

describe("chaos: guard checks under faults, in a host that stays up", () => {
  for (const onFail of ["block", "pass"] as const) {
    it(`onFail "${onFail}": a hung scorer, answers over the limits and a worker that dies mid-check each give the configured bypass in time, counted; the host recovers and stays up`, { timeout: 180_000 }, async () => {
      const judge: ChatServer = await startJudgeServer((req) => (aboutZanzibar(req) ? { body: chat("ENTAILMENT"), delayMs: HANG_MS } : { body: chat("ENTAILMENT") }));
      const host = await startHost({ backend: "judge", judgeUrl: judge.url, judgeModel: "m", ...LIMITS });
      const options = { onFail, replacement: REPLACEMENT };
      await host.alive();

      // Scoring works: a grounded answer passes.
      expect((await host.guard(GOOD, { ...options, budgetMs: 30_000 })).decision).toMatchObject({ decision: "pass", text: GOOD.answer });
      await host.alive();

      // 1. A scorer that hangs: a bypass at the budget, its scoring given up (the judge's call abandoned).
      const budgetMs = 500;
      const hung = await host.guard(HANGS, { ...options, budgetMs });
      expect(hung.decision).toMatchObject({ ...bypassed(onFail, HANGS.answer), reason: "budget_exceeded" });
      // Not before the budget (Node's timers may fire a fraction of a millisecond early on the monitor's clock).
      expect(hung.decision.durationMs).toBeGreaterThan(budgetMs - 5);
      expect(hung.wallMs).toBeLessThan(budgetMs + BOUND_MS);
      await waitUntil("the hung check's judge call was abandoned", () => judge.aborted(), (n) => n === 1, { timeout: 10_000, context: host.process.output });
      await host.alive();

      // 2. Answers over the scorer's limits: a bypass at once, nothing sent to the scorer.
      const asked = judge.requests.length;
      for (const { what, input } of OVER_LIMITS) {
        const over = await host.guard(input, { ...options, budgetMs: 10_000 });
        expect(over.decision, what).toMatchObject({ ...bypassed(onFail, input.answer), reason: "over_limits" });
        expect(over.decision.detail).toContain(what);
        expect(over.wallMs).toBeLessThan(BOUND_MS);
      }
      expect(judge.requests.length).toBe(asked);
      await host.alive();

      // 3. A worker that dies mid-check: a bypass (scorer_error: the worker crashed) long before the budget.
      const dyingBudgetMs = 20_000;
      const dying = host.guard(HANGS, { ...options, budgetMs: dyingBudgetMs });
      await waitUntil("the check reached the judge", () => judge.requests.length, (n) => n > asked, { timeout: 10_000, context: host.process.output });
      await host.killWorkers();
      const died = await dying;
      expect(died.decision).toMatchObject({ ...bypassed(onFail, HANGS.answer), reason: "scorer_error" });
      expect(died.decision.detail).toMatch(/worker_crashed/);
      expect(died.wallMs).toBeLessThan(dyingBudgetMs);
      await host.alive();
      // The worker is replaced, and the next check is a real decision.
      await waitUntil("the worker was replaced", host.state, (s) => s.health.ready && s.health.workers.restarts >= 1 && s.health.workers.alive === 1, { timeout: 30_000, context: host.process.output });
      expect((await host.guard(GOOD, { ...options, budgetMs: 30_000 })).decision).toMatchObject({ decision: "pass", text: GOOD.answer });
      await host.alive();

      // Every decision counted, in stats().guard and on /metrics.
      const s = await host.state();
      expect(s.stats.guard).toMatchObject({ pass: 2, block: 0, correct: 0, bypass: { budget_exceeded: 1, over_limits: 3, scorer_error: 1, scorer_unavailable: 0, internal_error: 0 } });
      const text = await host.metrics();
      expect(decisions(text, "budget_exceeded")).toBe(1);
      expect(decisions(text, "over_limits")).toBe(3);
      expect(decisions(text, "scorer_error")).toBe(1);
      expect(metric(text, "groundwatch_guard_decisions_total", 'groundwatch_guard_decision="pass"')).toBe(2);
      expect(metric(text, "groundwatch_guard_duration_count")).toBe(7);

      // The host stayed up throughout, and ends as asked.
      host.process.signal("SIGTERM");
      expect(await host.process.exited).toMatchObject({ code: 0, signal: null });
    });
  }
});
