/**
 * The safe JSON and document reader every input convention shares: bounded JSON parsing, messages
 * and documents read out of attribute values, whatever the instrumentation that wrote them.
 */
import type { ContextItem } from "../../core/context.ts";
import { MAX_DOCUMENT_NAME_CHARS, documentId } from "../../core/context.ts";
import { asPlainObject } from "../../core/plain-object.ts";

/** One input message of an LLM call: its role ("system", "user", …; "" when unknown) and its text. */
export interface PromptMessage {
  readonly role: string;
  readonly content: string;
}



// Caps on the recursive search for document-shaped objects in JSON attributes.
const MAX_JSON_CHARS = 2_000_000;
export const MAX_DEPTH = 12;
export const MAX_NODES = 20_000;
export const MAX_FOUND = 1000;

/** A non-blank string, else undefined. */
export function nonBlank(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() !== "" ? v : undefined;
}

/** A JSON string parsed (undefined when it is not JSON or longer than MAX_JSON_CHARS); any other value as it is. */
export function parseJson(v: unknown): unknown {
  if (typeof v !== "string") return v;
  if (v.length > MAX_JSON_CHARS) return undefined;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * A span's attributes as entries, listed once per span: every reader of indexed keys walks this list.
 * (Listing a large object's keys costs more than linear time in V8, so it is not done once per reader.)
 */
export type Entries = ReadonlyArray<readonly [string, unknown]>;

/** Values of indexed OpenInference keys, in index order: prefix.{i}.suffix. */
export function indexed(attrs: Entries, prefix: string, suffix: string): string[] {
  const re = new RegExp(`^${prefix.replace(/\./g, "\\.")}\\.(\\d+)\\.${suffix.replace(/\./g, "\\.")}$`);
  const found: Array<[number, string]> = [];
  for (const [k, v] of attrs) {
    if (!k.startsWith(prefix)) continue;
    const m = re.exec(k);
    const s = nonBlank(v);
    if (m?.[1] !== undefined && s !== undefined) found.push([Number(m[1]), s]);
  }
  return found.sort((a, b) => a[0] - b[0]).map(([, s]) => s);
}

/** Indexed messages with a role and a content key (prefix.{i}.roleKey / prefix.{i}.contentKey), in index order. */
export function indexedMessages(attrs: Entries, prefix: string, roleKey: string, contentKey: string): PromptMessage[] {
  const re = new RegExp(`^${prefix.replace(/\./g, "\\.")}\\.(\\d+)\\.(.+)$`);
  const byIndex = new Map<number, { role: string; content: string }>();
  for (const [k, v] of attrs) {
    if (!k.startsWith(prefix)) continue;
    const m = re.exec(k);
    if (m?.[1] === undefined || (m[2] !== roleKey && m[2] !== contentKey) || typeof v !== "string") continue;
    const i = Number(m[1]);
    const msg = byIndex.get(i) ?? { role: "", content: "" };
    if (m[2] === roleKey) msg.role = v;
    else msg.content = v;
    byIndex.set(i, msg);
  }
  return [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, m]) => m).filter((m) => m.content.trim() !== "");
}

/** Text of a message content: a string, or parts ({type: "text", content | text} or strings). */
export function contentText(v: unknown): string | undefined {
  if (typeof v === "string") return nonBlank(v);
  if (!Array.isArray(v)) return undefined;
  const texts: string[] = [];
  for (const p of v) {
    if (typeof p === "string") texts.push(p);
    const part = asPlainObject(p);
    if (part && (part.type === undefined || part.type === "text" || part.type === "input_text" || part.type === "output_text")) {
      const t = typeof part.content === "string" ? part.content : typeof part.text === "string" ? part.text : undefined;
      if (t !== undefined) texts.push(t);
    }
  }
  return nonBlank(texts.join("\n"));
}

/** One GenAI or OpenAI-style message: {role, parts: [{type: "text", content}]} or {role, content}. */
function messageOf(v: unknown): PromptMessage | undefined {
  const m = asPlainObject(v);
  if (!m) return undefined;
  const content = contentText(m.parts) ?? contentText(m.content);
  return content !== undefined ? { role: typeof m.role === "string" ? m.role : "", content } : undefined;
}

/** Messages read from a messages value: the first ones (at most `max`), and how many entries were left unread past them. */
interface MessageList {
  readonly messages: PromptMessage[];
  readonly unread: number;
  /** The array, to look for its last user message without reading the rest (see lastUserOf). */
  readonly all: readonly unknown[];
}

/** GenAI or OpenAI-style messages JSON, read up to `max` messages: [{role, parts: [{type: "text", content}]}] or [{role, content}]. */
export function readMessages(v: unknown, max = Infinity): MessageList {
  const arr = parseJson(v);
  if (!Array.isArray(arr)) return { messages: [], unread: 0, all: [] };
  const out: PromptMessage[] = [];
  let i = 0;
  for (; i < arr.length && out.length < max; i++) {
    const m = messageOf(arr[i]);
    if (m) out.push(m);
  }
  return { messages: out, unread: arr.length - i, all: arr };
}

/** Every message of a GenAI or OpenAI-style messages value. */
export function messagesOf(v: unknown): PromptMessage[] {
  return readMessages(v).messages;
}

/** The last message of a messages array whose role is `user` (or unknown, when `orUnknown`), read from the end. */
export function lastUserOf(all: readonly unknown[], orUnknown: boolean): string | undefined {
  for (let i = all.length - 1; i >= 0; i--) {
    const m = messageOf(all[i]);
    if (m && (m.role === "user" || (orUnknown && m.role === ""))) return m.content;
  }
  return undefined;
}

/** Text of GenAI messages JSON, optionally of one role. */
export function messagesText(v: unknown, role?: string): string[] {
  return messagesOf(v)
    .filter((m) => !role || m.role === "" || m.role === role)
    .map((m) => m.content);
}

/** A document: a string, or an object with its text under content, page_content, pageContent or text. */
function documentText(d: unknown, depth = 0): string | undefined {
  if (typeof d === "string") return nonBlank(d);
  const o = asPlainObject(d);
  if (!o) return undefined;
  for (const key of ["content", "page_content", "pageContent", "text"]) if (typeof o[key] === "string") return nonBlank(o[key]);
  // {"document": {"document": …}} nested thousands deep must not exhaust the stack.
  const nested = depth < MAX_DEPTH ? asPlainObject(o.document) : undefined;
  return nested ? documentText(nested, depth + 1) : undefined;
}

/** A document id: core's `documentId` (a string, or a finite number as a string), kept only as a name is. */
function idOf(v: unknown): string | undefined {
  return nameOf(documentId(v));
}


/** A document name (title, URL): a non-empty string within MAX_DOCUMENT_NAME_CHARS (as the SDK and /v1/observations allow); undefined otherwise. */
function nameOf(v: unknown): string | undefined {
  if (typeof v !== "string") return undefined;
  const t = v.trim();
  return t === "" || t.length > MAX_DOCUMENT_NAME_CHARS ? undefined : t;
}

/**
 * A document with the names a citation may give it: its id (the instrumentation's, else
 * `metadata.id`), a title (`metadata.title`) and a URL (`metadata.url`, else `metadata.source`, as
 * LangChain loaders record a file's path). Metadata may be an object or a JSON string. Plain text when
 * it has no name, so documents without ids read as before.
 */
export function namedDocument(text: string, id: unknown, metadata?: unknown): ContextItem {
  const meta = asPlainObject(parseJson(metadata));
  const name = idOf(id) ?? idOf(meta?.id);
  const title = nameOf(meta?.title);
  const url = nameOf(meta?.url) ?? nameOf(meta?.source);
  if (name === undefined && title === undefined && url === undefined) return text;
  return { text, ...(name !== undefined ? { id: name } : {}), ...(title !== undefined ? { title } : {}), ...(url !== undefined ? { url } : {}) };
}

/** A document object's text and names: its text as documentText finds it, its `id` and `metadata` (or those of a nested `document`). */
export function documentOf(d: unknown): ContextItem | undefined {
  const text = documentText(d);
  if (text === undefined) return undefined;
  const o = asPlainObject(d);
  if (!o) return text;
  const inner = asPlainObject(o.document);
  return namedDocument(text, o.id ?? inner?.id, o.metadata ?? inner?.metadata);
}

export function documentsFrom(v: unknown): ContextItem[] {
  if (typeof v === "string") {
    const parsed = parseJson(v);
    if (Array.isArray(parsed)) return documentsFrom(parsed);
    return v.trim() === "" ? [] : [v];
  }
  if (!Array.isArray(v)) return [];
  return v.flatMap((d): ContextItem[] => {
    if (typeof d === "string") return d.trim() === "" ? [] : [d];
    const o = asPlainObject(d);
    return o && typeof o.content === "string" ? [namedDocument(o.content, o.id, o.metadata)] : [];
  });
}
