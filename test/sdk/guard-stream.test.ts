/** Guarded streams on the offline tier: what each mode releases, corrects, blocks and retracts, and the one decision per stream. */
import { describe, expect, it } from "vitest";
import { isConfigError } from "../../src/config/errors.ts";
import { DEFAULT_GUARD_REPLACEMENT } from "../../src/sdk/guard-options.ts";
import { resolveStreamGuardOptions } from "../../src/sdk/guard-stream-options.ts";
import { EVENT_GEN_AI_GUARDRAIL_RESULT } from "../../src/telemetry/semconv.ts";
import type { StreamGuardEnd, StreamGuardEvent, StreamGuardOptions } from "../../src/sdk/guard-stream-types.ts";
import type { Monitor } from "../../src/sdk/types.ts";
import { testMonitor } from "../helpers/monitor.ts";
import { testOtel } from "../helpers/otel.ts";

/** The offline backend finds each sentence below supported or contradicted by this context (as test/sdk/guard.test.ts). */
const CONTEXT = ["Returns are accepted within 30 days of delivery for a full refund. Shipping is free on orders over $50."];
const GROUNDED = "Returns are accepted within 30 days of delivery. Shipping is free on orders over $50.";
/** Sentence 1 supported, sentence 2 with an invented number ($20 for $50). */
const INVENTED = "Returns are accepted within 30 days of delivery. Shipping is free on orders over $20.";
const SENTENCE_1 = "Returns are accepted within 30 days of delivery.";
/** A supported sentence, a contradicted one, one the context does not hold (as test/sdk/guard.test.ts). */
const MIXED = "Returns are accepted within 30 days of delivery. Shipping is free on orders over $20. Refunds take 10 business days.";
const INPUT = { route: "/api/returns", context: CONTEXT };
/** Generous: budgets here are seconds, so that a loaded machine still scores within them. */
const BUDGET = { budgetMs: 20_000 };

/** `text` in pieces of `size` characters, as a model's deltas. */
async function* deltas(text: string, size = 7): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

/** Every event of a guarded stream, the text the user was sent, and the end event. */
async function collect(monitor: Monitor, source: Parameters<Monitor["guardStream"]>[0], options: StreamGuardOptions): Promise<{ events: StreamGuardEvent[]; text: string; end: StreamGuardEnd }> {
  const events: StreamGuardEvent[] = [];
  for await (const event of monitor.guardStream(source, INPUT, { ...BUDGET, ...options })) events.push(event);
  const end = events.at(-1);
  expect(end?.type).toBe("end");
  expect(events.filter((e) => e.type === "end")).toHaveLength(1);
  return { events, text: events.map((e) => e.text).join(""), end: end as StreamGuardEnd };
}

/** Release and correct events cover the answer from 0 in order, each where the previous one ended. */
function expectContiguous(events: readonly StreamGuardEvent[]): void {
  let at = 0;
  for (const e of events) {
    if (e.type !== "release" && e.type !== "correct") continue;
    expect(e.start).toBe(at);
    at = e.end;
  }
}

describe("Monitor.guardStream", () => {
  for (const mode of ["buffer", "sentence", "annotate"] as const) {
    it(`${mode} mode: a grounded answer goes out byte for byte, one pass decision for the stream`, async () => {
      const monitor = testMonitor(testOtel());
      const { events, text, end } = await collect(monitor, deltas(GROUNDED), { mode });
      expect(text).toBe(GROUNDED);
      expectContiguous(events);
      expect(events.some((e) => e.type === "block" || e.type === "retract" || e.type === "correct")).toBe(false);
      expect(end.decision).toMatchObject({ decision: "pass", text: GROUNDED, route: "/api/returns" });
      expect(end.stream).toMatchObject({ mode, receivedChars: GROUNDED.length, releasedChars: GROUNDED.length, ending: "complete" });
      expect(end.stream.checks).toBeGreaterThanOrEqual(1);
      expect(end.stream.firstReleaseMs).toBeGreaterThanOrEqual(0);
      expect(monitor.stats().guard).toMatchObject({ pass: 1, block: 0, correct: 0 });
      expect(Object.values(monitor.stats().guard.bypass).every((n) => n === 0)).toBe(true);
    });
  }

  it("sentence mode: releases sentence 1, then blocks the invented number with the replacement", async () => {
    const monitor = testMonitor(testOtel());
    const { events, text, end } = await collect(monitor, deltas(INVENTED), { mode: "sentence" });
    expect(events.map((e) => e.type)).toEqual(["release", "block", "end"]);
    expect(events[0]).toEqual({ type: "release", start: 0, end: SENTENCE_1.length, text: SENTENCE_1 });
    expect(events[1]).toMatchObject({ type: "block", at: SENTENCE_1.length, replacement: DEFAULT_GUARD_REPLACEMENT, text: DEFAULT_GUARD_REPLACEMENT, reason: "ungrounded" });
    expect(text).toBe(SENTENCE_1 + DEFAULT_GUARD_REPLACEMENT);
    expect(end.decision).toMatchObject({ decision: "block", replacement: DEFAULT_GUARD_REPLACEMENT, claims: [expect.objectContaining({ verdict: "contradicted", start: 49, end: INVENTED.length })] });
    expect(end.stream.ending).toBe("blocked");
    expect(monitor.stats().guard).toMatchObject({ pass: 0, block: 1, correct: 0 });
  });

  it("sentence mode with action correct: removes the invented sentence, or marks it", async () => {
    const monitor = testMonitor(testOtel());
    const removed = await collect(monitor, deltas(INVENTED), { mode: "sentence", action: "correct" });
    expect(removed.text).toBe(SENTENCE_1);
    expect(removed.events.map((e) => e.type)).toEqual(["release", "correct", "end"]);
    expect(removed.events[1]).toMatchObject({ type: "correct", start: SENTENCE_1.length, end: INVENTED.length, text: "", ranges: [{ start: 49, end: INVENTED.length }] });
    expect(removed.end.decision).toMatchObject({ decision: "correct", text: SENTENCE_1, answer: SENTENCE_1, correction: "remove", ranges: [{ start: 49, end: INVENTED.length }] });
    const marked = await collect(monitor, deltas(INVENTED), { mode: "sentence", action: "correct", correction: "mark" });
    expect(marked.text).toBe(`${SENTENCE_1} [unverified: Shipping is free on orders over $20.]`);
    expect(monitor.stats().guard).toMatchObject({ pass: 0, block: 0, correct: 2 });
  });

  it("buffer mode releases nothing before the end, then blocks the whole answer", async () => {
    const monitor = testMonitor(testOtel());
    const events: StreamGuardEvent[] = [];
    const guard = monitor.openStreamGuard(INPUT, { ...BUDGET, mode: "buffer" }, (e) => events.push(e));
    expect(guard.push(INVENTED.slice(0, 60))).toBe(true);
    expect(guard.push(INVENTED.slice(60))).toBe(true);
    // A whole check's round trip later, still nothing.
    await monitor.guard({ ...INPUT, answer: GROUNDED }, BUDGET);
    expect(events).toEqual([]);
    guard.end();
    const end = await guard.done;
    expect(events.map((e) => e.type)).toEqual(["block", "end"]);
    expect(events[0]).toMatchObject({ type: "block", at: 0, text: DEFAULT_GUARD_REPLACEMENT });
    expect(end.decision.decision).toBe("block");
    expect(end.stream.checks).toBe(1);
  });

  it("sentence mode holds sentence 2 until its check, after releasing sentence 1 on its own", async () => {
    const monitor = testMonitor(testOtel());
    const events: StreamGuardEvent[] = [];
    const guard = monitor.openStreamGuard(INPUT, { ...BUDGET, mode: "sentence" }, (e) => events.push(e));
    guard.push(`${SENTENCE_1} Ship`);
    await expect.poll(() => events.length).toBe(1);
    expect(events[0]).toMatchObject({ type: "release", text: SENTENCE_1 });
    guard.push("ping is free on orders over $50.");
    guard.end();
    await guard.done;
    expect(events.map((e) => e.text).join("")).toBe(GROUNDED);
  });

  it("annotate mode releases every delta at once and retracts the exact range of the invented claim", async () => {
    const monitor = testMonitor(testOtel());
    const events: StreamGuardEvent[] = [];
    const guard = monitor.openStreamGuard(INPUT, { ...BUDGET, mode: "annotate" }, (e) => events.push(e));
    guard.push(INVENTED.slice(0, 30));
    expect(events).toEqual([{ type: "release", start: 0, end: 30, text: INVENTED.slice(0, 30) }]);
    guard.push(INVENTED.slice(30));
    expect(events.map((e) => e.text).join("")).toBe(INVENTED);
    guard.end();
    const end = await guard.done;
    const retracts = events.filter((e) => e.type === "retract");
    expect(retracts).toEqual([expect.objectContaining({ type: "retract", start: 49, end: INVENTED.length, text: "", reason: "ungrounded" })]);
    expect(end.decision).toMatchObject({ decision: "block", text: INVENTED });
    expect(monitor.stats().guard.block).toBe(1);
  });

  it("reads OpenAI chat-completions chunks and Responses events (shaped as the SDK yields them)", async () => {
    const monitor = testMonitor(testOtel());
    async function* chat(): AsyncGenerator<unknown> {
      yield { id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] };
      for await (const d of deltas(GROUNDED)) yield { id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: d }, finish_reason: null }] };
      yield { id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] };
      yield { id: "c", object: "chat.completion.chunk", choices: [], usage: { prompt_tokens: 10, completion_tokens: 20 } };
    }
    async function* responses(): AsyncGenerator<unknown> {
      yield { type: "response.created", response: { id: "r" } };
      yield { type: "response.output_item.added", item: { type: "message" } };
      for await (const d of deltas(GROUNDED)) yield { type: "response.output_text.delta", delta: d, item_id: "m", output_index: 0, content_index: 0 };
      yield { type: "response.output_text.done", text: GROUNDED };
      yield { type: "response.completed", response: { id: "r", status: "completed" } };
    }
    for (const source of [chat(), responses()]) {
      const { text, end } = await collect(monitor, source, { mode: "sentence" });
      expect(text).toBe(GROUNDED);
      expect(end.decision.decision).toBe("pass");
    }
    expect(monitor.stats().guard.pass).toBe(2);
  });

  it("decodes a ReadableStream of UTF-8 bytes split inside multi-byte characters", async () => {
    const monitor = testMonitor(testOtel());
    const answer = "The café sells espresso for €3 each. It opens at 7 am every day.";
    const bytes = new TextEncoder().encode(answer);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        // Pieces of 1–3 bytes: "é" (2 bytes) and "€" (3 bytes) are cut between pieces.
        for (let i = 0, n = 1; i < bytes.length; i += n, n = (n % 3) + 1) controller.enqueue(bytes.slice(i, i + n));
        controller.close();
      },
    });
    const events: StreamGuardEvent[] = [];
    for await (const e of monitor.guardStream(stream, { route: "/cafe", context: [answer] }, { ...BUDGET, mode: "sentence" })) events.push(e);
    expect(events.map((e) => e.text).join("")).toBe(answer);
    expect((events.at(-1) as StreamGuardEnd).decision.decision).toBe("pass");
  });

  it("ends a source that throws mid-stream with a bypass decision (source_error), failing closed, without throwing", async () => {
    const monitor = testMonitor(testOtel());
    async function* failing(): AsyncGenerator<string> {
      yield `${SENTENCE_1} `;
      throw new Error("connection reset");
    }
    const { end, text } = await collect(monitor, failing(), { mode: "buffer" });
    expect(end.decision).toMatchObject({ decision: "bypass", reason: "source_error", outcome: "block" });
    expect((end.decision as { detail: string }).detail).toContain("connection reset");
    expect(text).toBe(DEFAULT_GUARD_REPLACEMENT);
    expect(end.stream.ending).toBe("source_error");
    expect(monitor.stats().guard.bypass.source_error).toBe(1);
    // Not a stream at all: the same.
    const bad = await collect(monitor, 42 as unknown as AsyncIterable<string>, { mode: "sentence", onFail: "pass" });
    expect(bad.end.decision).toMatchObject({ decision: "bypass", reason: "source_error", outcome: "pass" });
    expect(monitor.stats().guard.bypass.source_error).toBe(2);
  });

  it("bypasses a stream over maxAnswerChars mid-stream: the replacement failing closed, the rest unchecked with onFail pass", async () => {
    const monitor = testMonitor(testOtel(), { scoring: { backend: "offline", maxAnswerChars: 100 } });
    const long = `${GROUNDED} ${"It is so. ".repeat(10)}`;
    const closed = await collect(monitor, deltas(long), { mode: "sentence" });
    expect(closed.end.decision).toMatchObject({ decision: "bypass", reason: "over_limits", outcome: "block" });
    expect(closed.text.endsWith(DEFAULT_GUARD_REPLACEMENT)).toBe(true);
    const open = await collect(monitor, deltas(long), { mode: "sentence", onFail: "pass" });
    expect(open.text).toBe(long);
    expect(open.end.decision).toMatchObject({ decision: "bypass", reason: "over_limits", outcome: "pass" });
    expect(monitor.stats().guard.bypass.over_limits).toBe(2);
  });

  it("turns bad stream options into a bypass (invalid_input naming the field), never a throw", async () => {
    const monitor = testMonitor(testOtel());
    const { end } = await collect(monitor, deltas(GROUNDED), { mode: "paragraph" as "sentence" });
    expect(end.decision).toMatchObject({ decision: "bypass", reason: "invalid_input" });
    expect((end.decision as { detail: string }).detail).toContain("guardStream.mode");
  });
  it("annotate mode with action correct: the decision's answer applies the retraction, its text is what the user saw", async () => {
    const monitor = testMonitor(testOtel());
    const { text, end } = await collect(monitor, deltas(INVENTED), { mode: "annotate", action: "correct" });
    expect(text).toBe(INVENTED);
    expect(end.decision).toMatchObject({ decision: "correct", answer: SENTENCE_1, text: INVENTED, ranges: [{ start: 49, end: INVENTED.length }] });
  });

  it("sentence mode holds a sentence with no checkable claim (a greeting) until one that has, then releases both", async () => {
    const monitor = testMonitor(testOtel());
    const answer = `Sure! ${GROUNDED}`;
    const { events, text, end } = await collect(monitor, deltas(answer), { mode: "sentence" });
    expect(text).toBe(answer);
    expect(events[0]).toMatchObject({ type: "release", start: 0 });
    expect((events[0] as { end: number }).end).toBeGreaterThan("Sure!".length);
    expect(end.decision.decision).toBe("pass");
  });

  it("an empty stream is unscorable, as guard() says of an empty answer", async () => {
    const monitor = testMonitor(testOtel());
    const { end, text } = await collect(monitor, deltas(""), { mode: "sentence" });
    expect(end.decision).toMatchObject({ decision: "bypass", reason: "unscorable", outcome: "block" });
    expect(text).toBe(DEFAULT_GUARD_REPLACEMENT);
  });

  it("a listener that aborts from inside an event gets nothing after the end event", async () => {
    const monitor = testMonitor(testOtel());
    const events: StreamGuardEvent[] = [];
    const guard = monitor.openStreamGuard(INPUT, { ...BUDGET, mode: "annotate" }, (e) => {
      events.push(e);
      if (e.type === "release") guard.abort("cancelled");
    });
    guard.push(GROUNDED);
    const end = await guard.done;
    expect(events.map((e) => e.type)).toEqual(["release", "end"]);
    expect(end.decision).toMatchObject({ decision: "bypass", reason: "cancelled" });
    expect(guard.push("more")).toBe(false);
  });
  for (const correction of ["remove", "mark"] as const) {
    it(`corrects (${correction}) a streamed answer to what guard() makes of the whole answer, in sentence and buffer mode`, async () => {
      const monitor = testMonitor(testOtel());
      const whole = await monitor.guard({ ...INPUT, answer: MIXED }, { ...BUDGET, action: "correct", correction });
      expect(whole.decision).toBe("correct");
      for (const mode of ["sentence", "buffer"] as const) {
        const { events, text, end } = await collect(monitor, deltas(MIXED, 5), { mode, action: "correct", correction });
        expect(text).toBe(whole.text);
        expectContiguous(events);
        expect(end.decision).toMatchObject({ decision: "correct", text: whole.text, ranges: (whole as { ranges: unknown }).ranges });
      }
    });
  }

  it("records one gen_ai.guardrail.result event per stream, whatever number of checks it took", async () => {
    const otel = testOtel();
    const monitor = testMonitor(otel);
    const events: StreamGuardEvent[] = [];
    const guard = monitor.openStreamGuard(INPUT, { ...BUDGET, mode: "sentence" }, (e) => events.push(e));
    guard.push(`${SENTENCE_1} `);
    await expect.poll(() => events.length).toBe(1);
    guard.push("Shipping is free on orders over $50.");
    guard.end();
    const end = await guard.done;
    expect(end.stream.checks).toBe(2);
    const recorded = otel.logs.getFinishedLogRecords().filter((l) => l.eventName === EVENT_GEN_AI_GUARDRAIL_RESULT);
    expect(recorded.map((r) => r.attributes["gen_ai.guardrail.result.value"])).toEqual(["pass"]);
    expect(monitor.stats().guard.pass).toBe(1);
  });

  it("resolves stream options over the guard defaults; a bad one is a ConfigError naming its field", () => {
    expect(resolveStreamGuardOptions(undefined)).toMatchObject({ mode: "sentence", maxPendingChars: 600, budgetMs: 200, onFail: "block" });
    expect(resolveStreamGuardOptions({ mode: "annotate", maxPendingChars: 50, budgetMs: 30 })).toMatchObject({ mode: "annotate", maxPendingChars: 50, budgetMs: 30 });
    for (const [options, field] of [
      [{ mode: "paragraph" }, "guardStream.mode"],
      [{ maxPendingChars: 5 }, "guardStream.maxPendingChars"],
      [{ signal: "stop" }, "guardStream.signal"],
      [{ budgetMs: 0 }, "guard.budgetMs"],
    ] as const) {
      let thrown: unknown;
      try {
        resolveStreamGuardOptions(options as never);
      } catch (error) {
        thrown = error;
      }
      expect(isConfigError(thrown) && thrown.field).toBe(field);
    }
  });
});
