import type { OtlpSpan } from "../otlp.ts";
import type { ContextItem } from "../../core/context.ts";
import type { Entries, PromptMessage } from "./json.ts";
import { MAX_DEPTH, MAX_FOUND, MAX_NODES, documentsFrom, indexed, indexedMessages, namedDocument, parseJson } from "./json.ts";
import {
  ATTR_DB_QUERY_RESULT_ID,
  ATTR_DB_QUERY_RESULT_METADATA,
  ATTR_GEN_AI_COMPLETION,
  ATTR_GEN_AI_PROMPT,
  ATTR_TRACELOOP_ENTITY_INPUT,
  ATTR_TRACELOOP_ENTITY_OUTPUT,
  CONTENT,
  DB_QUERY_RESULT_DOCUMENT_KEYS,
  DB_RESULT_EVENT,
  ROLE,
  TRACELOOP_PREFIX,
} from "./keys.ts";
import { asPlainObject } from "../../core/plain-object.ts";

/** OpenLLMetry (Traceloop) now writes GenAI names too; its spans are recognised by their traceloop.* attributes. */
export function isOpenLlmetrySpan(entries: Entries): boolean {
  return entries.some(([k]) => k.startsWith(TRACELOOP_PREFIX));
}

/**
 * LangChain Documents anywhere in a JSON value (Traceloop `traceloop.entity.input` / `output`): objects
 * with a string `pageContent` or `page_content` (the serialised form keeps it under `kwargs`), at any
 * nesting ({"outputs": …}, {"args": […], "kwargs": {…}}, JSON inside strings), within depth and size caps.
 */
function langChainDocuments(v: unknown): ContextItem[] {
  const found: ContextItem[] = [];
  let nodes = 0;
  const visit = (x: unknown, depth: number): void => {
    if (depth > MAX_DEPTH || ++nodes > MAX_NODES || found.length >= MAX_FOUND) return;
    if (typeof x === "string") {
      const t = x.trimStart();
      if ((t.startsWith("{") || t.startsWith("[")) && depth < MAX_DEPTH) {
        const parsed = parseJson(x);
        if (parsed !== undefined && typeof parsed !== "string") visit(parsed, depth + 1);
      }
      return;
    }
    if (Array.isArray(x)) {
      for (const item of x) visit(item, depth + 1);
      return;
    }
    const o = asPlainObject(x);
    if (!o) return;
    const text = typeof o.pageContent === "string" ? o.pageContent : typeof o.page_content === "string" ? o.page_content : undefined;
    if (text !== undefined) {
      if (text.trim() !== "") found.push(namedDocument(text, o.id, o.metadata));
      return;
    }
    for (const value of Object.values(o)) visit(value, depth + 1);
  };
  visit(v, 0);
  return found;
}

/**
 * A span's OpenLLMetry documents, in the order read: Traceloop `db.query.result` events
 * (`db.query.result.document`, named by `db.query.result.id` and `.metadata`), then LangChain
 * Documents in `traceloop.entity.input` / `traceloop.entity.output`.
 */
export function openLlmetryDocuments(span: OtlpSpan): ContextItem[] {
  const out: ContextItem[] = [];
  // A loop, not push(...docs): spreading a few hundred thousand documents overflows the stack.
  const add = (docs: readonly ContextItem[]): void => {
    for (const d of docs) out.push(d);
  };
  for (const e of span.events ?? []) {
    if (!DB_RESULT_EVENT.test(e.name)) continue;
    // One result per event: its id (db.query.result.id) names the document beside it.
    const id = e.attributes[ATTR_DB_QUERY_RESULT_ID];
    for (const key of DB_QUERY_RESULT_DOCUMENT_KEYS) {
      const docs = documentsFrom(e.attributes[key]);
      add(docs.length === 1 && typeof docs[0] === "string" ? [namedDocument(docs[0], id, e.attributes[ATTR_DB_QUERY_RESULT_METADATA])] : docs);
    }
  }
  const a = span.attributes;
  for (const key of [ATTR_TRACELOOP_ENTITY_INPUT, ATTR_TRACELOOP_ENTITY_OUTPUT]) if (typeof a[key] === "string") add(langChainDocuments(a[key]));
  return out;
}

/** OpenLLMetry prompt messages: `gen_ai.prompt.N.role` / `.content`, in index order. */
export function openLlmetryPrompt(entries: Entries): PromptMessage[] {
  return indexedMessages(entries, ATTR_GEN_AI_PROMPT, ROLE, CONTENT);
}

/** OpenLLMetry completions: `gen_ai.completion.N.content`, joined; "" when none. */
export function openLlmetryCompletion(entries: Entries): string {
  return indexed(entries, ATTR_GEN_AI_COMPLETION, CONTENT).join("\n");
}
