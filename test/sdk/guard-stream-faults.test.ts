/**
 * Guarded streams when things go wrong: a consumer that stops, an abort signal, a judge that hangs,
 * a shutdown mid-stream. Each ends with one decision, counted once, and leaves nothing running: the
 * source's iterator returned, the hung judge request given up.
 */
import { describe, expect, it } from "vitest";
import type { MonitorOptions } from "../../src/sdk/options.ts";
import type { StreamGuardEnd, StreamGuardEvent } from "../../src/sdk/guard-stream-types.ts";
import type { GuardStats } from "../../src/sdk/guard-types.ts";
import type { JudgeReply, JudgeRequest } from "../helpers/judge-server.ts";
import { chat, startJudgeServer } from "../helpers/judge-server.ts";
import { MONITOR_TEST_ENV, testMonitor, totalOf } from "../helpers/monitor.ts";
import { testOtel } from "../helpers/otel.ts";

const CONTEXT = ["Zanzibar is an island off the coast of Tanzania. Its capital is Zanzibar City."];
const INPUT = { route: "/r", context: CONTEXT };
const SENTENCE_1 = "Zanzibar is an island.";
/** Far above any budget a test sets: a bypass arrives long before it, or the test fails. */
const HANG_MS = 60_000;
/** The bound a decision past its budget arrives within, generous for a loaded machine. */
const GENEROUS_BOUND_MS = 5_000;

/** Decisions counted in all. */
const decisions = (g: GuardStats): number => g.pass + g.block + g.correct + totalOf(g.bypass);

/** A source that sends `items`, then waits until it is returned; records whether return() was called and reads pending. */
function hangingSource(items: readonly string[]): AsyncIterable<string> & { returned: () => boolean } {
  let returned = false;
  let release: (() => void) | undefined;
  let i = 0;
  const iterator: AsyncIterator<string> = {
    next: () => {
      if (returned) return Promise.resolve({ value: undefined, done: true });
      const item = items[i++];
      if (item !== undefined) return Promise.resolve({ value: item, done: false });
      return new Promise((resolve) => (release = () => resolve({ value: undefined, done: true })));
    },
    return: () => {
      returned = true;
      release?.();
      return Promise.resolve({ value: undefined, done: true });
    },
  };
  return { [Symbol.asyncIterator]: () => iterator, returned: () => returned };
}

/** A monitor scoring with a judge whose replies `reply` scripts. */
async function judgeMonitor(reply: (req: JudgeRequest) => JudgeReply, extra: MonitorOptions = {}) {
  const judge = await startJudgeServer(reply);
  const monitor = testMonitor(testOtel(), { env: { ...MONITOR_TEST_ENV, GROUNDWATCH_JUDGE_API_KEY: "k" }, scoring: { backend: "judge", judgeUrl: judge.url, judgeModel: "m" }, ...extra });
  await monitor.ready();
  return { judge, monitor };
}

describe("Monitor.guardStream when things go wrong", () => {
  it("returns the source's iterator when the consumer breaks, and counts the stream once (cancelled)", async () => {
    const monitor = testMonitor(testOtel());
    const source = hangingSource([`${SENTENCE_1} `]);
    const seen: StreamGuardEvent[] = [];
    for await (const event of monitor.guardStream(source, INPUT, { budgetMs: 20_000, mode: "sentence" })) {
      seen.push(event);
      break;
    }
    expect(seen).toEqual([{ type: "release", start: 0, end: SENTENCE_1.length, text: SENTENCE_1 }]);
    expect(source.returned()).toBe(true);
    expect(monitor.stats().guard.bypass.cancelled).toBe(1);
    expect(decisions(monitor.stats().guard)).toBe(1);
  });

  it("aborts an OpenAI SDK-shaped stream's request at once when the consumer breaks, though its generator has a read pending", async () => {
    const monitor = testMonitor(testOtel());
    const controller = new AbortController();
    let finalized = false;
    // As the SDK's Stream: an async generator over the HTTP body, and the request's AbortController beside it.
    async function* body(): AsyncGenerator<unknown> {
      try {
        yield { choices: [{ index: 0, delta: { content: `${SENTENCE_1} ` } }] };
        await new Promise((_, reject) => controller.signal.addEventListener("abort", () => reject(new Error("aborted"))));
      } finally {
        finalized = true;
      }
    }
    const stream = { controller, [Symbol.asyncIterator]: body };
    for await (const event of monitor.guardStream(stream, INPUT, { budgetMs: 20_000, mode: "sentence" })) {
      expect(event.type).toBe("release");
      break;
    }
    expect(controller.signal.aborted).toBe(true);
    await expect.poll(() => finalized).toBe(true);
    expect(monitor.stats().guard.bypass.cancelled).toBe(1);
  });

  it("an aborted signal cancels a source whose read is pending and gives the hung check up: the judge's request is closed", async () => {
    const { judge, monitor } = await judgeMonitor(() => ({ body: chat("ENTAILMENT"), delayMs: HANG_MS }));
    const source = hangingSource([`${SENTENCE_1} `]);
    const controller = new AbortController();
    const events: StreamGuardEvent[] = [];
    const reading = (async () => {
      for await (const event of monitor.guardStream(source, INPUT, { budgetMs: 50_000, mode: "sentence", signal: controller.signal })) events.push(event);
    })();
    // The check of sentence 1 is at the judge, and the source's next read is pending.
    await expect.poll(() => judge.requests.length, { timeout: GENEROUS_BOUND_MS }).toBeGreaterThan(0);
    controller.abort();
    await reading;
    expect(events.map((e) => e.type)).toEqual(["end"]);
    expect((events[0] as StreamGuardEnd).decision).toMatchObject({ decision: "bypass", reason: "cancelled" });
    expect((events[0] as StreamGuardEnd).stream.ending).toBe("cancelled");
    expect(source.returned()).toBe(true);
    // The scoring was given up: the worker dropped the judge request rather than waiting a minute for it.
    await expect.poll(() => judge.aborted(), { timeout: GENEROUS_BOUND_MS }).toBeGreaterThan(0);
    expect(monitor.stats().guard.bypass.cancelled).toBe(1);
    expect(decisions(monitor.stats().guard)).toBe(1);
    expect(monitor.health().workers.restarts).toBe(0);
  });

  for (const mode of ["sentence", "buffer", "annotate"] as const) {
    it(`${mode} mode: a judge that hangs is a bypass within the budget and a bound, counted once`, async () => {
      const { monitor } = await judgeMonitor(() => ({ body: chat("ENTAILMENT"), delayMs: HANG_MS }));
      const before = performance.now();
      const events: StreamGuardEvent[] = [];
      async function* answer(): AsyncGenerator<string> {
        yield `${SENTENCE_1} `;
        yield "Its capital is Zanzibar City.";
      }
      for await (const event of monitor.guardStream(answer(), INPUT, { budgetMs: 300, mode })) events.push(event);
      const waited = performance.now() - before;
      const end = events.at(-1) as StreamGuardEnd;
      expect(end.decision).toMatchObject({ decision: "bypass", reason: "budget_exceeded", outcome: "block" });
      // Two checks at most (the first sentence, the rest), each within its budget.
      expect(waited).toBeLessThan(2 * 300 + GENEROUS_BOUND_MS);
      if (mode === "annotate") expect(events.filter((e) => e.type === "retract").map((e) => (e.type === "retract" ? e.reason : ""))).toContain("budget_exceeded");
      else expect(events.filter((e) => e.type === "release" || e.type === "correct")).toEqual([]);
      expect(monitor.stats().guard.bypass.budget_exceeded).toBe(1);
      expect(decisions(monitor.stats().guard)).toBe(1);
    });
  }

  it("a shutdown mid-stream ends it with a bypass, reason closed", async () => {
    const { monitor } = await judgeMonitor(() => ({ body: chat("ENTAILMENT"), delayMs: HANG_MS }));
    const events: StreamGuardEvent[] = [];
    const guard = monitor.openStreamGuard(INPUT, { budgetMs: 50_000, mode: "sentence" }, (e) => events.push(e));
    guard.push(`${SENTENCE_1} More`);
    const shutdown = monitor.shutdown(100);
    const end = await guard.done;
    expect(end.decision).toMatchObject({ decision: "bypass", reason: "closed", outcome: "block" });
    expect(end.stream.ending).toBe("closed");
    expect(events.map((e) => e.type)).toEqual(["block", "end"]);
    await shutdown;
  });

  it("a listener that throws does not stop the stream or reach the caller", async () => {
    const monitor = testMonitor(testOtel());
    const guard = monitor.openStreamGuard({ route: "/r", context: CONTEXT }, { budgetMs: 20_000, mode: "annotate" }, () => {
      throw new Error("listener bug");
    });
    expect(guard.push(`${SENTENCE_1} `)).toBe(true);
    guard.end();
    expect((await guard.done).decision.decision).toBe("pass");
  });
});
