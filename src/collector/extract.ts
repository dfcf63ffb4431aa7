import type { ContextDocument } from "../core/citations.ts";
import { MAX_DOCUMENT_NAME_CHARS } from "../core/context.ts";
import { sanitizeLabel } from "../telemetry/labels.ts";
import type { OtlpLog, OtlpSpan } from "./otlp.ts";

/**
 * Extra attribute names to read, for instrumentations that use neither OpenInference nor GenAI names.
 * Each name is looked up in the span's attributes, then in the attributes of the span's events
 * (e.g. `"db.query.result.document"` also finds Traceloop `db.query.result` events), then in the
 * attributes of log records joined to the trace. There is no separate event syntax: the same key
 * addresses all three places.
 */
export interface AttributeMapping {
  /** Attributes holding retrieved document text (a string, an array of strings, or a JSON array). */
  readonly documents?: readonly string[];
  readonly question?: readonly string[];
  readonly answer?: readonly string[];
}

/** Where an interaction's documents and answer came from, for the `groundwatch.convention` metric attribute. */
export type Convention = "openinference" | "genai" | "openllmetry" | "mapping" | "prompt" | "mixed";

/**
 * Documents inside the prompt (opt-in): "off" reads none; "system" takes the system message(s) of the
 * LLM input as the context; "regex" takes the named group `context` of the pattern in each input
 * message (and a named group `question`, when the pattern has one, as the question).
 */
export type PromptContext = { readonly mode: "off" } | { readonly mode: "system" } | { readonly mode: "regex"; readonly pattern: RegExp };

/** One input message of an LLM call: its role ("system", "user", …; "" when unknown) and its text. */
export interface PromptMessage {
  readonly role: string;
  readonly content: string;
}

type SourceConvention = Exclude<Convention, "prompt" | "mixed">;

/**
 * A retrieved document as the collector read it: its text, or `{ text, id?, title?, url? }` when the
 * instrumentation named it (so that citations in the answer can be checked against it).
 */
export type RetrievedDocument = string | ContextDocument;

/** The text of a retrieved document. */
export function documentTextOf(d: RetrievedDocument): string {
  return typeof d === "string" ? d : d.text;
}

/** What a trace contributes so far: retrieved documents, a question, an answer, a route. */
export interface TraceParts {
  documents: RetrievedDocument[];
  question?: string;
  answer?: string;
  route?: string;
  service?: string;
  /** The root span arrived (the request finished). */
  rootSeen: boolean;
  /** The span an evaluation should be parented to: the LLM span when known, else the root. */
  parentSpanId?: string;
  /** The conventions that supplied documents. */
  documentSources?: Set<SourceConvention>;
  /** The convention that supplied the answer. */
  answerSource?: SourceConvention;
  /** Input messages of the LLM call(s), without repeats, at most MAX_PROMPT_MESSAGES: where promptContext looks for documents. */
  prompt?: PromptMessage[];
  /** The roles each message text of `prompt` came with: the keyed lookup that finds a repeated message. */
  promptSeen?: Map<string, Set<string>>;
  /** Input messages not kept because the trace already held MAX_PROMPT_MESSAGES (counted as too_many_messages). */
  messagesDropped?: number;
  /** The last user message of GenAI log events or input messages (the question when nothing else names one). */
  lastUserMessage?: string;
}

/** A trace's parts, resolved: an interaction to score, or the reason there is none. */
export type ResolvedParts =
  | { readonly ok: true; readonly documents: RetrievedDocument[]; readonly question: string | undefined; readonly answer: string; readonly convention: Convention }
  | { readonly ok: false; readonly reason: "no_answer" | "no_documents" | "no_documents_prompt_available" | "no_documents_prompt_unmatched" };

// Caps on the recursive search for document-shaped objects in JSON attributes.
const MAX_JSON_CHARS = 2_000_000;
const MAX_DEPTH = 12;
const MAX_NODES = 20_000;
const MAX_FOUND = 1000;
/**
 * Most distinct input messages a trace keeps for promptContext (a long chat history has a few hundred);
 * past it a record's message array is not read further, and the messages left are counted.
 */
export const MAX_PROMPT_MESSAGES = 1000;

function str(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() !== "" ? v : undefined;
}

/**
 * A route or service name as a metric label: ANSI sequences, control and bidi characters removed,
 * at most 200 characters; undefined when nothing is left. Span attributes are untrusted text.
 */
export function routeLabel(v: unknown): string | undefined {
  if (typeof v !== "string") return undefined;
  const clean = sanitizeLabel(v, "");
  return clean === "" ? undefined : clean;
}

function parseJson(v: unknown): unknown {
  if (typeof v !== "string") return v;
  if (v.length > MAX_JSON_CHARS) return undefined;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return undefined;
  }
}

function record(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/**
 * A span's attributes as entries, listed once per span: every reader of indexed keys walks this list.
 * (Listing a large object's keys costs more than linear time in V8, so it is not done once per reader.)
 */
type Entries = ReadonlyArray<readonly [string, unknown]>;

/** Values of indexed OpenInference keys, in index order: prefix.{i}.suffix. */
function indexed(attrs: Entries, prefix: string, suffix: string): string[] {
  const re = new RegExp(`^${prefix.replace(/\./g, "\\.")}\\.(\\d+)\\.${suffix.replace(/\./g, "\\.")}$`);
  const found: Array<[number, string]> = [];
  for (const [k, v] of attrs) {
    if (!k.startsWith(prefix)) continue;
    const m = re.exec(k);
    const s = str(v);
    if (m?.[1] !== undefined && s !== undefined) found.push([Number(m[1]), s]);
  }
  return found.sort((a, b) => a[0] - b[0]).map(([, s]) => s);
}

/** Indexed messages with a role and a content key (prefix.{i}.roleKey / prefix.{i}.contentKey), in index order. */
function indexedMessages(attrs: Entries, prefix: string, roleKey: string, contentKey: string): PromptMessage[] {
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
function contentText(v: unknown): string | undefined {
  if (typeof v === "string") return str(v);
  if (!Array.isArray(v)) return undefined;
  const texts: string[] = [];
  for (const p of v) {
    if (typeof p === "string") texts.push(p);
    const part = record(p);
    if (part && (part.type === undefined || part.type === "text" || part.type === "input_text" || part.type === "output_text")) {
      const t = typeof part.content === "string" ? part.content : typeof part.text === "string" ? part.text : undefined;
      if (t !== undefined) texts.push(t);
    }
  }
  return str(texts.join("\n"));
}

/** One GenAI or OpenAI-style message: {role, parts: [{type: "text", content}]} or {role, content}. */
function messageOf(v: unknown): PromptMessage | undefined {
  const m = record(v);
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
function readMessages(v: unknown, max = Infinity): MessageList {
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
function messagesOf(v: unknown): PromptMessage[] {
  return readMessages(v).messages;
}

/** The last message of a messages array whose role is `user` (or unknown, when `orUnknown`), read from the end. */
function lastUserOf(all: readonly unknown[], orUnknown: boolean): string | undefined {
  for (let i = all.length - 1; i >= 0; i--) {
    const m = messageOf(all[i]);
    if (m && (m.role === "user" || (orUnknown && m.role === ""))) return m.content;
  }
  return undefined;
}

/** Text of GenAI messages JSON, optionally of one role. */
function messagesText(v: unknown, role?: string): string[] {
  return messagesOf(v)
    .filter((m) => !role || m.role === "" || m.role === role)
    .map((m) => m.content);
}

/** A document: a string, or an object with its text under content, page_content, pageContent or text. */
function documentText(d: unknown, depth = 0): string | undefined {
  if (typeof d === "string") return str(d);
  const o = record(d);
  if (!o) return undefined;
  for (const key of ["content", "page_content", "pageContent", "text"]) if (typeof o[key] === "string") return str(o[key]);
  // {"document": {"document": …}} nested thousands deep must not exhaust the stack.
  const nested = depth < MAX_DEPTH ? record(o.document) : undefined;
  return nested ? documentText(nested, depth + 1) : undefined;
}

/** A document id: a non-empty string, or a finite number as a string; undefined otherwise. */
function idOf(v: unknown): string | undefined {
  return typeof v === "number" && Number.isFinite(v) ? String(v) : nameOf(v);
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
export function namedDocument(text: string, id: unknown, metadata?: unknown): RetrievedDocument {
  const meta = record(parseJson(metadata));
  const name = idOf(id) ?? idOf(meta?.id);
  const title = nameOf(meta?.title);
  const url = nameOf(meta?.url) ?? nameOf(meta?.source);
  if (name === undefined && title === undefined && url === undefined) return text;
  return { text, ...(name !== undefined ? { id: name } : {}), ...(title !== undefined ? { title } : {}), ...(url !== undefined ? { url } : {}) };
}

/** A document object's text and names: its text as documentText finds it, its `id` and `metadata` (or those of a nested `document`). */
function documentOf(d: unknown): RetrievedDocument | undefined {
  const text = documentText(d);
  if (text === undefined) return undefined;
  const o = record(d);
  if (!o) return text;
  const inner = record(o.document);
  return namedDocument(text, o.id ?? inner?.id, o.metadata ?? inner?.metadata);
}

function documentsFrom(v: unknown): RetrievedDocument[] {
  if (typeof v === "string") {
    const parsed = parseJson(v);
    if (Array.isArray(parsed)) return documentsFrom(parsed);
    return v.trim() === "" ? [] : [v];
  }
  if (!Array.isArray(v)) return [];
  return v.flatMap((d): RetrievedDocument[] => {
    if (typeof d === "string") return d.trim() === "" ? [] : [d];
    const o = record(d);
    return o && typeof o.content === "string" ? [namedDocument(o.content, o.id, o.metadata)] : [];
  });
}

/** OpenInference RETRIEVER `output.value`: a JSON array of documents, or an object holding one under `documents` (or `results`). */
function retrieverOutputDocuments(v: unknown): RetrievedDocument[] {
  const parsed = parseJson(v);
  const list = Array.isArray(parsed) ? parsed : (record(parsed)?.documents ?? record(parsed)?.results);
  if (!Array.isArray(list)) return [];
  return list.slice(0, MAX_FOUND).flatMap((d) => documentOf(d) ?? []);
}

/**
 * OpenInference retrieval documents: `retrieval.documents.{i}.document.content`, named by
 * `.document.id` and `.document.metadata` (a JSON string: title, url or source), in index order.
 */
function openInferenceDocuments(attrs: Entries): RetrievedDocument[] {
  const re = /^retrieval\.documents\.(\d+)\.document\.(content|id|metadata)$/;
  const byIndex = new Map<number, { content?: string; id?: unknown; metadata?: unknown }>();
  for (const [k, v] of attrs) {
    if (!k.startsWith("retrieval.documents.")) continue;
    const m = re.exec(k);
    if (m?.[1] === undefined) continue;
    const i = Number(m[1]);
    const doc = byIndex.get(i) ?? {};
    if (m[2] === "content") {
      const text = str(v);
      if (text !== undefined) doc.content = text;
    } else if (m[2] === "id") doc.id = v;
    else doc.metadata = v;
    byIndex.set(i, doc);
  }
  return [...byIndex.entries()].sort((a, b) => a[0] - b[0]).flatMap(([, d]) => (d.content !== undefined ? [namedDocument(d.content, d.id, d.metadata)] : []));
}

/**
 * LangChain Documents anywhere in a JSON value (Traceloop `traceloop.entity.input` / `output`): objects
 * with a string `pageContent` or `page_content` (the serialised form keeps it under `kwargs`), at any
 * nesting ({"outputs": …}, {"args": […], "kwargs": {…}}, JSON inside strings), within depth and size caps.
 */
function langChainDocuments(v: unknown): RetrievedDocument[] {
  const found: RetrievedDocument[] = [];
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
    const o = record(x);
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

/** Traceloop vector-DB result events: `db.query.result` (or `db.<system>.query.result`). */
const DB_RESULT_EVENT = /^db\.(?:[a-z0-9_]+\.)?query\.result$/;

function addDocuments(parts: TraceParts, docs: readonly RetrievedDocument[], source: SourceConvention): void {
  if (docs.length === 0) return;
  // A loop, not push(...docs): spreading a few hundred thousand documents overflows the stack.
  for (const d of docs) parts.documents.push(d);
  (parts.documentSources ??= new Set()).add(source);
}

/**
 * Adds input messages to the trace's prompt, each (role, text) once, found by a keyed lookup (a linear
 * scan per message made 80,000 messages a 9 s stall); at most MAX_PROMPT_MESSAGES are kept, and the
 * others (with `unread`, those a record's array held past the room left) are counted in messagesDropped.
 */
function addPrompt(parts: TraceParts, messages: readonly PromptMessage[], unread = 0): void {
  const prompt = (parts.prompt ??= []);
  const seen = (parts.promptSeen ??= new Map());
  let dropped = unread;
  for (const m of messages) {
    if (m.role === "user") parts.lastUserMessage = m.content;
    const roles = seen.get(m.content);
    if (roles?.has(m.role)) continue;
    if (prompt.length >= MAX_PROMPT_MESSAGES) {
      dropped++;
      continue;
    }
    if (roles) roles.add(m.role);
    else seen.set(m.content, new Set([m.role]));
    prompt.push(m);
  }
  if (dropped > 0) parts.messagesDropped = (parts.messagesDropped ?? 0) + dropped;
}

/** Room left in the trace's prompt: how many messages of a record's array are worth reading. */
function promptRoom(parts: TraceParts): number {
  return Math.max(0, MAX_PROMPT_MESSAGES - (parts.prompt?.length ?? 0));
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

function setAnswer(parts: TraceParts, answer: string, spanId: string, source: SourceConvention): void {
  parts.answer = answer;
  parts.answerSource = source;
  // The evaluation belongs to the span that produced the answer.
  if (spanId !== "") parts.parentSpanId = spanId;
}

/** Values of a mapped key: the span's attributes first, then its events' attributes. */
function mapped(span: OtlpSpan, key: string): unknown[] {
  const out: unknown[] = [];
  if (span.attributes[key] !== undefined) out.push(span.attributes[key]);
  for (const e of span.events ?? []) if (e.attributes[key] !== undefined) out.push(e.attributes[key]);
  return out;
}

/** OpenInference LLM input: `llm.input_messages.N.message.*`, else the OpenAI request in `input.value`. */
function openInferencePrompt(a: Readonly<Record<string, unknown>>, entries: Entries, isLlm: boolean): PromptMessage[] {
  const messages = indexedMessages(entries, "llm.input_messages", "message.role", "message.content");
  if (messages.length > 0 || !isLlm) return messages;
  const input = a["input.value"];
  const parsed = parseJson(input);
  const fromJson = messagesOf(record(parsed)?.messages ?? record(parsed)?.input ?? (Array.isArray(parsed) ? parsed : undefined));
  if (fromJson.length > 0) return fromJson;
  const text = typeof parsed === "string" || parsed === undefined ? str(input) : undefined;
  return text !== undefined ? [{ role: "", content: text }] : [];
}

/**
 * Reads one span's contribution. Documents: OpenInference `retrieval.documents.N.document.content`, else
 * a RETRIEVER span's `output.value` (JSON documents); GenAI `gen_ai.retrieval.documents`; Traceloop
 * `db.query.result` events (`db.query.result.document`) and LangChain Documents in
 * `traceloop.entity.input` / `traceloop.entity.output`; mapped attributes. Each keeps the names a
 * citation may give it (see namedDocument): OpenInference `.document.id` and `.document.metadata`,
 * the `id` and `metadata` of JSON documents, `db.query.result.id`. The question from the
 * retrieval query or the input messages; the answer from OpenInference output messages or an LLM span's
 * `output.value`, GenAI `gen_ai.output.messages`, or OpenLLMetry `gen_ai.completion.N.content`. Input
 * messages (OpenInference, GenAI, OpenLLMetry `gen_ai.prompt.N.*`) are kept for promptContext.
 */
export function absorbSpan(parts: TraceParts, span: OtlpSpan, mapping: AttributeMapping = {}): void {
  const a = span.attributes;
  const kind = String(a["openinference.span.kind"] ?? "").toUpperCase();
  const operation = String(a["gen_ai.operation.name"] ?? "");
  const isLlm = kind === "LLM" || ["chat", "text_completion", "generate_content"].includes(operation);
  // OpenLLMetry (Traceloop) now writes GenAI names too; its spans are recognised by their traceloop.* attributes.
  const entries: Entries = Object.entries(a);
  const genai: SourceConvention = entries.some(([k]) => k.startsWith("traceloop.")) ? "openllmetry" : "genai";

  const oiDocuments = openInferenceDocuments(entries);
  addDocuments(parts, oiDocuments.length > 0 || kind !== "RETRIEVER" ? oiDocuments : retrieverOutputDocuments(a["output.value"]), "openinference");
  addDocuments(parts, documentsFrom(a["gen_ai.retrieval.documents"]), genai);
  for (const e of span.events ?? []) {
    if (!DB_RESULT_EVENT.test(e.name)) continue;
    // One result per event: its id (db.query.result.id) names the document beside it.
    const id = e.attributes["db.query.result.id"];
    for (const key of ["db.query.result.document", "db.query.result.documents", "db.query.result.content", "db.query.result.text"]) {
      const docs = documentsFrom(e.attributes[key]);
      addDocuments(parts, docs.length === 1 && typeof docs[0] === "string" ? [namedDocument(docs[0], id, e.attributes["db.query.result.metadata"])] : docs, "openllmetry");
    }
  }
  for (const key of ["traceloop.entity.input", "traceloop.entity.output"]) if (typeof a[key] === "string") addDocuments(parts, langChainDocuments(a[key]), "openllmetry");
  for (const key of mapping.documents ?? []) for (const v of mapped(span, key)) addDocuments(parts, documentsFrom(v), "mapping");

  const question =
    (mapping.question ?? []).flatMap((k) => mapped(span, k).map(str)).find((x) => x !== undefined) ??
    str(a["gen_ai.retrieval.query.text"]) ??
    (kind === "RETRIEVER" ? str(a["input.value"]) : undefined) ??
    indexed(entries, "llm.input_messages", "message.content").at(-1);

  addPrompt(parts, openInferencePrompt(a, entries, isLlm));
  const genAiUser = addGenAiPrompt(parts, a["gen_ai.system_instructions"], a["gen_ai.input.messages"]);
  const openLlmetryPrompt = indexedMessages(entries, "gen_ai.prompt", "role", "content");
  addPrompt(parts, openLlmetryPrompt);
  const asked = question ?? genAiUser ?? openLlmetryPrompt.at(-1)?.content;
  if (asked !== undefined) parts.question ??= asked;

  const mappedAnswer = (mapping.answer ?? []).flatMap((k) => mapped(span, k).map(str)).find((x) => x !== undefined);
  const answers: Array<[string | undefined, SourceConvention]> = [
    [mappedAnswer, "mapping"],
    [indexed(entries, "llm.output_messages", "message.content").join("\n"), "openinference"],
    [messagesText(a["gen_ai.output.messages"]).join("\n"), genai],
    [indexed(entries, "gen_ai.completion", "content").join("\n"), "openllmetry"],
    [isLlm ? str(a["output.value"]) : undefined, "openinference"],
  ];
  const answer = answers.find(([x]) => x !== undefined && x !== "");
  if (answer?.[0] !== undefined) setAnswer(parts, answer[0], span.spanId, answer[1]);

  if (!span.parentSpanId) {
    parts.rootSeen = true;
    const route = routeLabel(a["http.route"]);
    if (route !== undefined) parts.route = route;
    parts.parentSpanId ??= span.spanId;
  }
  const service = routeLabel(span.resource["service.name"]);
  if (service !== undefined) parts.service ??= service;
}

/** GenAI message events and their roles. */
const MESSAGE_EVENTS: Readonly<Record<string, string>> = {
  "gen_ai.system.message": "system",
  "gen_ai.user.message": "user",
  "gen_ai.assistant.message": "assistant",
  "gen_ai.tool.message": "tool",
};

/**
 * Reads one log record (OTel GenAI events, as `@opentelemetry/instrumentation-openai` emits them):
 * `gen_ai.{system,user,assistant,tool}.message` (body `{content}`) are the input messages, the last
 * user message the question; `gen_ai.choice` (body `{index, message: {content}}`) is the answer;
 * `gen_ai.client.inference.operation.details` carries `gen_ai.input.messages`, `gen_ai.output.messages`
 * and `gen_ai.system_instructions` as attributes (or body keys). Mapped keys are looked up in the
 * record's attributes.
 */
export function absorbLog(parts: TraceParts, log: OtlpLog, mapping: AttributeMapping = {}): void {
  const body = record(parseJson(log.body));
  const role = MESSAGE_EVENTS[log.eventName];
  if (role !== undefined) {
    const content = contentText(body?.content) ?? (typeof log.body === "string" ? str(log.body) : undefined);
    if (content !== undefined) addPrompt(parts, [{ role, content }]);
  } else if (log.eventName === "gen_ai.choice") {
    const index = typeof body?.index === "number" ? body.index : 0;
    const content = contentText(record(body?.message)?.content) ?? contentText(body?.content);
    // With several choices (n > 1) the first one is the answer.
    if (content !== undefined && (index === 0 || parts.answerSource !== "genai")) setAnswer(parts, content, log.spanId, "genai");
  } else if (log.eventName === "gen_ai.client.inference.operation.details") {
    const field = (key: string): unknown => log.attributes[key] ?? body?.[key];
    addGenAiPrompt(parts, field("gen_ai.system_instructions"), field("gen_ai.input.messages"));
    const answer = str(messagesText(field("gen_ai.output.messages")).join("\n"));
    if (answer !== undefined) setAnswer(parts, answer, log.spanId, "genai");
  }
  for (const key of mapping.documents ?? []) addDocuments(parts, documentsFrom(log.attributes[key]), "mapping");
  const question = (mapping.question ?? []).map((k) => str(log.attributes[k])).find((x) => x !== undefined);
  if (question !== undefined) parts.question ??= question;
  const answer = (mapping.answer ?? []).map((k) => str(log.attributes[k])).find((x) => x !== undefined);
  if (answer !== undefined) setAnswer(parts, answer, log.spanId, "mapping");
  const service = routeLabel(log.resource["service.name"]);
  if (service !== undefined) parts.service ??= service;
}

/**
 * Documents without repeats, in order of arrival: one text is one document; when it came both plain and
 * named (two conventions on one trace), the named copy is kept, in the place the text first came.
 */
function distinctDocuments(docs: readonly RetrievedDocument[]): RetrievedDocument[] {
  const out: RetrievedDocument[] = [];
  const at = new Map<string, number>();
  for (const d of docs) {
    const text = documentTextOf(d);
    const i = at.get(text);
    if (i === undefined) {
      at.set(text, out.length);
      out.push(d);
    } else if (typeof out[i] === "string" && typeof d !== "string") out[i] = d;
  }
  return out;
}

/** Context and question that promptContext picks out of the input messages. */
function fromPrompt(parts: TraceParts, promptContext: PromptContext): { documents: string[]; question: string | undefined } {
  const prompt = parts.prompt ?? [];
  if (promptContext.mode === "system") return { documents: prompt.filter((m) => m.role === "system" || m.role === "developer").map((m) => m.content), question: undefined };
  if (promptContext.mode === "off") return { documents: [], question: undefined };
  const documents: string[] = [];
  let question: string | undefined;
  for (const m of prompt) {
    const groups = promptContext.pattern.exec(m.content)?.groups;
    const context = str(groups?.context);
    if (context !== undefined) documents.push(context.trim());
    question = str(groups?.question)?.trim() ?? question;
  }
  return { documents, question };
}

/**
 * Resolves a trace's parts into an interaction (documents deduplicated, in order of arrival), or the
 * reason it has none. Documents from spans and events come first; only when there are none does
 * promptContext look inside the prompt. `no_documents_prompt_available`: promptContext is off but the
 * trace had input messages it could have read; `no_documents_prompt_unmatched`: it is on but found nothing.
 */
export function resolveParts(parts: TraceParts, promptContext: PromptContext = { mode: "off" }): ResolvedParts {
  if (parts.answer === undefined) return { ok: false, reason: "no_answer" };
  const question = parts.question ?? parts.lastUserMessage;
  if (parts.documents.length > 0) {
    const sources = new Set<SourceConvention>(parts.documentSources);
    if (parts.answerSource) sources.add(parts.answerSource);
    const convention: Convention = sources.size === 1 ? ([...sources][0] as SourceConvention) : "mixed";
    return { ok: true, documents: distinctDocuments(parts.documents), question, answer: parts.answer, convention };
  }
  if ((parts.prompt ?? []).length === 0) return { ok: false, reason: "no_documents" };
  if (promptContext.mode === "off") return { ok: false, reason: "no_documents_prompt_available" };
  const picked = fromPrompt(parts, promptContext);
  if (picked.documents.length === 0) return { ok: false, reason: "no_documents_prompt_unmatched" };
  return { ok: true, documents: [...new Set(picked.documents)], question: picked.question ?? question, answer: parts.answer, convention: "prompt" };
}
