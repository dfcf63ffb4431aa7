import { describe, expect, it } from "vitest";
import type { TracedObservation } from "../../src/collector/joiner-types.ts";
import { createTraceJoiner } from "../../src/collector/joiner.ts";
import { candidates, footprint } from "../../src/collector/admission.ts";
import type { OtlpSpan } from "../../src/collector/otlp.ts";
import { copyInput, readRouting } from "../../src/sdk/input.ts";

const T = "0af7651916cd43dd8448eb211c80319c";
const span = (spanId: string, parent: string, attributes: Record<string, unknown>, name = "s"): OtlpSpan => ({ traceId: T, spanId, parentSpanId: parent, name, attributes, resource: { "service.name": "svc" } });

function joiner(now = { t: 0 }) {
  const out: TracedObservation[] = [];
  const incomplete: string[] = [];
  const j = createTraceJoiner({ timeoutMs: 1000, maxTraces: 2, now: () => now.t, onObservation: (i) => out.push(i), onIncomplete: (r) => incomplete.push(r) });
  return { j, out, incomplete, now };
}

describe("trace joining", () => {
  it("joins OpenInference retriever and LLM spans, routed by the root span's http.route", () => {
    const { j, out } = joiner();
    j.add([
      span("0000000000000002", "0000000000000001", { "openinference.span.kind": "RETRIEVER", "input.value": "How long is the return window?", "retrieval.documents.1.document.content": "Doc B", "retrieval.documents.0.document.content": "Doc A" }),
      span("0000000000000003", "0000000000000001", { "openinference.span.kind": "LLM", "llm.output_messages.0.message.role": "assistant", "llm.output_messages.0.message.content": "Thirty days." }),
    ]);
    expect(out).toHaveLength(0);
    j.add([span("0000000000000001", "", { "http.route": "/api/ask" }, "POST /api/ask")]);
    expect(out).toEqual([{ traceId: T, parentSpanId: "0000000000000003", route: "/api/ask", context: ["Doc A", "Doc B"], question: "How long is the return window?", answer: "Thirty days." }]);
  });

  it("reads GenAI retrieval documents with content and gen_ai.output.messages, and OpenLLMetry completions", () => {
    const { j, out } = joiner();
    j.add([
      span("0000000000000002", "0000000000000001", { "gen_ai.operation.name": "retrieval", "gen_ai.retrieval.query.text": "q?", "gen_ai.retrieval.documents": JSON.stringify([{ id: "d1", score: 0.9, content: "GenAI doc" }]) }),
      span("0000000000000003", "0000000000000001", { "gen_ai.operation.name": "chat", "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: "GenAI answer" }] }]) }),
      span("0000000000000001", "", {}),
    ]);
    expect(out[0]).toMatchObject({ context: [{ id: "d1", text: "GenAI doc" }], question: "q?", answer: "GenAI answer", route: "svc" });
    const second = joiner();
    second.j.add([span("0000000000000002", "", { "retrieval.documents.0.document.content": "D", "gen_ai.completion.0.content": "OpenLLMetry answer" })]);
    expect(second.out[0]?.answer).toBe("OpenLLMetry answer");
  });

  it("waits for spans arriving in later requests, then settles on the timeout", () => {
    const { j, out, now } = joiner();
    j.add([span("0000000000000002", "0000000000000001", { "retrieval.documents.0.document.content": "D" })]);
    now.t = 500;
    j.add([span("0000000000000003", "0000000000000001", { "openinference.span.kind": "LLM", "output.value": "A" })]);
    j.sweep();
    expect(out).toHaveLength(0);
    now.t = 1600;
    j.sweep();
    expect(out[0]).toMatchObject({ context: ["D"], answer: "A" });
  });

  it("counts a trace without an answer or without documents as incomplete, with the reason", () => {
    const { j, incomplete, now } = joiner();
    j.add([span("0000000000000001", "", { "retrieval.documents.0.document.content": "D" })]);
    j.add([{ ...span("0000000000000009", "", { "openinference.span.kind": "LLM", "output.value": "A" }), traceId: "1af7651916cd43dd8448eb211c80319c" }]);
    now.t = 5000;
    j.sweep();
    expect(incomplete.sort()).toEqual(["no_answer", "no_documents"]);
  });

  it("settles the oldest trace early when the buffer is full, counted", () => {
    const { j, incomplete } = joiner();
    for (const id of ["1", "2", "3"]) j.add([{ ...span("0000000000000002", "0000000000000001", {}), traceId: id.repeat(32) }]);
    expect(incomplete).toEqual(["buffer_full"]);
    expect(j.size).toBe(2);
  });
});

describe("trace joining: limits", () => {
  const doc = (n: number, size: number): OtlpSpan => ({ ...span(`00000000000001${String(n).padStart(2, "0")}`, "0000000000000001", { "retrieval.documents.0.document.content": `${n}`.padEnd(size, "d") }) });
  const llm = (answer: string): OtlpSpan => span("0000000000000003", "0000000000000001", { "openinference.span.kind": "LLM", "output.value": answer });
  const rootSpan = (attributes: Record<string, unknown> = { "http.route": "/ask" }): OtlpSpan => span("0000000000000001", "", attributes);
  function limited(options: Partial<Parameters<typeof createTraceJoiner>[0]>) {
    const out: TracedObservation[] = [];
    const incomplete: Array<[string, string]> = [];
    const now = { t: 0 };
    const j = createTraceJoiner({ timeoutMs: 1000, maxTraces: 100, now: () => now.t, onObservation: (i) => out.push(i), onIncomplete: (r, route) => incomplete.push([r, route]), ...options });
    return { j, out, incomplete, now };
  }

  it("lets go of a trace whose documents pile up across requests past maxTraceBytes, and counts it once as trace_too_large", () => {
    const { j, out, incomplete } = limited({ maxTraceBytes: 10_000 });
    for (let n = 0; n < 5; n++) j.add([doc(n, 3000)]);
    // Over the cap after the fourth request: its text is let go, what follows is not kept.
    expect(j.size).toBe(1);
    expect(j.bytes).toBe(0);
    j.add([llm("Thirty days."), rootSpan()]);
    expect(out).toEqual([]);
    expect(incomplete).toEqual([["trace_too_large", "/ask"]]);
    expect(j.size).toBe(0);
  });

  it("keeps the buffer within maxBufferBytes by settling the oldest traces early, counted as buffer_full", () => {
    const { j, incomplete } = limited({ maxBufferBytes: 10_000 });
    for (const id of ["1", "2", "3", "4"]) j.add([{ ...doc(0, 3000), traceId: id.repeat(32) }]);
    expect(j.bytes).toBeLessThanOrEqual(10_000);
    expect(j.size).toBe(3);
    expect(incomplete).toEqual([["buffer_full", "svc"]]);
  });

  it("does not score an interaction over maxAnswerChars or maxDocuments, and says why", () => {
    const long = limited({ maxAnswerChars: 10 });
    long.j.add([doc(0, 10), llm("An answer longer than ten characters."), rootSpan()]);
    expect(long.out).toEqual([]);
    expect(long.incomplete).toEqual([["answer_too_large", "/ask"]]);
    const many = limited({ maxDocuments: 2 });
    many.j.add([doc(0, 10), doc(1, 10), doc(2, 10), llm("A."), rootSpan()]);
    expect(many.out).toEqual([]);
    expect(many.incomplete).toEqual([["too_many_documents", "/ask"]]);
    const within = limited({ maxDocuments: 3, maxAnswerChars: 2 });
    within.j.add([doc(0, 10), doc(1, 10), doc(2, 10), llm("A."), rootSpan()]);
    expect(within.out).toHaveLength(1);
  });

  it("strips ANSI, control and bidi characters from routes and service names", () => {
    const { j, out, incomplete } = limited({});
    j.add([doc(0, 10), llm("A."), rootSpan({ "http.route": "\u001b[31m/ask\u202e\u0007" })]);
    expect(out[0]?.route).toBe("/ask");
    const svc = limited({});
    svc.j.add([{ ...rootSpan({}), resource: { "service.name": "\u2066evil\u2069-svc\r\n" } }]);
    svc.now.t = 5000;
    svc.j.sweep();
    expect(svc.incomplete).toEqual([["no_answer", "evil-svc"]]);
    expect(incomplete).toEqual([]);
  });

  it("names the traces a request could complete, and bounds what it would add, without changing anything", () => {
    const { j } = limited({});
    j.add([doc(0, 100)]);
    const other = { ...doc(1, 50), traceId: "1".repeat(32) };
    expect(candidates(j.lookup, { spans: [llm("Thirty days."), rootSpan(), other] })).toEqual({ routes: ["/ask"] });
    // Without the root span (and none seen yet) nothing can complete now.
    expect(candidates(j.lookup, { spans: [llm("Thirty days.")] })).toEqual({ routes: [] });
    const needs = footprint(j.lookup, { spans: [llm("Thirty days."), other] });
    expect(needs.traces).toBe(1);
    expect(needs.bytes).toBeGreaterThanOrEqual("Thirty days.".length + 50);
    const before = j.bytes;
    j.add([llm("Thirty days."), other]);
    expect(j.bytes - before).toBeLessThanOrEqual(needs.bytes);
    expect(j.size).toBe(2);
  });

  it("ingests in chunks, pausing between them, with the same result as one add()", async () => {
    const spans = [doc(0, 10), doc(1, 10), doc(2, 10), llm("A."), rootSpan()];
    const whole = limited({});
    whole.j.add(spans);
    const chunked = limited({});
    const order: string[] = [];
    await chunked.j.ingest({ spans }, async () => void order.push(`pause after ${chunked.j.size} trace(s), ${chunked.out.length} scored`), 2);
    expect(order).toEqual(["pause after 1 trace(s), 0 scored", "pause after 1 trace(s), 0 scored"]);
    expect(chunked.out).toEqual(whole.out);
  });

  it("keeps complete and timed-out traces waiting while there is no room to score them, and hands them on in order once there is", () => {
    let room = 0;
    const { j, out, incomplete, now } = limited({ canHandOff: () => room-- > 0 });
    j.add([doc(0, 10), llm("First."), rootSpan()]);
    j.add([{ ...doc(0, 10), traceId: "1".repeat(32) }, { ...llm("Second."), traceId: "1".repeat(32) }]);
    now.t = 5000;
    j.sweep();
    // An incomplete trace needs no room: it is counted at once.
    j.add([{ ...rootSpan(), traceId: "2".repeat(32) }]);
    now.t = 10_000;
    j.sweep();
    expect(out).toEqual([]);
    expect(incomplete).toEqual([["no_answer", "/ask"]]);
    expect([j.size, j.waiting]).toEqual([2, 2]);
    room = 1;
    j.handOff();
    expect(out.map((i) => i.answer)).toEqual(["First."]);
    room = 5;
    j.sweep();
    expect(out.map((i) => i.answer)).toEqual(["First.", "Second."]);
    expect([j.size, j.waiting]).toEqual([0, 0]);
  });

  it("settles a trace at maxAgeMs however recently a record arrived, and counts its later records as late", () => {
    // Before maxAgeMs, a log-only trace refreshed within the timeout stayed in the buffer forever.
    const { j, incomplete, now } = limited({ maxAgeMs: 3000 });
    const log = (t: number) => ({ traceId: T, spanId: "0000000000000003", eventName: "gen_ai.user.message", body: { content: `refresh ${t}` }, attributes: {}, resource: { "service.name": "svc" } });
    for (now.t = 0; now.t < 3000; now.t += 500) {
      j.addLogs([log(now.t)]);
      j.sweep();
    }
    expect(j.size).toBe(1);
    now.t = 3000;
    j.sweep();
    expect(j.size).toBe(0);
    expect(incomplete).toEqual([["no_answer", "svc"]]);
    j.addLogs([log(now.t)]);
    expect(incomplete.at(-1)).toEqual(["late", "svc"]);
  });

  it("scores a complete trace at maxAgeMs", () => {
    const { j, out, now } = limited({ maxAgeMs: 3000 });
    // Complete but for its root span, which never comes; refreshed, it never times out.
    for (now.t = 0; now.t <= 3000; now.t += 500) {
      j.add([doc(now.t / 500, 10), llm("Thirty days.")]);
      j.sweep();
    }
    expect(out.map((i) => i.answer)).toEqual(["Thirty days."]);
  });

  it("evicts the oldest incomplete trace for a new one at maxTraces, never a trace waiting to be scored", () => {
    const { j, out, incomplete } = limited({ maxTraces: 3, canHandOff: () => false });
    const id = (n: number): string => String(n).repeat(32);
    // Trace 1 is complete and waits for room; traces 2 and 3 are incomplete.
    j.add([{ ...doc(0, 10), traceId: id(1) }, { ...llm("First."), traceId: id(1) }, { ...rootSpan(), traceId: id(1) }]);
    j.add([{ ...doc(0, 10), traceId: id(2) }]);
    j.add([{ ...doc(0, 10), traceId: id(3) }]);
    expect([j.size, j.waiting]).toEqual([3, 1]);
    expect(j.waitingBytes).toBeGreaterThan(0);
    j.add([{ ...doc(0, 10), traceId: id(4) }]);
    expect(incomplete).toEqual([["buffer_full", "svc"]]);
    expect([j.size, j.waiting]).toEqual([3, 1]);
    j.add([{ ...doc(0, 10), traceId: id(5) }]);
    expect(incomplete).toEqual([
      ["buffer_full", "svc"],
      ["buffer_full", "svc"],
    ]);
    expect(out).toEqual([]);
    expect(j.waiting).toBe(1);
  });

  it("evicts only incomplete traces for text over maxBufferBytes, and counts the waiting ones' text apart", () => {
    const { j, incomplete } = limited({ maxBufferBytes: 10_000, canHandOff: () => false });
    const id = (n: number): string => String(n).repeat(32);
    j.add([{ ...doc(0, 4000), traceId: id(1) }, { ...llm("First."), traceId: id(1) }, { ...rootSpan(), traceId: id(1) }]);
    const pinned = j.waitingBytes;
    expect(pinned).toBe(j.bytes);
    for (const n of [2, 3, 4]) j.add([{ ...doc(0, 3000), traceId: id(n) }]);
    expect(j.waiting).toBe(1);
    expect(j.waitingBytes).toBe(pinned);
    expect(incomplete.every(([r]) => r === "buffer_full")).toBe(true);
    expect(j.bytes).toBeLessThanOrEqual(10_000);
  });
});

describe("trace joining: the bytes a hand-off asks room for", () => {
  it("asks the queue for the bytes the queue charges the observation: document names counted, as observe() counts them", () => {
    const asked: number[] = [];
    const out: TracedObservation[] = [];
    const j = createTraceJoiner({ timeoutMs: 1000, maxTraces: 10, now: () => 0, onObservation: (o) => out.push(o), onIncomplete: () => undefined, canHandOff: (_route, bytes) => (asked.push(bytes), true) });
    j.add([
      span("0000000000000002", "0000000000000001", { "openinference.span.kind": "RETRIEVER", "input.value": "How long is the return window?", "retrieval.documents.0.document.content": "Returns are accepted within 30 days.", "retrieval.documents.0.document.id": "refund-policy", "retrieval.documents.0.document.metadata": JSON.stringify({ title: "Refund policy", url: "https://example.test/refunds" }) }),
      span("0000000000000003", "0000000000000001", { "openinference.span.kind": "LLM", "output.value": "Thirty days." }),
      span("0000000000000001", "", { "http.route": "/api/ask" }),
    ]);
    const o = out[0];
    if (!o) throw new Error("no observation");
    expect(o.context).toEqual([{ text: "Returns are accepted within 30 days.", id: "refund-policy", title: "Refund policy", url: "https://example.test/refunds" }]);
    // What the collector hands to monitor.observe, copied and charged as the SDK's queue charges it.
    const input = { context: o.context, answer: o.answer, question: o.question };
    const routing = readRouting(input, { route: o.route });
    if (!routing.ok) throw new Error(routing.why);
    const charged = copyInput(input, routing);
    if (!charged.ok) throw new Error(charged.why);
    expect(asked).toEqual([charged.bytes]);
  });
});
