import type { ContextItem } from "../../core/context.ts";
import type { Entries, PromptMessage } from "./json.ts";
import { MAX_FOUND, documentOf, indexed, indexedMessages, lastUserOf, messagesOf, namedDocument, nonBlank, parseJson } from "./json.ts";
import {
  ATTR_INPUT_VALUE,
  ATTR_LLM_INPUT_MESSAGES,
  ATTR_LLM_OUTPUT_MESSAGES,
  ATTR_OPENINFERENCE_SPAN_KIND,
  ATTR_OUTPUT_VALUE,
  ATTR_RETRIEVAL_DOCUMENTS,
  MESSAGE_CONTENT,
  MESSAGE_ROLE,
  OPENINFERENCE_DOCUMENT_KEY,
} from "./keys.ts";
import { asPlainObject } from "../../core/plain-object.ts";

type Attributes = Readonly<Record<string, unknown>>;

/** What every indexed retrieved-document key starts with. */
const DOCUMENTS_PREFIX = `${ATTR_RETRIEVAL_DOCUMENTS}.`;

/** The OpenInference span kind, upper-cased ("LLM", "RETRIEVER", …; "" when absent). */
export function openInferenceKind(a: Attributes): string {
  return String(a[ATTR_OPENINFERENCE_SPAN_KIND] ?? "").toUpperCase();
}

/** OpenInference RETRIEVER `output.value`: a JSON array of documents, or an object holding one under `documents` (or `results`). */
function retrieverOutputDocuments(v: unknown): ContextItem[] {
  const parsed = parseJson(v);
  const list = Array.isArray(parsed) ? parsed : (asPlainObject(parsed)?.documents ?? asPlainObject(parsed)?.results);
  if (!Array.isArray(list)) return [];
  return list.slice(0, MAX_FOUND).flatMap((d) => documentOf(d) ?? []);
}

/**
 * OpenInference retrieval documents: `retrieval.documents.{i}.document.content`, named by
 * `.document.id` and `.document.metadata` (a JSON string: title, url or source), in index order.
 */
function openInferenceDocuments(attrs: Entries): ContextItem[] {
  const re = OPENINFERENCE_DOCUMENT_KEY;
  const byIndex = new Map<number, { content?: string; id?: unknown; metadata?: unknown }>();
  for (const [k, v] of attrs) {
    if (!k.startsWith(DOCUMENTS_PREFIX)) continue;
    const m = re.exec(k);
    if (m?.[1] === undefined) continue;
    const i = Number(m[1]);
    const doc = byIndex.get(i) ?? {};
    if (m[2] === "content") {
      const text = nonBlank(v);
      if (text !== undefined) doc.content = text;
    } else if (m[2] === "id") doc.id = v;
    else doc.metadata = v;
    byIndex.set(i, doc);
  }
  return [...byIndex.entries()].sort((a, b) => a[0] - b[0]).flatMap(([, d]) => (d.content !== undefined ? [namedDocument(d.content, d.id, d.metadata)] : []));
}

/** A span's OpenInference documents: `retrieval.documents.N.document.*`, else a RETRIEVER span's `output.value` (JSON documents). */
export function openInferenceSpanDocuments(a: Attributes, entries: Entries, kind: string): ContextItem[] {
  const documents = openInferenceDocuments(entries);
  return documents.length > 0 || kind !== "RETRIEVER" ? documents : retrieverOutputDocuments(a[ATTR_OUTPUT_VALUE]);
}

/** The query of a RETRIEVER span (its `input.value`). */
export function openInferenceQuery(a: Attributes, kind: string): string | undefined {
  return kind === "RETRIEVER" ? nonBlank(a[ATTR_INPUT_VALUE]) : undefined;
}

/** The last user (or role-less) message of the LLM span's indexed input messages (`llm.input_messages.N.message.*`): the question. */
export function openInferenceLastInput(entries: Entries): string | undefined {
  return lastUserOf(indexedMessages(entries, ATTR_LLM_INPUT_MESSAGES, MESSAGE_ROLE, MESSAGE_CONTENT), true);
}

/** OpenInference LLM input: `llm.input_messages.N.message.*`, else the OpenAI request in `input.value`. */
export function openInferencePrompt(a: Attributes, entries: Entries, isLlm: boolean): PromptMessage[] {
  const messages = indexedMessages(entries, ATTR_LLM_INPUT_MESSAGES, MESSAGE_ROLE, MESSAGE_CONTENT);
  if (messages.length > 0 || !isLlm) return messages;
  const input = a[ATTR_INPUT_VALUE];
  const parsed = parseJson(input);
  const fromJson = messagesOf(asPlainObject(parsed)?.messages ?? asPlainObject(parsed)?.input ?? (Array.isArray(parsed) ? parsed : undefined));
  if (fromJson.length > 0) return fromJson;
  const text = typeof parsed === "string" || parsed === undefined ? nonBlank(input) : undefined;
  return text !== undefined ? [{ role: "", content: text }] : [];
}

/** The answer in the LLM span's output messages (`llm.output_messages.N.message.content`, joined); "" when none. */
export function openInferenceOutput(entries: Entries): string {
  return indexed(entries, ATTR_LLM_OUTPUT_MESSAGES, MESSAGE_CONTENT).join("\n");
}

/** An LLM span's `output.value`: the answer when no output messages name one. */
export function openInferenceOutputValue(a: Attributes, isLlm: boolean): string | undefined {
  return isLlm ? nonBlank(a[ATTR_OUTPUT_VALUE]) : undefined;
}
