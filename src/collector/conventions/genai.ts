import type { OtlpLog } from "../otlp.ts";
import type { TraceParts } from "../trace-parts.ts";
import { addPrompt, promptRoom, setAnswer } from "../trace-parts.ts";
import type { ContextItem } from "../../core/context.ts";
import { contentText, documentsFrom, lastUserOf, messagesText, nonBlank, parseJson, readMessages } from "./json.ts";
import {
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_RETRIEVAL_DOCUMENTS,
  ATTR_GEN_AI_RETRIEVAL_QUERY_TEXT,
  ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
  EVENT_GEN_AI_ASSISTANT_MESSAGE,
  EVENT_GEN_AI_CHOICE,
  EVENT_GEN_AI_OPERATION_DETAILS,
  EVENT_GEN_AI_SYSTEM_MESSAGE,
  EVENT_GEN_AI_TOOL_MESSAGE,
  EVENT_GEN_AI_USER_MESSAGE,
  GEN_AI_LLM_OPERATIONS,
} from "./keys.ts";
import { asPlainObject } from "../../core/plain-object.ts";

type Attributes = Readonly<Record<string, unknown>>;

/** Whether a span's GenAI operation generates an answer (chat, text_completion, generate_content). */
export function isGenAiLlmOperation(a: Attributes): boolean {
  return GEN_AI_LLM_OPERATIONS.includes(String(a[ATTR_GEN_AI_OPERATION_NAME] ?? ""));
}

/** The documents of a GenAI retrieval span (`gen_ai.retrieval.documents`). */
export function genAiDocuments(a: Attributes): ContextItem[] {
  return documentsFrom(a[ATTR_GEN_AI_RETRIEVAL_DOCUMENTS]);
}

/** The query of a GenAI retrieval span (`gen_ai.retrieval.query.text`). */
export function genAiQuery(a: Attributes): string | undefined {
  return nonBlank(a[ATTR_GEN_AI_RETRIEVAL_QUERY_TEXT]);
}

/** The answer in GenAI output messages JSON (`gen_ai.output.messages`, joined); "" when none. */
export function genAiOutput(a: Attributes): string {
  return messagesText(a[ATTR_GEN_AI_OUTPUT_MESSAGES]).join("\n");
}

/**
 * Adds GenAI system instructions and input messages (JSON values), reading each array only as far as
 * the trace's prompt has room; when the input array is cut short, its last user message is still the
 * trace's last user message. Returns the input messages' last user (or role-less) message, the question
 * when nothing else names one.
 */
function addGenAiPrompt(parts: TraceParts, instructions: unknown, input: unknown): string | undefined {
  const system = readMessages(instructions, promptRoom(parts));
  addPrompt(
    parts,
    system.messages.map((m) => ({ role: "system", content: m.content })),
    system.unread,
  );
  const messages = readMessages(input, promptRoom(parts));
  addPrompt(parts, messages.messages, messages.unread);
  if (messages.unread > 0) {
    const last = lastUserOf(messages.all, false);
    if (last !== undefined) parts.lastUserMessage = last;
  }
  return lastUserOf(messages.all, true);
}

/** Adds a GenAI span's system instructions and input messages (see addGenAiPrompt); returns its last user message. */
export function addGenAiSpanPrompt(parts: TraceParts, a: Attributes): string | undefined {
  return addGenAiPrompt(parts, a[ATTR_GEN_AI_SYSTEM_INSTRUCTIONS], a[ATTR_GEN_AI_INPUT_MESSAGES]);
}

/** GenAI message events and their roles (a Map: an event named "constructor" or "__proto__" is no message). */
const MESSAGE_EVENTS: ReadonlyMap<string, string> = new Map([
  [EVENT_GEN_AI_SYSTEM_MESSAGE, "system"],
  [EVENT_GEN_AI_USER_MESSAGE, "user"],
  [EVENT_GEN_AI_ASSISTANT_MESSAGE, "assistant"],
  [EVENT_GEN_AI_TOOL_MESSAGE, "tool"],
]);

/** Whether a log record is a GenAI event absorbGenAiEvent reads (a message, a choice, operation details), by its event name. */
export function isGenAiEvent(eventName: string): boolean {
  return MESSAGE_EVENTS.has(eventName) || eventName === EVENT_GEN_AI_CHOICE || eventName === EVENT_GEN_AI_OPERATION_DETAILS;
}

/**
 * Reads one GenAI log event (as `@opentelemetry/instrumentation-openai` emits them):
 * `gen_ai.{system,user,assistant,tool}.message` (body `{content}`) are the input messages, the last
 * user message the question; `gen_ai.choice` (body `{index, message: {content}}`) is the answer;
 * `gen_ai.client.inference.operation.details` carries `gen_ai.input.messages`, `gen_ai.output.messages`
 * and `gen_ai.system_instructions` as attributes (or body keys). Other records add nothing.
 */
export function absorbGenAiEvent(parts: TraceParts, log: OtlpLog): void {
  const body = asPlainObject(parseJson(log.body));
  const role = MESSAGE_EVENTS.get(log.eventName);
  if (role !== undefined) {
    const content = contentText(body?.content) ?? (typeof log.body === "string" ? nonBlank(log.body) : undefined);
    if (content !== undefined) addPrompt(parts, [{ role, content }]);
  } else if (log.eventName === EVENT_GEN_AI_CHOICE) {
    const index = typeof body?.index === "number" ? body.index : 0;
    const content = contentText(asPlainObject(body?.message)?.content) ?? contentText(body?.content);
    // With several choices (n > 1) the first one is the answer.
    if (content !== undefined && (index === 0 || parts.answerSource !== "genai")) setAnswer(parts, content, log.spanId, "genai");
  } else if (log.eventName === EVENT_GEN_AI_OPERATION_DETAILS) {
    const field = (key: string): unknown => log.attributes[key] ?? body?.[key];
    addGenAiPrompt(parts, field(ATTR_GEN_AI_SYSTEM_INSTRUCTIONS), field(ATTR_GEN_AI_INPUT_MESSAGES));
    const answer = nonBlank(messagesText(field(ATTR_GEN_AI_OUTPUT_MESSAGES)).join("\n"));
    if (answer !== undefined) setAnswer(parts, answer, log.spanId, "genai");
  }
}
