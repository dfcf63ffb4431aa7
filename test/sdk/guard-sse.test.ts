/** guardSse: a real express app streaming OpenAI-shaped server-sent events, guarded by a monitor on the offline tier. */
import { describe, expect, it } from "vitest";
import { DEFAULT_GUARD_REPLACEMENT } from "../../src/sdk/guard-options.ts";
import { guardSse } from "../../src/sdk/guard-sse.ts";
import type { GuardSseOptions } from "../../src/sdk/guard-sse-options.ts";
import type { GuardDecision } from "../../src/sdk/guard-types.ts";
import type { Monitor } from "../../src/sdk/types.ts";
import { chatFrames, pieces, responseFrames } from "../helpers/fake-openai-stream.ts";
import { chat, startJudgeServer } from "../helpers/judge-server.ts";
import { MONITOR_TEST_ENV, testMonitor } from "../helpers/monitor.ts";
import { testOtel } from "../helpers/otel.ts";
import { startSseApp } from "../helpers/sse-app.ts";
import type { SseAppHandler } from "../helpers/sse-app.ts";
import { waitForCondition } from "../helpers/wait.ts";

/** The offline backend finds each sentence below supported or contradicted by this context. */
const CONTEXT = ["Returns are accepted within 30 days of delivery for a full refund. Shipping is free on orders over $50."];
const GROUNDED = "Shipping is free on orders over $50. Returns are accepted within 30 days of delivery.";
/** Sentence 1 supported, sentence 2 with an invented number (90 days for 30). */
const INVENTED = "Shipping is free on orders over $50. Returns are accepted within 90 days of delivery.";
const SENTENCE_1 = "Shipping is free on orders over $50.";
/** Generous: a loaded machine still scores within it. */
const BUDGET_MS = 20_000;

/** The chat frames of an answer in pieces of 7 code points (one straddles the sentence boundary), after a keep-alive comment. */
const chatWrites = (answer: string): string[] => [": keep-alive\n\n", ...chatFrames("chatcmpl-1", pieces(answer, 7))];
/** A frame guardSse synthesizes in that stream by default. */
const synthesized = (text: string): string => `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1_700_000_000, model: "gpt-4o-mini", choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`;

/** The text a client reads from a body: the chat chunks' and Responses deltas' text, in order. */
function clientText(body: string): string {
  let text = "";
  for (const frame of body.split("\n\n")) {
    const data = frame.split("\n").find((l) => l.startsWith("data: "))?.slice(6);
    if (!data || data[0] !== "{") continue;
    const json = JSON.parse(data) as { type?: string; delta?: string; choices?: Array<{ delta?: { content?: string } }> };
    if (json.type === "response.output_text.delta") text += json.delta ?? "";
    else text += json.choices?.[0]?.delta?.content ?? "";
  }
  return text;
}

/** The `event: guard` frames of a body, parsed. */
const guardEvents = (body: string): unknown[] =>
  body
    .split("\n\n")
    .filter((f) => f.startsWith("event: guard\n"))
    .map((f) => JSON.parse(f.slice("event: guard\ndata: ".length)) as unknown);

async function app(monitor: Monitor, handler: SseAppHandler, options: Partial<GuardSseOptions> = {}) {
  const decisions: GuardDecision[] = [];
  const sse = await startSseApp(guardSse(monitor, { input: () => ({ context: CONTEXT, question: "Returns and shipping?" }), budgetMs: BUDGET_MS, onDecision: (d) => decisions.push(d), ...options }), handler);
  const get = async (path: "guarded" | "plain"): Promise<string> => (await fetch(`${sse.url}/${path}/1`)).text();
  return { ...sse, decisions, get };
}

describe("guardSse on the offline tier", () => {
  for (const mode of ["buffer", "sentence", "annotate"] as const) {
    it(`${mode} mode: a grounded answer's stream goes out byte for byte, as the same route sends it unguarded`, async () => {
      const monitor = testMonitor(testOtel());
      const sse = await app(monitor, { writes: chatWrites(GROUNDED) }, { mode });
      const guarded = await sse.get("guarded");
      expect(guarded).toBe(await sse.get("plain"));
      expect(guarded).toBe(chatWrites(GROUNDED).join(""));
      expect(sse.decisions.map((d) => [d.decision, d.route])).toEqual([["pass", "/guarded/:id"]]);
      expect(monitor.stats().guard.routes["/guarded/:id"]).toMatchObject({ pass: 1 });
    });
  }

  it("sentence mode: an invented number is blocked after the supported sentence, the replacement before [DONE], the decision last", async () => {
    const monitor = testMonitor(testOtel());
    const writes = chatWrites(INVENTED);
    const sse = await app(monitor, { writes }, { mode: "sentence" });
    const body = await sse.get("guarded");
    expect(sse.decisions.map((d) => d.decision)).toEqual(["block"]);
    // the comment, the role chunk and the five pieces before the boundary as written; the sixth (". Retur") straddles it: its released "." alone
    expect(body).toBe(
      [
        ...writes.slice(0, 7),
        synthesized("."),
        synthesized(` ${DEFAULT_GUARD_REPLACEMENT}`),
        ...writes.slice(-2),
        `event: guard\ndata: {"type":"decision","decision":"block","score":${(sse.decisions[0] as { score: number }).score}}\n\n`,
      ].join(""),
    );
    expect(clientText(body)).toBe(`${SENTENCE_1} ${DEFAULT_GUARD_REPLACEMENT}`);
  });

  it("sentence mode, action correct: the invented sentence is removed, the rest sent as it came", async () => {
    const monitor = testMonitor(testOtel());
    const sse = await app(monitor, { writes: chatWrites(INVENTED) }, { mode: "sentence", action: "correct" });
    const body = await sse.get("guarded");
    expect(clientText(body)).toBe(SENTENCE_1);
    expect(sse.decisions.map((d) => d.decision)).toEqual(["correct"]);
    expect(guardEvents(body)).toEqual([expect.objectContaining({ type: "decision", decision: "correct" })]);
  });

  it("buffer mode: nothing but the replacement reaches the client of an invented answer", async () => {
    const monitor = testMonitor(testOtel());
    const writes = chatWrites(INVENTED);
    const sse = await app(monitor, { writes }, { mode: "buffer" });
    const body = await sse.get("guarded");
    expect(clientText(body)).toBe(DEFAULT_GUARD_REPLACEMENT);
    expect(body.startsWith(`${writes[0]}${writes[1]}`)).toBe(true);
  });

  it("annotate mode: the answer streams as it came, with a retraction of the invented sentence and the decision", async () => {
    const monitor = testMonitor(testOtel());
    const sse = await app(monitor, { writes: chatWrites(INVENTED) }, { mode: "annotate" });
    const body = await sse.get("guarded");
    expect(clientText(body)).toBe(INVENTED);
    expect(guardEvents(body)).toEqual([{ type: "retract", start: expect.any(Number), end: expect.any(Number), reason: "ungrounded" }, expect.objectContaining({ type: "decision" })]);
  });

  it("a Responses stream: the replacement as a Responses delta, and no event repeating the blocked answer", async () => {
    const monitor = testMonitor(testOtel());
    const writes = responseFrames("r1", pieces(INVENTED, 7));
    const sse = await app(monitor, { writes }, { mode: "sentence" });
    const body = await sse.get("guarded");
    expect(clientText(body)).toBe(`${SENTENCE_1} ${DEFAULT_GUARD_REPLACEMENT}`);
    expect(body).not.toContain("90 days");
    expect(body).not.toContain("response.completed");
    expect(body).toContain(`event: response.output_text.delta\ndata: {"type":"response.output_text.delta","item_id":"msg_r1","output_index":0,"content_index":0,"delta":${JSON.stringify(` ${DEFAULT_GUARD_REPLACEMENT}`)}}\n\n`);
    // a grounded one goes out whole, the events repeating the answer included
    const ok = await app(monitor, { writes: responseFrames("r2", pieces(GROUNDED, 7)) }, { mode: "sentence" });
    expect(await ok.get("guarded")).toBe(responseFrames("r2", pieces(GROUNDED, 7)).join(""));
  });
});

describe("guardSse bypasses", () => {
  it("fails closed when the scorer hangs (the replacement, once the budget is spent), and open with onFail pass (byte for byte)", async () => {
    const judge = await startJudgeServer(() => ({ body: chat("ENTAILMENT"), delayMs: 60_000 }));
    const monitor = testMonitor(testOtel(), { env: { ...MONITOR_TEST_ENV, GROUNDWATCH_JUDGE_API_KEY: "k" }, scoring: { backend: "judge", judgeUrl: judge.url, judgeModel: "m" } });
    await monitor.ready();
    const closed = await app(monitor, { writes: chatWrites(GROUNDED) }, { budgetMs: 300, mode: "buffer" });
    expect(clientText(await closed.get("guarded"))).toBe(DEFAULT_GUARD_REPLACEMENT);
    expect(closed.decisions).toEqual([expect.objectContaining({ decision: "bypass", reason: "budget_exceeded", outcome: "block" })]);
    const open = await app(monitor, { writes: chatWrites(GROUNDED) }, { budgetMs: 300, mode: "buffer", onFail: "pass" });
    expect(await open.get("guarded")).toBe(chatWrites(GROUNDED).join(""));
    expect(open.decisions).toEqual([expect.objectContaining({ decision: "bypass", reason: "budget_exceeded", outcome: "pass" })]);
  });

  it("an answer over the scorer's maxAnswerChars is a bypass (over_limits): the replacement, or the stream as written with onFail pass", async () => {
    const monitor = testMonitor(testOtel(), { scoring: { backend: "offline", maxAnswerChars: 100 } });
    const long = `${GROUNDED} ${GROUNDED}`;
    const closed = await app(monitor, { writes: chatWrites(long) }, { mode: "buffer" });
    expect(clientText(await closed.get("guarded"))).toBe(DEFAULT_GUARD_REPLACEMENT);
    expect(closed.decisions).toEqual([expect.objectContaining({ decision: "bypass", reason: "over_limits", outcome: "block" })]);
    const open = await app(monitor, { writes: chatWrites(long) }, { mode: "sentence", onFail: "pass" });
    expect(await open.get("guarded")).toBe(chatWrites(long).join(""));
    expect(open.decisions).toEqual([expect.objectContaining({ decision: "bypass", reason: "over_limits", outcome: "pass" })]);
  });

  it("a frame over maxFrameBytes stops the check: the replacement (fail closed), or every byte as written (onFail pass)", async () => {
    const writes = [...chatWrites(GROUNDED).slice(0, 4), `event: meta\ndata: ${"x".repeat(3000)}\n\n`, ...chatWrites(GROUNDED).slice(4)];
    const monitor = testMonitor(testOtel());
    const closed = await app(monitor, { writes }, { maxFrameBytes: 1024 });
    const body = await closed.get("guarded");
    expect(clientText(body)).toBe(DEFAULT_GUARD_REPLACEMENT);
    expect(body).not.toContain("xxx");
    expect(closed.decisions).toEqual([expect.objectContaining({ decision: "bypass", reason: "source_error", outcome: "block" })]);
    const open = await app(monitor, { writes }, { maxFrameBytes: 1024, onFail: "pass" });
    expect(await open.get("guarded")).toBe(writes.join(""));
    expect(open.decisions).toEqual([expect.objectContaining({ decision: "bypass", reason: "source_error", outcome: "pass" })]);
    expect(monitor.stats().guard.bypass.source_error).toBe(2);
  });

  it("a delta extractor that throws stops the check (a bypass, reported); the host stays up", async () => {
    const monitor = testMonitor(testOtel());
    const errors: unknown[] = [];
    const sse = await app(
      monitor,
      { writes: chatWrites(GROUNDED) },
      {
        mode: "buffer",
        delta: (data) => {
          if (data.includes("accepte")) throw new Error("cannot read");
          return data === "[DONE]" ? undefined : (JSON.parse(data) as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta.content;
        },
        onError: (e) => errors.push(e),
      },
    );
    expect(clientText(await sse.get("guarded"))).toBe(DEFAULT_GUARD_REPLACEMENT);
    expect(errors).toEqual([expect.objectContaining({ message: "cannot read" })]);
    expect(sse.decisions).toEqual([expect.objectContaining({ decision: "bypass", reason: "source_error" })]);
  });

  it("a client that disconnects mid-stream cancels the guard: one cancelled decision, its check in flight given up, nothing pending, the handler stops", async () => {
    // The judge never answers: the first sentence's check is in flight when the client goes.
    const judge = await startJudgeServer(() => ({ body: chat("ENTAILMENT"), delayMs: 60_000 }));
    const monitor = testMonitor(testOtel(), { env: { ...MONITOR_TEST_ENV, GROUNDWATCH_JUDGE_API_KEY: "k" }, scoring: { backend: "judge", judgeUrl: judge.url, judgeModel: "m" } });
    await monitor.ready();
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const writes = chatWrites(GROUNDED);
    // the comment, the role chunk and the first sentence are written; then the handler waits
    const sse = await app(monitor, { writes, gate: (i) => (i < 9 ? Promise.resolve() : gate) }, { mode: "sentence" });
    const controller = new AbortController();
    const res = await fetch(`${sse.url}/guarded/1`, { signal: controller.signal });
    const reader = res.body!.getReader();
    // nothing of the answer before its check: the comment and the role chunk only
    let received = "";
    while (received.length < writes.slice(0, 2).join("").length) received += Buffer.from((await reader.read()).value ?? []).toString();
    expect(received).toBe(writes.slice(0, 2).join(""));
    await waitForCondition("a check in flight", () => judge.requests.length > 0);
    void reader.closed.catch(() => undefined);
    controller.abort();
    await waitForCondition("the decision", () => sse.decisions.length === 1);
    expect(sse.decisions).toEqual([expect.objectContaining({ decision: "bypass", reason: "cancelled" })]);
    await expect.poll(() => judge.aborted()).toBe(judge.requests.length);
    open();
    await waitForCondition("the handler saw the close", () => sse.closedEarly() === 1);
    expect(monitor.stats().pending).toBe(0);
    expect(monitor.stats().guard.bypass.cancelled).toBe(1);
  });
});
