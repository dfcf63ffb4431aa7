/**
 * Guard mode end to end on streamed answers: the real `openai` client (test/instrumentations/otel)
 * streaming from a local OpenAI-compatible server, (a) through Monitor.guardStream, chat completions
 * and Responses, in every mode; (b) through guardSse in an express app that proxies the openai stream
 * to a fetch client as server-sent events; (c) a client that disconnects mid-stream: the app's
 * upstream openai request is aborted, the stream's one decision recorded, nothing left running.
 * On the offline tier, so it runs in seconds.
 */
import { existsSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import express from "express";
import { beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { DEFAULT_GUARD_REPLACEMENT } from "../../src/sdk/guard-options.ts";
import { guardSse } from "../../src/sdk/guard-sse.ts";
import type { GuardSseOptions } from "../../src/sdk/guard-sse-options.ts";
import type { StreamGuardEvent, StreamGuardMode, StreamGuardOptions } from "../../src/sdk/guard-stream-types.ts";
import type { GuardDecision } from "../../src/sdk/guard-types.ts";
import type { Monitor } from "../../src/sdk/types.ts";
import { startFakeOpenAIStream } from "../helpers/fake-openai-stream.ts";
import type { FakeStreamServer } from "../helpers/fake-openai-stream.ts";
import { testMonitor } from "../helpers/monitor.ts";
import { testOtel } from "../helpers/otel.ts";

const OPENAI = join(import.meta.dirname, "..", "instrumentations", "otel", "node_modules", "openai", "index.mjs");
const installed = existsSync(OPENAI);

/** The few members of the openai client used here. */
interface OpenAIClient {
  chat: { completions: { create(body: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<AsyncIterable<unknown>> } };
  responses: { create(body: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<AsyncIterable<unknown>> };
}
type OpenAIConstructor = new (options: { baseURL: string; apiKey: string; maxRetries?: number }) => OpenAIClient;

/** The offline backend finds GROUNDED supported and the second sentence of INVENTED contradicted (90 days for 30) by this context. */
const CONTEXT = ["Returns are accepted within 30 days of delivery for a full refund. Shipping is free on orders over $50."];
const GROUNDED = "Shipping is free on orders over $50. Returns are accepted within 30 days of delivery.";
const INVENTED = "Shipping is free on orders over $50. Returns are accepted within 90 days of delivery.";
const SENTENCE_1 = "Shipping is free on orders over $50.";
const ANSWERS = { "Is it grounded?": GROUNDED, "Is it invented?": INVENTED };
const MODES: readonly StreamGuardMode[] = ["buffer", "sentence", "annotate"];
/** Generous: a loaded machine still scores within it. */
const BUDGET_MS = 20_000;

const messages = (question: string) => [{ role: "system", content: `Answer from: ${CONTEXT[0]}` }, { role: "user", content: question }];

describe.skipIf(!installed)("guarded streams with the real openai client", () => {
  let OpenAI: OpenAIConstructor;
  beforeAll(async () => {
    OpenAI = ((await import(pathToFileURL(OPENAI).href)) as { default: OpenAIConstructor }).default;
  });

  async function setup(delayMs = 0): Promise<{ fake: FakeStreamServer; client: OpenAIClient; monitor: Monitor }> {
    const fake = await startFakeOpenAIStream({ answers: ANSWERS, chunkChars: 7, delayMs });
    onTestFinished(() => fake.close());
    return { fake, client: new OpenAI({ baseURL: fake.url, apiKey: "test", maxRetries: 0 }), monitor: testMonitor(testOtel()) };
  }

  /** The chat or Responses stream of a question, as the openai client gives it. */
  const open = (client: OpenAIClient, api: "chat" | "responses", question: string, signal?: AbortSignal): Promise<AsyncIterable<unknown>> =>
    api === "chat"
      ? client.chat.completions.create({ model: "gpt-4o-mini", stream: true, messages: messages(question) }, signal ? { signal } : {})
      : client.responses.create({ model: "gpt-4o-mini", stream: true, input: messages(question) }, signal ? { signal } : {});

  /** The text of an unguarded stream. */
  async function unguarded(stream: AsyncIterable<unknown>): Promise<string> {
    let text = "";
    for await (const item of stream as AsyncIterable<{ type?: string; delta?: string; choices?: Array<{ delta?: { content?: string } }> }>) {
      text += item.type === "response.output_text.delta" ? (item.delta ?? "") : (item.choices?.[0]?.delta?.content ?? "");
    }
    return text;
  }

  /** Every event of a guarded stream and the text the user is sent. */
  async function guarded(monitor: Monitor, stream: AsyncIterable<unknown>, options: StreamGuardOptions): Promise<{ events: StreamGuardEvent[]; text: string; decision: GuardDecision }> {
    const events: StreamGuardEvent[] = [];
    for await (const event of monitor.guardStream(stream, { route: "/chat", context: CONTEXT }, { budgetMs: BUDGET_MS, ...options })) events.push(event);
    const end = events.at(-1);
    if (end?.type !== "end") throw new Error(`the last event is ${end?.type}, not end`);
    return { events, text: events.map((e) => e.text).join(""), decision: end.decision };
  }

  describe("(a) Monitor.guardStream over the openai client's streams", () => {
    for (const api of ["chat", "responses"] as const) {
      it(`${api}: a grounded answer's released text is the unguarded stream's, byte for byte, in every mode`, async () => {
        const { client, monitor } = await setup();
        const reference = await unguarded(await open(client, api, "Is it grounded?"));
        expect(reference).toBe(GROUNDED);
        for (const mode of MODES) {
          const { text, decision } = await guarded(monitor, await open(client, api, "Is it grounded?"), { mode });
          expect([mode, text]).toEqual([mode, reference]);
          expect([mode, decision.decision]).toEqual([mode, "pass"]);
        }
        expect(monitor.stats().guard).toMatchObject({ pass: 3, block: 0, correct: 0 });
      });

      it(`${api}: an invented number is blocked (buffer, sentence), corrected (action correct), retracted (annotate)`, async () => {
        const { client, monitor } = await setup();
        const run = (options: StreamGuardOptions) => open(client, api, "Is it invented?").then((s) => guarded(monitor, s, options));

        const buffer = await run({ mode: "buffer" });
        expect([buffer.text, buffer.decision.decision]).toEqual([DEFAULT_GUARD_REPLACEMENT, "block"]);
        const sentence = await run({ mode: "sentence" });
        expect([sentence.text, sentence.decision.decision]).toEqual([`${SENTENCE_1} ${DEFAULT_GUARD_REPLACEMENT}`, "block"]);

        const bufferCorrect = await run({ mode: "buffer", action: "correct" });
        expect([bufferCorrect.text, bufferCorrect.decision.decision]).toEqual([SENTENCE_1, "correct"]);
        const sentenceCorrect = await run({ mode: "sentence", action: "correct" });
        expect([sentenceCorrect.text, sentenceCorrect.decision.decision]).toEqual([SENTENCE_1, "correct"]);
        const marked = await run({ mode: "sentence", action: "correct", correction: "mark" });
        expect(marked.text).toBe(`${SENTENCE_1} [unverified: Returns are accepted within 90 days of delivery.]`);

        const annotate = await run({ mode: "annotate" });
        expect(annotate.text).toBe(INVENTED);
        const retractions = annotate.events.filter((e) => e.type === "retract");
        expect(retractions.map((e) => INVENTED.slice(e.start, e.end))).toEqual(["Returns are accepted within 90 days of delivery."]);
        expect(annotate.decision.decision).toBe("block");
      });
    }
  });

  /** An express app proxying the openai chat stream as SSE: /guarded/:q through guardSse, /plain/:q without. */
  async function proxy(client: OpenAIClient, monitor: Monitor, options: Partial<GuardSseOptions> = {}) {
    const decisions: GuardDecision[] = [];
    let upstreamAborted = 0;
    const app = express();
    const handler = async (req: express.Request, res: express.Response): Promise<void> => {
      // Stop the upstream when the client goes: the openai request is aborted.
      const controller = new AbortController();
      res.on("close", () => {
        if (!res.writableEnded) controller.abort();
      });
      res.setHeader("content-type", "text/event-stream");
      res.setHeader("cache-control", "no-cache");
      try {
        const stream = await open(client, "chat", String(req.params.q), controller.signal);
        // an aborted openai stream ends its loop (or throws an abort error)
        for await (const chunk of stream) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      } catch {
        // the abort: counted below
      }
      if (controller.signal.aborted) {
        upstreamAborted += 1;
        return;
      }
      res.write("data: [DONE]\n\n");
      res.end();
    };
    app.get("/guarded/:q", guardSse(monitor, { input: () => ({ context: CONTEXT }), budgetMs: BUDGET_MS, onDecision: (d) => decisions.push(d), ...options }), (req, res) => void handler(req, res));
    app.get("/plain/:q", (req, res) => void handler(req, res));
    const server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    onTestFinished(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const get = async (path: string): Promise<string> => (await fetch(`${url}${path}`)).text();
    return { url, get, decisions, upstreamAborted: () => upstreamAborted };
  }

  /** The chat text a client reads from an SSE body, and its `event: guard` payloads. */
  function read(body: string): { text: string; guard: unknown[] } {
    let text = "";
    const guard: unknown[] = [];
    for (const frame of body.split("\n\n")) {
      const data = frame.split("\n").find((l) => l.startsWith("data: "))?.slice(6);
      if (!data || data[0] !== "{") continue;
      if (frame.startsWith("event: guard\n")) guard.push(JSON.parse(data));
      else text += (JSON.parse(data) as { choices?: Array<{ delta?: { content?: string } }> }).choices?.[0]?.delta?.content ?? "";
    }
    return { text, guard };
  }

  describe("(b) guardSse in an express app proxying the openai stream", () => {
    for (const mode of MODES) {
      it(`${mode}: a grounded answer's SSE body is byte for byte the unguarded route's`, async () => {
        const { client, monitor } = await setup();
        const app = await proxy(client, monitor, { mode });
        const plain = await app.get("/plain/Is%20it%20grounded%3F");
        expect(read(plain).text).toBe(GROUNDED);
        expect(await app.get("/guarded/Is%20it%20grounded%3F")).toBe(plain);
        expect(app.decisions.map((d) => [d.decision, d.route])).toEqual([["pass", "/guarded/:q"]]);
      });
    }

    it("an invented number: the replacement (sentence), the correction (action correct), a retraction (annotate), each with the decision frame", async () => {
      const { client, monitor } = await setup();
      const path = "/guarded/Is%20it%20invented%3F";
      const blocked = read(await (await proxy(client, monitor, { mode: "sentence" })).get(path));
      expect(blocked.text).toBe(`${SENTENCE_1} ${DEFAULT_GUARD_REPLACEMENT}`);
      expect(blocked.guard).toEqual([expect.objectContaining({ type: "decision", decision: "block" })]);
      const corrected = read(await (await proxy(client, monitor, { mode: "sentence", action: "correct", correction: "mark" })).get(path));
      expect(corrected.text).toBe(`${SENTENCE_1} [unverified: Returns are accepted within 90 days of delivery.]`);
      expect(corrected.guard).toEqual([expect.objectContaining({ type: "decision", decision: "correct" })]);
      const annotated = read(await (await proxy(client, monitor, { mode: "annotate" })).get(path));
      expect(annotated.text).toBe(INVENTED);
      expect(annotated.guard).toEqual([{ type: "retract", start: SENTENCE_1.length + 1, end: INVENTED.length, reason: "ungrounded" }, expect.objectContaining({ type: "decision", decision: "block" })]);
    });
  });

  describe("(c) a client that disconnects mid-stream", () => {
    it("guardStream: a consumer that stops reading aborts the openai request, and the stream is decided cancelled", async () => {
      const { fake, client, monitor } = await setup(40);
      const events: StreamGuardEvent[] = [];
      for await (const event of monitor.guardStream(await open(client, "chat", "Is it grounded?"), { route: "/chat", context: CONTEXT }, { mode: "annotate", budgetMs: BUDGET_MS })) {
        events.push(event);
        if (event.type === "release") break;
      }
      expect(events.map((e) => e.type)).toEqual(["release"]);
      await expect.poll(() => fake.disconnected(), { timeout: 10_000 }).toBe(1);
      await expect.poll(() => monitor.stats().guard.bypass.cancelled).toBe(1);
      expect(monitor.stats().pending).toBe(0);
    });

    it("aborts the app's openai request upstream, records the stream's one decision, leaves nothing pending", async () => {
      // 40 ms between chunks: the client is gone long before the answer's end.
      const { fake, client, monitor } = await setup(40);
      const app = await proxy(client, monitor, { mode: "sentence" });
      const controller = new AbortController();
      const res = await fetch(`${app.url}/guarded/Is%20it%20grounded%3F`, { signal: controller.signal });
      const reader = res.body!.getReader();
      await reader.read(); // the role chunk: the stream is under way
      void reader.closed.catch(() => undefined);
      controller.abort();
      await expect.poll(() => fake.disconnected(), { timeout: 10_000 }).toBe(1);
      await expect.poll(() => app.upstreamAborted(), { timeout: 10_000 }).toBe(1);
      expect(fake.completed()).toBe(0);
      expect(fake.open()).toBe(0);
      await expect.poll(() => app.decisions.length).toBe(1);
      expect(app.decisions[0]).toMatchObject({ decision: "bypass", reason: "cancelled" });
      await expect.poll(() => monitor.stats().pending).toBe(0);
      expect(monitor.stats().guard.bypass.cancelled).toBe(1);
      // the monitor still guards the next stream
      expect(read(await app.get("/guarded/Is%20it%20grounded%3F")).text).toBe(GROUNDED);
    });
  });
});
