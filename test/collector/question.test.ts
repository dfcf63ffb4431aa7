/**
 * The question each input convention gives the scorer (issue 27: context and answer relevance are
 * measured against it): a retrieval query when there is one, else the last user message — an
 * assistant or tool turn after it is not the question.
 */
import { describe, expect, it } from "vitest";
import { absorbSpan } from "../../src/collector/extract.ts";
import type { OtlpSpan } from "../../src/collector/otlp.ts";
import type { TraceParts } from "../../src/collector/trace-parts.ts";
import { resolveParts } from "../../src/collector/trace-parts.ts";

const T = "0af7651916cd43dd8448eb211c80319c";
const span = (attributes: Record<string, unknown>): OtlpSpan => ({ traceId: T, spanId: "0000000000000002", parentSpanId: "0000000000000001", name: "llm", attributes, resource: { "service.name": "svc" } });
const questionOf = (attributes: Record<string, unknown>): string | undefined => {
  const parts: TraceParts = { documents: [], rootSeen: false };
  absorbSpan(parts, span(attributes));
  const resolved = resolveParts(parts, { mode: "system" });
  return resolved.ok ? resolved.question : `not resolved: ${resolved.reason}`;
};

describe("collector: the question", () => {
  it("OpenInference: the last user input message, not a later assistant or tool message", () => {
    const q = questionOf({
      "openinference.span.kind": "LLM",
      "llm.input_messages.0.message.role": "system",
      "llm.input_messages.0.message.content": "Refunds are paid within 30 days.",
      "llm.input_messages.1.message.role": "user",
      "llm.input_messages.1.message.content": "How long do refunds take?",
      "llm.input_messages.2.message.role": "assistant",
      "llm.input_messages.2.message.content": "Let me look that up.",
      "llm.output_messages.0.message.content": "Thirty days.",
    });
    expect(q).toBe("How long do refunds take?");
  });

  it("OpenLLMetry: the last user prompt, not a later assistant prompt", () => {
    const q = questionOf({
      "gen_ai.system": "openai",
      "gen_ai.prompt.0.role": "system",
      "gen_ai.prompt.0.content": "Refunds are paid within 30 days.",
      "gen_ai.prompt.1.role": "user",
      "gen_ai.prompt.1.content": "How long do refunds take?",
      "gen_ai.prompt.2.role": "assistant",
      "gen_ai.prompt.2.content": "Let me look that up.",
      "gen_ai.completion.0.content": "Thirty days.",
    });
    expect(q).toBe("How long do refunds take?");
  });

  it("GenAI: the last user input message", () => {
    const q = questionOf({
      "gen_ai.operation.name": "chat",
      "gen_ai.system_instructions": JSON.stringify([{ type: "text", content: "Refunds are paid within 30 days." }]),
      "gen_ai.input.messages": JSON.stringify([
        { role: "user", parts: [{ type: "text", content: "How long do refunds take?" }] },
        { role: "assistant", parts: [{ type: "text", content: "Let me look that up." }] },
      ]),
      "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: "Thirty days." }] }]),
    });
    expect(q).toBe("How long do refunds take?");
  });
});
