import type { ContextItem } from "../core/context.ts";
import type { PromptMessage } from "./conventions/json.ts";
import { documentText } from "../core/context.ts";
import { nonBlank } from "./conventions/json.ts";

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

/** A convention a trace's documents or answer can come from. */
export type SourceConvention = Exclude<Convention, "prompt" | "mixed">;

/**
 * The route a trace is counted and labelled under: its root span's http.route, else its service
 * name, else "unknown". The one fallback, for a trace held and for one admission looks ahead at.
 */
export function traceRoute(p: { readonly route?: string | undefined; readonly service?: string | undefined }): string {
  return p.route ?? p.service ?? "unknown";
}

/** What a trace contributes so far: retrieved documents, a question, an answer, a route. */
export interface TraceParts {
  documents: ContextItem[];
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
  /** What promptContext's pattern found in `prompt` so far: each message is read once, however often the trace is resolved. */
  promptPicked?: PromptPicks;
}

/** promptContext's pattern over a trace's input messages, read so far. */
export interface PromptPicks {
  /** The pattern they were read with (another pattern reads them again). */
  readonly pattern: RegExp;
  /** Messages of `prompt` read. */
  scanned: number;
  readonly documents: string[];
  question: string | undefined;
  /** Messages longer than MAX_PROMPT_MATCH_CHARS, not read. */
  tooLong: number;
}

/** A trace's parts, resolved: an interaction to score, or the reason there is none. */
export type ResolvedParts =
  | { readonly ok: true; readonly documents: ContextItem[]; readonly question: string | undefined; readonly answer: string; readonly convention: Convention }
  | { readonly ok: false; readonly reason: "no_answer" | "no_documents" | "no_documents_prompt_available" | "no_documents_prompt_unmatched" | "no_documents_prompt_too_long" };

/**
 * Most distinct input messages a trace keeps for promptContext (a long chat history has a few hundred);
 * past it a record's message array is not read further, and the messages left are counted.
 */
export const MAX_PROMPT_MESSAGES = 1000;

/**
 * Longest input message promptContext's pattern reads, in characters. The pattern runs on V8's linear
 * engine, which takes scratch memory in proportion to the text it matches (about 150 bytes a
 * character): a message longer than this is not read (a trace whose only messages were such is
 * counted no_documents_prompt_too_long). 256 Ki characters is more than the scorer reads of all
 * documents together (maxContextChars, 200,000 by default).
 */
export const MAX_PROMPT_MATCH_CHARS = 262_144;

/** Adds documents read in one convention (none: nothing changes). */
export function addDocuments(parts: TraceParts, docs: readonly ContextItem[], source: SourceConvention): void {
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
export function addPrompt(parts: TraceParts, messages: readonly PromptMessage[], unread = 0): void {
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
export function promptRoom(parts: TraceParts): number {
  return Math.max(0, MAX_PROMPT_MESSAGES - (parts.prompt?.length ?? 0));
}

/** Sets the trace's answer, the convention it came from, and the span an evaluation belongs to. */
export function setAnswer(parts: TraceParts, answer: string, spanId: string, source: SourceConvention): void {
  parts.answer = answer;
  parts.answerSource = source;
  // The evaluation belongs to the span that produced the answer.
  if (spanId !== "") parts.parentSpanId = spanId;
}

/**
 * Documents without repeats, in order of arrival: one text is one document; when it came both plain and
 * named (two conventions on one trace), the named copy is kept, in the place the text first came.
 */
function distinctDocuments(docs: readonly ContextItem[]): ContextItem[] {
  const out: ContextItem[] = [];
  const at = new Map<string, number>();
  for (const d of docs) {
    const text = documentText(d);
    const i = at.get(text);
    if (i === undefined) {
      at.set(text, out.length);
      out.push(d);
    } else if (typeof out[i] === "string" && typeof d !== "string") out[i] = d;
  }
  return out;
}

/**
 * Context and question that promptContext picks out of the input messages. In regex mode each message
 * is read once (the picks are kept on the parts, and a trace is resolved again at every record that
 * touches it), and one longer than MAX_PROMPT_MATCH_CHARS not at all.
 */
function fromPrompt(parts: TraceParts, promptContext: PromptContext): { documents: string[]; question: string | undefined; tooLong: number } {
  const prompt = parts.prompt ?? [];
  if (promptContext.mode === "system") return { documents: prompt.filter((m) => m.role === "system" || m.role === "developer").map((m) => m.content), question: undefined, tooLong: 0 };
  if (promptContext.mode === "off") return { documents: [], question: undefined, tooLong: 0 };
  const { pattern } = promptContext;
  let picked = parts.promptPicked;
  if (picked?.pattern !== pattern) picked = parts.promptPicked = { pattern, scanned: 0, documents: [], question: undefined, tooLong: 0 };
  for (; picked.scanned < prompt.length; picked.scanned++) {
    const m = prompt[picked.scanned] as PromptMessage;
    if (m.content.length > MAX_PROMPT_MATCH_CHARS) {
      picked.tooLong++;
      continue;
    }
    const groups = pattern.exec(m.content)?.groups;
    const context = nonBlank(groups?.context);
    if (context !== undefined) picked.documents.push(context.trim());
    picked.question = nonBlank(groups?.question)?.trim() ?? picked.question;
  }
  return { documents: [...picked.documents], question: picked.question, tooLong: picked.tooLong };
}

/**
 * Resolves a trace's parts into an interaction (documents deduplicated, in order of arrival), or the
 * reason it has none. Documents from spans and events come first; only when there are none does
 * promptContext look inside the prompt. `no_documents_prompt_available`: promptContext is off but the
 * trace had input messages it could have read; `no_documents_prompt_unmatched`: it is on but found nothing;
 * `no_documents_prompt_too_long`: it found nothing because the messages it could not read were too long.
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
  if (picked.documents.length === 0) return { ok: false, reason: picked.tooLong > 0 ? "no_documents_prompt_too_long" : "no_documents_prompt_unmatched" };
  return { ok: true, documents: [...new Set(picked.documents)], question: picked.question ?? question, answer: parts.answer, convention: "prompt" };
}
