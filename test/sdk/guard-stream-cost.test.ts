/**
 * What a sentence-mode stream costs the backend: each check re-reads the answer so far (context
 * carried over), but a claim judged by an earlier check is not sent to the backend again — the
 * scorer's pair cache (core/nli-cache.ts) answers it — so the judge sees each claim once, as it does
 * for one guard() of the whole answer. Also: the trigger that decides when to check is linear in the stream.
 */
import { describe, expect, it } from "vitest";
import { createSentenceTrigger } from "../../src/sdk/guard-stream-trigger.ts";
import type { StreamGuardEvent } from "../../src/sdk/guard-stream-types.ts";
import type { JudgeRequest } from "../helpers/judge-server.ts";
import { chat, startJudgeServer } from "../helpers/judge-server.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";
import { MONITOR_TEST_ENV, testMonitor } from "../helpers/monitor.ts";
import { testOtel } from "../helpers/otel.ts";

const CONTEXT = ["Zanzibar is an island off the coast of Tanzania. Its capital is Zanzibar City. The island is known for spices."];
/** Sentences 1 and 3 are not verbatim in the context: the judge is asked about them; sentence 2 is decided without it. */
const SENTENCES = ["Zanzibar is an island near Tanzania.", "Its capital is Zanzibar City.", "The island is famous for its spices."];

/** The hypotheses the judge was asked about, sorted. */
const asked = (requests: readonly JudgeRequest[]): string[] => requests.map((r) => r.messages.at(-1)?.content.split("HYPOTHESIS").at(-1) ?? "").sort();

async function judgeMonitor() {
  const judge = await startJudgeServer(() => ({ body: chat("ENTAILMENT") }));
  const monitor = testMonitor(testOtel(), { env: { ...MONITOR_TEST_ENV, GROUNDWATCH_JUDGE_API_KEY: "k" }, scoring: { backend: "judge", judgeUrl: judge.url, judgeModel: "m" } });
  await monitor.ready();
  return { judge, monitor };
}

describe("what a guarded stream costs", () => {
  it("sentence mode checks the growing answer once a sentence, yet the judge is asked about each claim once, as for one guard() of the whole answer", async () => {
    const whole = await judgeMonitor();
    expect((await whole.monitor.guard({ route: "/r", context: CONTEXT, answer: SENTENCES.join(" ") }, { budgetMs: 20_000 })).decision).toBe("pass");

    const streamed = await judgeMonitor();
    const events: StreamGuardEvent[] = [];
    const guard = streamed.monitor.openStreamGuard({ route: "/r", context: CONTEXT }, { budgetMs: 20_000, mode: "sentence" }, (e) => events.push(e));
    let at = 0;
    // One sentence at a time, each released before the next is sent: one check per sentence.
    for (const sentence of SENTENCES) {
      guard.push(sentence);
      guard.push(" ");
      await expect.poll(() => events.filter((e) => e.type === "release").at(-1)?.end ?? 0).toBe(at + sentence.length);
      at += sentence.length + 1;
    }
    guard.end();
    const end = await guard.done;
    expect(end.decision.decision).toBe("pass");
    expect(end.stream.checks).toBe(3);
    expect(asked(streamed.judge.requests)).toEqual(asked(whole.judge.requests));
    expect(streamed.judge.requests.length).toBe(2);
  });

  it("finds sentence boundaries in linear time, whatever the stream's shape (N vs 4N characters)", () => {
    const shapes: Record<string, string> = { sentences: "It is so. ", "no boundary": "abcdefghij", "all punctuation": ".!?.!?.!? ", newlines: "a\nb\nc\nd\ne\n" };
    for (const [shape, unit] of Object.entries(shapes)) {
      // Deltas of 7 characters, as a model's tokens; each input under 128 KiB.
      const make = (n: number): string[] => {
        const text = unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
        const deltas: string[] = [];
        for (let i = 0; i < text.length; i += 7) deltas.push(text.slice(i, i + 7));
        return deltas;
      };
      const run = (deltas: readonly string[]): number => {
        const trigger = createSentenceTrigger(600);
        let found = 0;
        for (const d of deltas) found += trigger.feed(d).length;
        return found;
      };
      expectLinear(`sentence trigger (${shape})`, measureGrowth(make, run, { n: 4_000, factor: 4, maxN: 12_000 }));
    }
  });

  it("forces a boundary after maxPendingChars without one, never inside a surrogate pair", () => {
    const trigger = createSentenceTrigger(20);
    expect(trigger.feed("a".repeat(45))).toEqual([20, 40]);
    const emoji = createSentenceTrigger(20);
    // 19 characters, then an emoji (two UTF-16 units): the boundary waits for the pair's end.
    expect(emoji.feed(`${"a".repeat(19)}😀b`)).toEqual([21]);
    expect(createSentenceTrigger(600).feed('He said "Stop." Then he left.\nNext')).toEqual([15, 30]);
    expect(createSentenceTrigger(600).feed("It costs $10.50 today. Yes")).toEqual([22]);
  });
});

describe("the stream guard's own work per delta", () => {
  it("takes each delta in linear time in every mode (N vs 4N characters, no check due)", async () => {
    const { createStreamGuard } = await import("../../src/sdk/guard-stream.ts");
    const { GUARD_DEFAULTS } = await import("../../src/sdk/guard-options.ts");
    for (const mode of ["buffer", "sentence", "annotate"] as const) {
      // No boundary and a pending bound past the input: the push path alone (append, scan, release), no check.
      const make = (n: number): string[] => {
        const deltas: string[] = [];
        for (let i = 0; i < n; i += 7) deltas.push("abcdefg");
        return deltas;
      };
      const run = (deltas: readonly string[]): number => {
        let events = 0;
        const guard = createStreamGuard(
          { now: () => 0, assess: () => new Promise(() => undefined), record: () => undefined, defaults: GUARD_DEFAULTS, routeLabel: (r) => r, maxAnswerChars: 1_000_000 },
          { route: "/r", context: ["x"] },
          { mode, maxPendingChars: 20_000 },
          () => events++,
        );
        for (const d of deltas) guard.push(d);
        guard.abort("cancelled");
        return events;
      };
      expectLinear(`stream guard push (${mode})`, measureGrowth(make, run, { n: 2_000, factor: 4, maxN: 4_000 }));
    }
  });
});
