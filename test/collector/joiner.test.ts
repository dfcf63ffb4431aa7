import { describe, expect, it } from "vitest";
import type { Interaction } from "../../src/collector/joiner.ts";
import { createTraceJoiner } from "../../src/collector/joiner.ts";
import type { OtlpSpan } from "../../src/collector/otlp.ts";

const T = "0af7651916cd43dd8448eb211c80319c";
const span = (spanId: string, parent: string, attributes: Record<string, unknown>, name = "s"): OtlpSpan => ({ traceId: T, spanId, parentSpanId: parent, name, attributes, resource: { "service.name": "svc" } });

function joiner(now = { t: 0 }) {
  const out: Interaction[] = [];
  const incomplete: string[] = [];
  const j = createTraceJoiner({ timeoutMs: 1000, maxTraces: 2, now: () => now.t, onInteraction: (i) => out.push(i), onIncomplete: (r) => incomplete.push(r) });
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
    expect(out).toEqual([{ traceId: T, parentSpanId: "0000000000000003", route: "/api/ask", documents: ["Doc A", "Doc B"], question: "How long is the return window?", answer: "Thirty days." }]);
  });

  it("reads GenAI retrieval documents with content and gen_ai.output.messages, and OpenLLMetry completions", () => {
    const { j, out } = joiner();
    j.add([
      span("0000000000000002", "0000000000000001", { "gen_ai.operation.name": "retrieval", "gen_ai.retrieval.query.text": "q?", "gen_ai.retrieval.documents": JSON.stringify([{ id: "d1", score: 0.9, content: "GenAI doc" }]) }),
      span("0000000000000003", "0000000000000001", { "gen_ai.operation.name": "chat", "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: "GenAI answer" }] }]) }),
      span("0000000000000001", "", {}),
    ]);
    expect(out[0]).toMatchObject({ documents: ["GenAI doc"], question: "q?", answer: "GenAI answer", route: "svc" });
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
    expect(out[0]).toMatchObject({ documents: ["D"], answer: "A" });
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
