import { readFileSync, readdirSync } from "node:fs";
import { MAX_DOCUMENT_NAME_CHARS } from "../../src/core/context.ts";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { PromptContext } from "../../src/collector/trace-parts.ts";
import type { IncompleteReason, ObservationInfo, TracedObservation } from "../../src/collector/joiner-types.ts";
import { createTraceJoiner } from "../../src/collector/joiner.ts";
import { parsePromptContext } from "../../src/collector/options.ts";
import { decodeJson, decodeLogsJson } from "../../src/collector/otlp.ts";
import type { JsonLog, JsonSpan } from "./otlp-json.ts";
import { logsJson, tracesJson } from "./otlp-json.ts";

const T = "0af7651916cd43dd8448eb211c80319c";
const ROOT = "0000000000000001";
const RETRIEVER = "0000000000000002";
const LLM = "0000000000000003";
const DOC_A = "Items can be returned within 30 days of delivery.";
const DOC_B = "Return shipping is free for orders over $50.";
const ANSWER = "You can return items within 30 days.";
const QUESTION = "How long do I have to return an item?";

function joiner(promptContext: PromptContext = { mode: "off" }, mapping = {}) {
  const now = { t: 0 };
  const out: Array<TracedObservation & ObservationInfo> = [];
  const incomplete: Array<[IncompleteReason, string]> = [];
  const j = createTraceJoiner({ timeoutMs: 1000, maxTraces: 100, promptContext, mapping, now: () => now.t, onObservation: (i, info) => out.push({ ...i, ...info }), onIncomplete: (r, route) => incomplete.push([r, route]) });
  const spans = (list: readonly JsonSpan[], traceId = T): void => j.add(decodeJson(JSON.stringify(tracesJson(traceId, list))).spans);
  const logs = (list: readonly JsonLog[], traceId = T, asAttribute = false): void => j.addLogs(decodeLogsJson(JSON.stringify(logsJson(traceId, list, "svc", asAttribute))).logs);
  const timeout = (): void => {
    now.t += 2000;
    j.sweep();
  };
  return { j, out, incomplete, spans, logs, timeout };
}

const root: JsonSpan = { spanId: ROOT, name: "POST /ask", attributes: { "http.route": "/ask" } };
const oiLlm: JsonSpan = { spanId: LLM, parentSpanId: ROOT, attributes: { "openinference.span.kind": "LLM", "llm.output_messages.0.message.role": "assistant", "llm.output_messages.0.message.content": ANSWER } };
const genaiChat: JsonSpan = { spanId: LLM, parentSpanId: ROOT, name: "chat gpt-4o-mini", attributes: { "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini" } };
const genaiRetrieval: JsonSpan = { spanId: RETRIEVER, parentSpanId: ROOT, attributes: { "gen_ai.operation.name": "retrieval", "gen_ai.retrieval.documents": JSON.stringify([{ id: "a", content: DOC_A }]) } };
const choice: JsonLog = { spanId: LLM, eventName: "gen_ai.choice", body: { index: 0, finish_reason: "stop", message: { role: "assistant", content: ANSWER } } };
const systemMessage: JsonLog = { spanId: LLM, eventName: "gen_ai.system.message", body: { content: `Answer from these documents:\n${DOC_A}` } };
const userMessage: JsonLog = { spanId: LLM, eventName: "gen_ai.user.message", body: { content: QUESTION } };

describe("OpenInference RETRIEVER output.value", () => {
  it("reads documents from a JSON array of {id, content, score} in output.value", () => {
    const { out, spans } = joiner();
    const docs = [{ id: "1", content: DOC_A, score: 0.9 }, { id: "2", content: DOC_B, score: 0.7 }];
    spans([{ spanId: RETRIEVER, parentSpanId: ROOT, attributes: { "openinference.span.kind": "RETRIEVER", "input.value": QUESTION, "output.value": JSON.stringify(docs) } }, oiLlm, root]);
    // The ids name the documents, so citations in the answer can be checked against them.
    expect(out).toEqual([expect.objectContaining({ context: [{ id: "1", text: DOC_A }, { id: "2", text: DOC_B }], question: QUESTION, answer: ANSWER, route: "/ask", convention: "openinference", parentSpanId: LLM })]);
  });

  it("reads an object holding documents, each a string or page_content / pageContent / text", () => {
    const { out, spans } = joiner();
    const output = { documents: ["plain doc", { page_content: "snake doc" }, { pageContent: "camel doc" }, { text: "text doc" }, { metadata: {} }] };
    spans([{ spanId: RETRIEVER, parentSpanId: ROOT, attributes: { "openinference.span.kind": "RETRIEVER", "output.value": JSON.stringify(output) } }, oiLlm, root]);
    expect(out[0]?.context).toEqual(["plain doc", "snake doc", "camel doc", "text doc"]);
  });

  it("does not count documents twice when retrieval.documents attributes are also present", () => {
    const { out, spans } = joiner();
    spans([{ spanId: RETRIEVER, parentSpanId: ROOT, attributes: { "openinference.span.kind": "RETRIEVER", "retrieval.documents.0.document.content": DOC_A, "output.value": JSON.stringify([{ content: "other" }]) } }, oiLlm, root]);
    expect(out[0]?.context).toEqual([DOC_A]);
  });

  it("ignores output.value of spans that are not retrievers, and exception events", () => {
    const { out, incomplete, spans } = joiner();
    spans([{ spanId: RETRIEVER, parentSpanId: ROOT, attributes: { "openinference.span.kind": "CHAIN", "output.value": JSON.stringify([{ content: DOC_A }]) }, events: [{ name: "exception", attributes: { "exception.type": "Error", "exception.message": "boom" } }] }, oiLlm, root]);
    expect(out).toEqual([]);
    expect(incomplete).toEqual([]);
  });
});

describe("OpenLLMetry (Traceloop)", () => {
  it("reads documents from db.query.result span events", () => {
    const { out, spans } = joiner();
    spans([
      { spanId: RETRIEVER, parentSpanId: ROOT, name: "memory.query", attributes: { "traceloop.workflow.name": "answer" }, events: [{ name: "db.query.embeddings", attributes: { "db.query.embeddings.vector": "[0.1]" } }, { name: "db.query.result", attributes: { "db.query.result.id": "a", "db.query.result.document": DOC_A } }, { name: "db.query.result", attributes: { "db.query.result.id": "b", "db.query.result.document": DOC_B } }] },
      { spanId: LLM, parentSpanId: ROOT, attributes: { "gen_ai.completion.0.content": ANSWER } },
      root,
    ]);
    expect(out).toEqual([expect.objectContaining({ context: [{ id: "a", text: DOC_A }, { id: "b", text: DOC_B }], answer: ANSWER, convention: "openllmetry" })]);
  });

  it("finds LangChain Documents in traceloop.entity.input / output, wrapped or serialised, once each", () => {
    const { out, spans } = joiner();
    const lc = (text: string) => ({ lc: 1, type: "constructor", id: ["langchain", "schema", "document", "Document"], kwargs: { page_content: text, metadata: { source: "kb" } } });
    spans([
      { spanId: "0000000000000004", parentSpanId: ROOT, attributes: { "traceloop.span.kind": "task", "traceloop.entity.input": JSON.stringify({ args: [QUESTION], kwargs: {} }), "traceloop.entity.output": JSON.stringify({ outputs: [{ pageContent: DOC_A, metadata: {} }, lc(DOC_B)] }) } },
      { spanId: "0000000000000005", parentSpanId: ROOT, attributes: { "traceloop.span.kind": "task", "traceloop.entity.input": JSON.stringify({ args: [{ context: [{ pageContent: DOC_A, metadata: {} }], question: QUESTION }], kwargs: {} }), "traceloop.entity.output": JSON.stringify({ outputs: { kwargs: { content: "not a document" } } }) } },
      { spanId: LLM, parentSpanId: ROOT, attributes: { "traceloop.workflow.name": "answer", "gen_ai.operation.name": "chat", "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: ANSWER }] }]) } },
      root,
    ]);
    // A Document's metadata.source names it (as a URL or path a citation may give).
    expect(out).toEqual([expect.objectContaining({ context: [DOC_A, { text: DOC_B, url: "kb" }], answer: ANSWER, convention: "openllmetry" })]);
  });

  it("stops the document search at the depth cap", () => {
    const { out, incomplete, spans, timeout } = joiner();
    let deep: unknown = { pageContent: DOC_A };
    for (let i = 0; i < 40; i++) deep = { next: deep };
    spans([{ spanId: RETRIEVER, parentSpanId: ROOT, attributes: { "traceloop.entity.output": JSON.stringify(deep) } }, { spanId: LLM, parentSpanId: ROOT, attributes: { "gen_ai.completion.0.content": ANSWER } }, root]);
    timeout();
    expect(out).toEqual([]);
    expect(incomplete).toEqual([["no_documents", "/ask"]]);
  });
});

describe("OTel GenAI log events", () => {
  it("joins an answer from a gen_ai.choice log with documents from spans, logs before spans", () => {
    const { out, logs, spans } = joiner();
    logs([userMessage, choice]);
    expect(out).toEqual([]);
    spans([genaiRetrieval, genaiChat, root]);
    expect(out).toEqual([expect.objectContaining({ context: [{ id: "a", text: DOC_A }], question: QUESTION, answer: ANSWER, parentSpanId: LLM, route: "/ask", convention: "genai" })]);
  });

  it("joins them spans before logs, across separate requests, with event.name as an attribute", () => {
    const { out, logs, spans } = joiner();
    spans([genaiRetrieval]);
    spans([genaiChat, root]);
    expect(out).toEqual([]);
    logs([userMessage], T, true);
    logs([choice], T, true);
    expect(out).toEqual([expect.objectContaining({ context: [{ id: "a", text: DOC_A }], question: QUESTION, answer: ANSWER, parentSpanId: LLM })]);
  });

  it("reads gen_ai.client.inference.operation.details input and output messages", () => {
    const { out, logs, timeout } = joiner({ mode: "system" });
    logs([
      { spanId: LLM, eventName: "gen_ai.client.inference.operation.details", attributes: { "gen_ai.input.messages": JSON.stringify([{ role: "system", parts: [{ type: "text", content: DOC_A }] }, { role: "user", parts: [{ type: "text", content: QUESTION }] }]) } },
      { spanId: LLM, eventName: "gen_ai.client.inference.operation.details", attributes: { "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: ANSWER }], finish_reason: "stop" }]) } },
    ]);
    timeout();
    expect(out).toEqual([expect.objectContaining({ context: [DOC_A], question: QUESTION, answer: ANSWER, parentSpanId: LLM, route: "svc", convention: "prompt" })]);
  });

  it("buffers a log record whose trace never sends spans and settles it on the timeout, counted", () => {
    const { out, incomplete, logs, timeout } = joiner();
    logs([userMessage]);
    logs([choice], "1af7651916cd43dd8448eb211c80319c");
    timeout();
    expect(out).toEqual([]);
    expect(incomplete.map(([r]) => r).sort()).toEqual(["no_answer", "no_documents"]);
  });

  it("counts a duplicated event once, and the duplicate with its reason", () => {
    const { out, incomplete, logs, spans } = joiner();
    logs([userMessage, choice, choice]);
    logs([choice]);
    spans([genaiRetrieval, genaiChat, root]);
    expect(out).toHaveLength(1);
    expect(out[0]?.answer).toBe(ANSWER);
    expect(incomplete).toEqual([["duplicate_event", "svc"], ["duplicate_event", "svc"]]);
  });

  it("counts a repeated span once, and records for a settled trace as late", () => {
    const { out, incomplete, logs, spans } = joiner();
    spans([{ spanId: RETRIEVER, parentSpanId: ROOT, attributes: { "retrieval.documents.0.document.content": DOC_A } }, { spanId: RETRIEVER, parentSpanId: ROOT, attributes: { "retrieval.documents.0.document.content": DOC_A } }, oiLlm, root]);
    expect(out).toHaveLength(1);
    logs([choice]);
    spans([{ spanId: "0000000000000009", parentSpanId: ROOT }]);
    expect(incomplete).toEqual([["duplicate_span", "svc"], ["late", "/ask"], ["late", "/ask"]]);
  });
});

describe("promptContext", () => {
  const plain = (): JsonSpan[] => [
    { spanId: LLM, parentSpanId: ROOT, attributes: { "openinference.span.kind": "LLM", "llm.input_messages.0.message.role": "system", "llm.input_messages.0.message.content": `Answer from these documents:\n${DOC_A}`, "llm.input_messages.1.message.role": "user", "llm.input_messages.1.message.content": `Documents:\n${DOC_B}\n\nQuestion: ${QUESTION}`, "llm.output_messages.0.message.content": ANSWER } },
    root,
  ];

  it("off: an answer without documents is no_documents_prompt_available when the prompt could have been read", () => {
    const { out, incomplete, spans, timeout } = joiner();
    spans(plain());
    timeout();
    expect(out).toEqual([]);
    expect(incomplete).toEqual([["no_documents_prompt_available", "/ask"]]);
  });

  it("system: the system messages are the context (OpenInference, GenAI events, OpenLLMetry gen_ai.prompt)", () => {
    const oi = joiner({ mode: "system" });
    oi.spans(plain());
    expect(oi.out).toEqual([expect.objectContaining({ context: [`Answer from these documents:\n${DOC_A}`], answer: ANSWER, convention: "prompt" })]);
    const events = joiner({ mode: "system" });
    events.logs([systemMessage, userMessage, choice]);
    events.timeout();
    expect(events.out).toEqual([expect.objectContaining({ context: [`Answer from these documents:\n${DOC_A}`], question: QUESTION, answer: ANSWER, parentSpanId: LLM })]);
    const ollm = joiner({ mode: "system" });
    ollm.spans([{ spanId: LLM, parentSpanId: ROOT, attributes: { "gen_ai.prompt.0.role": "system", "gen_ai.prompt.0.content": DOC_B, "gen_ai.prompt.1.role": "user", "gen_ai.prompt.1.content": QUESTION, "gen_ai.completion.0.content": ANSWER } }, root]);
    expect(ollm.out).toEqual([expect.objectContaining({ context: [DOC_B], question: QUESTION })]);
  });

  it("regex: the named group context picks the documents, and a question group the question", () => {
    const { out, spans } = joiner(parsePromptContext("promptContext", "Documents:\\n(?<context>[\\s\\S]*?)\\n\\nQuestion: (?<question>.*)"));
    spans(plain());
    expect(out).toEqual([expect.objectContaining({ context: [DOC_B], question: QUESTION, convention: "prompt" })]);
  });

  it("regex: nothing matched is no_documents_prompt_unmatched", () => {
    const { incomplete, spans, timeout } = joiner(parsePromptContext("promptContext", "Sources:(?<context>.*)"));
    spans(plain());
    timeout();
    expect(incomplete).toEqual([["no_documents_prompt_unmatched", "/ask"]]);
  });

  it("retrieved documents win over the prompt", () => {
    const { out, spans } = joiner({ mode: "system" });
    spans([{ spanId: RETRIEVER, parentSpanId: ROOT, attributes: { "retrieval.documents.0.document.content": DOC_B } }, ...plain()]);
    expect(out[0]).toMatchObject({ context: [DOC_B], convention: "openinference" });
  });

  it.each([
    ["(unclosed", /invalid promptContext.*not "off", "system" or a valid regular expression/],
    ["Documents:(.*)", /invalid promptContext.*named group \(\?<context>/],
    ["", /invalid promptContext/],
  ])("rejects %j with a ConfigError naming promptContext", (value, message) => {
    expect(() => parsePromptContext("promptContext", value)).toThrow(message);
  });
});

describe("attribute mapping", () => {
  it("looks mapped keys up in span event attributes and log record attributes too", () => {
    const { out, spans, logs } = joiner({ mode: "off" }, { documents: ["kb.hit"], answer: ["app.reply"] });
    spans([{ spanId: RETRIEVER, parentSpanId: ROOT, events: [{ name: "kb.search", attributes: { "kb.hit": DOC_A } }] }]);
    logs([{ spanId: LLM, eventName: "app.done", attributes: { "app.reply": ANSWER } }]);
    spans([root]);
    expect(out).toEqual([expect.objectContaining({ context: [DOC_A], answer: ANSWER, convention: "mapping", parentSpanId: LLM })]);
  });
});

/** Real payloads captured from instrumented services (test/fixtures/instrumentations). */
const FIXTURES = fileURLToPath(new URL("../fixtures/instrumentations/", import.meta.url));
const fixtureFiles = ((): string[] => {
  try {
    return readdirSync(FIXTURES).filter((f) => f.endsWith(".json"));
  } catch {
    return [];
  }
})();
const EXPECTED: Readonly<Record<string, { off: string; system: string }>> = {
  "genai-openai-chat.json": { off: "no_documents_prompt_available", system: "prompt" },
  "genai-openai-responses.json": { off: "no_documents_prompt_available", system: "prompt" },
  "oi-openai-plain.json": { off: "no_documents_prompt_available", system: "prompt" },
  "oi-openai-retriever.json": { off: "openinference", system: "openinference" },
  "oi-openai-retriever-attributes.json": { off: "openinference", system: "openinference" },
  "oi-langchain.json": { off: "openinference", system: "openinference" },
  "traceloop-langchain.json": { off: "openllmetry", system: "openllmetry" },
  "traceloop-openai-vectordb.json": { off: "openllmetry", system: "openllmetry" },
};

describe.skipIf(fixtureFiles.length === 0)("captured instrumentation payloads", () => {
  it.each(fixtureFiles.filter((f) => EXPECTED[f]).flatMap((f) => (["off", "system"] as const).map((mode) => [f, mode] as const)))("%s with promptContext %s", (file, mode) => {
    const fixture = JSON.parse(readFileSync(`${FIXTURES}${file}`, "utf8")) as { traces: unknown[]; logs: unknown[] };
    const { j, out, incomplete } = joiner({ mode });
    for (const t of fixture.traces) j.add(decodeJson(JSON.stringify(t)).spans);
    for (const l of fixture.logs) j.addLogs(decodeLogsJson(JSON.stringify(l)).logs);
    j.drain();
    const outcomes = new Set([...out.map((i) => i.convention), ...incomplete.map(([r]) => r)]);
    expect([...outcomes]).toEqual([EXPECTED[file]?.[mode]]);
    expect(out.length + incomplete.length).toBeGreaterThan(0);
    for (const i of out) {
      expect(i.context.length).toBeGreaterThan(0);
      expect(i.answer).not.toBe("");
      expect(i.question).toBeDefined();
      // The prompt's documents are the context, not the question.
      expect(i.context.join(" ")).not.toContain(i.question);
    }
  });
});

describe("documents named for citations", () => {
  it("reads OpenInference retrieval.documents.N.document.id, and title and URL from document.metadata", () => {
    const { out, spans } = joiner();
    spans([
      {
        spanId: RETRIEVER,
        parentSpanId: ROOT,
        attributes: {
          "openinference.span.kind": "RETRIEVER",
          "retrieval.documents.0.document.id": "returns-policy",
          "retrieval.documents.0.document.content": DOC_A,
          "retrieval.documents.0.document.metadata": JSON.stringify({ title: "Returns policy", url: "https://kb.example.com/returns" }),
          "retrieval.documents.1.document.id": 17,
          "retrieval.documents.1.document.content": DOC_B,
          "retrieval.documents.1.document.metadata": JSON.stringify({ source: "docs/shipping.md" }),
          // A document without a name stays plain text; metadata that is not JSON names nothing.
          "retrieval.documents.2.document.content": "Plain doc.",
          "retrieval.documents.3.document.content": "Odd metadata.",
          "retrieval.documents.3.document.metadata": "{not json",
          // An id without content is not a document.
          "retrieval.documents.4.document.id": "empty",
        },
      },
      oiLlm,
      root,
    ]);
    expect(out[0]?.context).toEqual([{ id: "returns-policy", title: "Returns policy", url: "https://kb.example.com/returns", text: DOC_A }, { id: "17", url: "docs/shipping.md", text: DOC_B }, "Plain doc.", "Odd metadata."]);
  });

  it("reads ids and metadata of RETRIEVER output.value documents, also nested under document", () => {
    const { out, spans } = joiner();
    const docs = [{ document: { id: "a", content: DOC_A, metadata: { title: "Returns" } } }, { id: "b", page_content: DOC_B, metadata: { source: "shipping.md" } }];
    spans([{ spanId: RETRIEVER, parentSpanId: ROOT, attributes: { "openinference.span.kind": "RETRIEVER", "output.value": JSON.stringify(docs) } }, oiLlm, root]);
    expect(out[0]?.context).toEqual([{ id: "a", title: "Returns", text: DOC_A }, { id: "b", url: "shipping.md", text: DOC_B }]);
  });

  it("keeps one copy of a document that two conventions report, the named one, where it first came", () => {
    const { out, spans } = joiner();
    spans([
      { spanId: RETRIEVER, parentSpanId: ROOT, attributes: { "gen_ai.operation.name": "retrieval", "gen_ai.retrieval.documents": JSON.stringify([{ content: DOC_A }, { content: DOC_B }]) } },
      { spanId: "0000000000000004", parentSpanId: ROOT, attributes: { "openinference.span.kind": "RETRIEVER", "retrieval.documents.0.document.id": "a", "retrieval.documents.0.document.content": DOC_A } },
      oiLlm,
      root,
    ]);
    expect(out[0]?.context).toEqual([{ id: "a", text: DOC_A }, DOC_B]);
  });

  it("ignores names that are empty, not strings or numbers, or too long to be a citation", () => {
    const { out, spans } = joiner();
    const docs = [{ id: "", content: DOC_A, metadata: { title: 5, url: "x".repeat(MAX_DOCUMENT_NAME_CHARS + 1) } }, { id: { nested: true }, content: DOC_B }];
    spans([{ spanId: RETRIEVER, parentSpanId: ROOT, attributes: { "gen_ai.operation.name": "retrieval", "gen_ai.retrieval.documents": JSON.stringify(docs) } }, oiLlm, root]);
    expect(out[0]?.context).toEqual([DOC_A, DOC_B]);
  });
});
