/**
 * guardSse in a real express app driven by a scripted stream guard: the test emits the guard's
 * events itself, so what reaches the client is checked exactly against them (frame bookkeeping,
 * ordering, disconnects), apart from any scorer.
 */
import { describe, expect, it } from "vitest";
import { isConfigError } from "../../src/config/errors.ts";
import { guardSse } from "../../src/sdk/guard-sse.ts";
import type { GuardSseOptions } from "../../src/sdk/guard-sse-options.ts";
import type { StreamGuard, StreamGuardEvent, StreamGuardListener, StreamGuardOptions } from "../../src/sdk/guard-stream-types.ts";
import type { GuardDecision } from "../../src/sdk/guard-types.ts";
import type { StreamGuardInput } from "../../src/sdk/types.ts";
import { chatFrames } from "../helpers/fake-openai-stream.ts";
import { startSseApp } from "../helpers/sse-app.ts";
import type { SseAppHandler } from "../helpers/sse-app.ts";
import { waitForCondition } from "../helpers/wait.ts";

/** One stream guard the scripted monitor opened: what it was fed, and its listener. */
interface Scripted {
  readonly input: StreamGuardInput;
  readonly options: StreamGuardOptions | undefined;
  readonly pushes: string[];
  ended: boolean;
  aborted: string | undefined;
  emit: StreamGuardListener;
}

/** A monitor whose stream guards do nothing by themselves; `auto` releases each delta at once (as annotate mode does). */
function scriptedMonitor(auto = false) {
  const guards: Scripted[] = [];
  return {
    guards,
    openStreamGuard(input: StreamGuardInput, options: StreamGuardOptions | undefined, listener: StreamGuardListener): StreamGuard {
      const g: Scripted = { input, options, pushes: [], ended: false, aborted: undefined, emit: listener };
      guards.push(g);
      let at = 0;
      return {
        push(delta) {
          g.pushes.push(delta);
          if (auto) listener({ type: "release", start: at, end: at + delta.length, text: delta });
          at += delta.length;
          return true;
        },
        end() {
          g.ended = true;
        },
        abort(reason) {
          g.aborted = reason;
          listener(end(bypass(reason === "cancelled" ? "cancelled" : "source_error", "block")));
        },
        done: new Promise(() => undefined),
        stopped: false,
      };
    },
  };
}

const decisionBase = { text: "", route: "/guarded/:id", durationMs: 1 };
const evaluation = {} as Extract<GuardDecision, { decision: "pass" }>["evaluation"];
const pass = (): GuardDecision => ({ ...decisionBase, decision: "pass", score: 0.9, evaluation });
const bypass = (reason: "cancelled" | "source_error", outcome: "block" | "pass"): GuardDecision => ({ ...decisionBase, decision: "bypass", reason, detail: reason, outcome, text: outcome === "block" ? "Sorry." : "", ...(outcome === "block" ? { replacement: "Sorry." } : {}) });
const end = (decision: GuardDecision): StreamGuardEvent => ({ type: "end", text: "", decision, stream: { mode: "sentence", checks: 1, receivedChars: 0, releasedChars: 0, firstReleaseMs: 0, ending: "complete" } });

/** Chat frames of an answer cut at the given pieces: a role chunk, the pieces, a finish chunk, [DONE]. */
const frames = (pieces: readonly string[]): string[] => chatFrames("chatcmpl-1", pieces);
const synthesized = (text: string): string => `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1_700_000_000, model: "gpt-4o-mini", choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`;

async function app(monitor: ReturnType<typeof scriptedMonitor>, handler: SseAppHandler, options: Partial<GuardSseOptions> = {}) {
  return startSseApp(guardSse(monitor, { input: () => ({ context: ["Returns take 30 days."], question: "How long?" }), ...options }), handler);
}

describe("guardSse's frame bookkeeping", () => {
  const PIECES = ["Returns take 30 da", "ys. Ship", "ping ✓ 😀 is free."];

  it("writes each frame byte for byte once its text is released, frames without text in their place", async () => {
    const monitor = scriptedMonitor();
    const writes = [": keep-alive\n\n", ...frames(PIECES)];
    const sse = await app(monitor, { writes });
    const body = fetch(`${sse.url}/guarded/1`).then((r) => r.text());
    await waitForCondition("the stream ended", () => monitor.guards[0]?.ended === true);
    const g = monitor.guards[0]!;
    expect(g.pushes).toEqual(PIECES);
    expect(g.input).toEqual({ route: "/guarded/:id", context: ["Returns take 30 days."], question: "How long?" });
    g.emit({ type: "release", start: 0, end: 22, text: "Returns take 30 days. " });
    g.emit({ type: "release", start: 22, end: PIECES.join("").length, text: "" });
    g.emit(end(pass()));
    expect(await body).toBe(writes.join(""));
    expect(await (await fetch(`${sse.url}/plain/1`)).text()).toBe(writes.join(""));
  });

  it("re-sends the released part of a frame that straddles a corrected sentence, then the correction, then closes with the decision", async () => {
    const monitor = scriptedMonitor();
    const writes = frames(PIECES);
    const sse = await app(monitor, { writes });
    const body = fetch(`${sse.url}/guarded/1`).then((r) => r.text());
    await waitForCondition("the stream ended", () => monitor.guards[0]?.ended === true);
    const g = monitor.guards[0]!;
    const total = PIECES.join("").length;
    g.emit({ type: "release", start: 0, end: 22, text: "Returns take 30 days. " });
    g.emit({ type: "correct", start: 22, end: total, text: "[unverified: Shipping ✓ 😀 is free.]", ranges: [{ start: 22, end: total }], claims: [] });
    const correct: GuardDecision = { ...decisionBase, decision: "correct", answer: "", correction: "mark", ranges: [{ start: 22, end: total }], score: 0.2, claims: [], evaluation };
    g.emit(end(correct));
    const [role, first, , , finish, done] = writes;
    // the first piece is all released: its own bytes; the second straddles the boundary: its released part alone
    expect(await body).toBe(
      [role, first, synthesized("ys. "), synthesized("[unverified: Shipping ✓ 😀 is free.]"), finish, done, `event: guard\ndata: {"type":"decision","decision":"correct","score":0.2,"ranges":[{"start":22,"end":${total}}]}\n\n`].join(""),
    );
  });

  it("on a block, sends the replacement where the answer stops and keeps [DONE] after it", async () => {
    const monitor = scriptedMonitor();
    const writes = frames(PIECES);
    const sse = await app(monitor, { writes }, { frame: (text, kind) => `data: ${kind}:${text}\n\n` });
    const body = fetch(`${sse.url}/guarded/1`).then((r) => r.text());
    await waitForCondition("the first piece pushed", () => (monitor.guards[0]?.pushes.length ?? 0) >= 1);
    const g = monitor.guards[0]!;
    g.emit({ type: "block", at: 0, replacement: "Sorry.", text: "Sorry.", reason: "ungrounded" });
    g.emit(end({ ...decisionBase, decision: "block", replacement: "Sorry.", text: "Sorry.", score: 0.1, claims: [], evaluation }));
    const [role, , , , finish, done] = writes;
    expect(await body).toBe([role, "data: replacement:Sorry.\n\n", finish, done, `event: guard\ndata: {"type":"decision","decision":"block","score":0.1}\n\n`].join(""));
  });

  it("cancels the guard when the client disconnects mid-stream, and the handler sees the close", async () => {
    const monitor = scriptedMonitor(true);
    const writes = frames(PIECES);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const decisions: GuardDecision[] = [];
    const controller = new AbortController();
    const sseOptions = { onDecision: (d: GuardDecision) => decisions.push(d) };
    const guarded = await app(monitor, { writes, gate: (i) => (i < 2 ? Promise.resolve() : held) }, sseOptions);
    const res = await fetch(`${guarded.url}/guarded/1`, { signal: controller.signal });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(Buffer.from(first.value!).toString().startsWith(writes[0]!)).toBe(true);
    void reader.closed.catch(() => undefined);
    controller.abort();
    await waitForCondition("the guard cancelled", () => monitor.guards.at(-1)?.aborted === "cancelled");
    await waitForCondition("the handler saw the close", () => guarded.closedEarly() === 1);
    expect(decisions).toEqual([expect.objectContaining({ decision: "bypass", reason: "cancelled" })]);
    release();
  });
});

describe("guardSse leaves alone", () => {
  it("a response that is not an event stream, and one whose input is undefined or throws (reported)", async () => {
    const monitor = scriptedMonitor();
    const writes = frames(["Hello."]);
    const json = await app(monitor, { writes, contentType: "application/json" });
    expect(await (await fetch(`${json.url}/guarded/1`)).text()).toBe(writes.join(""));
    const skip = await startSseApp(guardSse(monitor, { input: () => undefined }), { writes });
    expect(await (await fetch(`${skip.url}/guarded/1`)).text()).toBe(writes.join(""));
    const errors: unknown[] = [];
    const throwing = await startSseApp(
      guardSse(monitor, {
        input: () => {
          throw new Error("no context");
        },
        onError: (e) => errors.push(e),
      }),
      { writes, writeHead: true },
    );
    expect(await (await fetch(`${throwing.url}/guarded/1`)).text()).toBe(writes.join(""));
    expect(errors).toEqual([expect.objectContaining({ message: "no context" })]);
    expect(monitor.guards).toEqual([]);
  });

  it("refuses bad options at setup with a ConfigError naming the field", () => {
    const bad = (o: Partial<GuardSseOptions>): unknown => {
      try {
        guardSse(scriptedMonitor(), { input: () => undefined, ...o });
      } catch (e) {
        return isConfigError(e) ? e.field : e;
      }
      return undefined;
    };
    expect(bad({ budgetMs: 0 })).toBe("guard.budgetMs");
    expect(bad({ mode: "later" as never })).toBe("guardStream.mode");
    expect(bad({ maxFrameBytes: 10 })).toBe("guardSse.maxFrameBytes");
  });
});
