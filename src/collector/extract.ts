import type { OtlpSpan } from "./otlp.ts";

/** Extra attribute names to read, for instrumentations that use neither OpenInference nor GenAI names. */
export interface AttributeMapping {
  /** Attributes holding retrieved document text (a string, an array of strings, or a JSON array). */
  readonly documents?: readonly string[];
  readonly question?: readonly string[];
  readonly answer?: readonly string[];
}

/** What a trace contributes so far: retrieved documents, a question, an answer, a route. */
export interface TraceParts {
  documents: string[];
  question?: string;
  answer?: string;
  route?: string;
  service?: string;
  /** The root span arrived (the request finished). */
  rootSeen: boolean;
  /** The span an evaluation should be parented to: the LLM span when known, else the root. */
  parentSpanId?: string;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() !== "" ? v : undefined;
}

function parseJson(v: unknown): unknown {
  if (typeof v !== "string") return v;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return undefined;
  }
}

/** Values of indexed OpenInference keys, in index order: prefix.{i}.suffix. */
function indexed(attrs: Readonly<Record<string, unknown>>, prefix: string, suffix: string): string[] {
  const re = new RegExp(`^${prefix.replace(/\./g, "\\.")}\\.(\\d+)\\.${suffix.replace(/\./g, "\\.")}$`);
  const found: Array<[number, string]> = [];
  for (const [k, v] of Object.entries(attrs)) {
    const m = re.exec(k);
    const s = str(v);
    if (m?.[1] !== undefined && s !== undefined) found.push([Number(m[1]), s]);
  }
  return found.sort((a, b) => a[0] - b[0]).map(([, s]) => s);
}

/** Text of GenAI messages JSON: [{role, parts: [{type: "text", content}]}] (or {content} strings). */
function messagesText(v: unknown, role?: string): string[] {
  const arr = parseJson(v);
  if (!Array.isArray(arr)) return [];
  const out: string[] = [];
  for (const msg of arr) {
    if (!msg || typeof msg !== "object") continue;
    const m = msg as { role?: unknown; parts?: unknown; content?: unknown };
    if (role && m.role !== undefined && m.role !== role) continue;
    if (typeof m.content === "string") out.push(m.content);
    if (Array.isArray(m.parts)) for (const p of m.parts) if (p && typeof p === "object" && (p as { type?: unknown }).type === "text" && typeof (p as { content?: unknown }).content === "string") out.push((p as { content: string }).content);
  }
  return out;
}

function documentsFrom(v: unknown): string[] {
  if (typeof v === "string") {
    const parsed = parseJson(v);
    if (Array.isArray(parsed)) return documentsFrom(parsed);
    return v.trim() === "" ? [] : [v];
  }
  if (!Array.isArray(v)) return [];
  return v.flatMap((d) => (typeof d === "string" ? [d] : d && typeof d === "object" && typeof (d as { content?: unknown }).content === "string" ? [(d as { content: string }).content] : []));
}

/**
 * Reads one span's contribution: OpenInference retrieval documents, GenAI
 * `gen_ai.retrieval.documents` with content, and mapped attributes; the question from
 * input messages or the retrieval query; the answer from OpenInference output
 * messages or `output.value`, GenAI `gen_ai.output.messages`, or OpenLLMetry
 * `gen_ai.completion.N.content`.
 */
export function absorbSpan(parts: TraceParts, span: OtlpSpan, mapping: AttributeMapping = {}): void {
  const a = span.attributes;
  const kind = String(a["openinference.span.kind"] ?? "").toUpperCase();
  const operation = String(a["gen_ai.operation.name"] ?? "");
  parts.documents.push(...indexed(a, "retrieval.documents", "document.content"));
  parts.documents.push(...documentsFrom(a["gen_ai.retrieval.documents"]));
  for (const key of mapping.documents ?? []) parts.documents.push(...documentsFrom(a[key]));

  const question =
    (mapping.question ?? []).map((k) => str(a[k])).find((x) => x !== undefined) ??
    str(a["gen_ai.retrieval.query.text"]) ??
    (kind === "RETRIEVER" ? str(a["input.value"]) : undefined) ??
    indexed(a, "llm.input_messages", "message.content").at(-1) ??
    messagesText(a["gen_ai.input.messages"], "user").at(-1) ??
    indexed(a, "gen_ai.prompt", "content").at(-1);
  if (question !== undefined) parts.question ??= question;

  const isLlm = kind === "LLM" || ["chat", "text_completion", "generate_content"].includes(operation);
  const answer = [
    (mapping.answer ?? []).map((k) => str(a[k])).find((x) => x !== undefined),
    indexed(a, "llm.output_messages", "message.content").join("\n"),
    messagesText(a["gen_ai.output.messages"]).join("\n"),
    indexed(a, "gen_ai.completion", "content").join("\n"),
    isLlm ? str(a["output.value"]) : undefined,
  ].find((x) => x !== undefined && x !== "");
  if (answer !== undefined) {
    parts.answer = answer;
    // The evaluation belongs to the span that produced the answer.
    parts.parentSpanId = span.spanId;
  }

  if (!span.parentSpanId) {
    parts.rootSeen = true;
    const route = str(a["http.route"]);
    if (route !== undefined) parts.route = route;
    parts.parentSpanId ??= span.spanId;
  }
  const service = str(span.resource["service.name"]);
  if (service !== undefined) parts.service ??= service;
}
