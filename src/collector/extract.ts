import { labelOrUndefined } from "../telemetry/labels.ts";
import { absorbGenAiEvent, addGenAiSpanPrompt, genAiDocuments, genAiOutput, genAiQuery, isGenAiLlmOperation } from "./conventions/genai.ts";
import type { Entries } from "./conventions/json.ts";
import { documentsFrom, lastUserOf, nonBlank } from "./conventions/json.ts";
import { ATTR_HTTP_ROUTE, ATTR_SERVICE_NAME } from "./conventions/keys.ts";
import { openInferenceKind, openInferenceLastInput, openInferenceOutput, openInferenceOutputValue, openInferencePrompt, openInferenceQuery, openInferenceSpanDocuments } from "./conventions/openinference.ts";
import { isOpenLlmetrySpan, openLlmetryCompletion, openLlmetryDocuments, openLlmetryPrompt } from "./conventions/openllmetry.ts";
import type { OtlpLog, OtlpSpan } from "./otlp.ts";
import type { AttributeMapping, SourceConvention, TraceParts } from "./trace-parts.ts";
import { addDocuments, addPrompt, setAnswer } from "./trace-parts.ts";

/** Values of a mapped key: the span's attributes first, then its events' attributes. */
function mapped(span: OtlpSpan, key: string): unknown[] {
  const out: unknown[] = [];
  if (span.attributes[key] !== undefined) out.push(span.attributes[key]);
  for (const e of span.events ?? []) if (e.attributes[key] !== undefined) out.push(e.attributes[key]);
  return out;
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
  const kind = openInferenceKind(a);
  const isLlm = kind === "LLM" || isGenAiLlmOperation(a);
  const entries: Entries = Object.entries(a);
  const genai: SourceConvention = isOpenLlmetrySpan(entries) ? "openllmetry" : "genai";

  addDocuments(parts, openInferenceSpanDocuments(a, entries, kind), "openinference");
  addDocuments(parts, genAiDocuments(a), genai);
  addDocuments(parts, openLlmetryDocuments(span), "openllmetry");
  for (const key of mapping.documents ?? []) for (const v of mapped(span, key)) addDocuments(parts, documentsFrom(v), "mapping");

  const question =
    (mapping.question ?? []).flatMap((k) => mapped(span, k).map(nonBlank)).find((x) => x !== undefined) ??
    genAiQuery(a) ??
    openInferenceQuery(a, kind) ??
    openInferenceLastInput(entries);

  addPrompt(parts, openInferencePrompt(a, entries, isLlm));
  const genAiUser = addGenAiSpanPrompt(parts, a);
  const openLlmetryMessages = openLlmetryPrompt(entries);
  addPrompt(parts, openLlmetryMessages);
  // The question is the last user message (an assistant or tool turn after it is not a question).
  const asked = question ?? genAiUser ?? lastUserOf(openLlmetryMessages, true);
  if (asked !== undefined) parts.question ??= asked;

  const mappedAnswer = (mapping.answer ?? []).flatMap((k) => mapped(span, k).map(nonBlank)).find((x) => x !== undefined);
  const answers: Array<[string | undefined, SourceConvention]> = [
    [mappedAnswer, "mapping"],
    [openInferenceOutput(entries), "openinference"],
    [genAiOutput(a), genai],
    [openLlmetryCompletion(entries), "openllmetry"],
    [openInferenceOutputValue(a, isLlm), "openinference"],
  ];
  const answer = answers.find(([x]) => x !== undefined && x !== "");
  if (answer?.[0] !== undefined) setAnswer(parts, answer[0], span.spanId, answer[1]);

  if (!span.parentSpanId) {
    parts.rootSeen = true;
    const route = labelOrUndefined(a[ATTR_HTTP_ROUTE]);
    if (route !== undefined) parts.route = route;
    parts.parentSpanId ??= span.spanId;
  }
  const service = labelOrUndefined(span.resource[ATTR_SERVICE_NAME]);
  if (service !== undefined) parts.service ??= service;
}

/**
 * Reads one log record: OTel GenAI events (see absorbGenAiEvent), then mapped keys, looked up in the
 * record's attributes.
 */
export function absorbLog(parts: TraceParts, log: OtlpLog, mapping: AttributeMapping = {}): void {
  absorbGenAiEvent(parts, log);
  for (const key of mapping.documents ?? []) addDocuments(parts, documentsFrom(log.attributes[key]), "mapping");
  const question = (mapping.question ?? []).map((k) => nonBlank(log.attributes[k])).find((x) => x !== undefined);
  if (question !== undefined) parts.question ??= question;
  const answer = (mapping.answer ?? []).map((k) => nonBlank(log.attributes[k])).find((x) => x !== undefined);
  if (answer !== undefined) setAnswer(parts, answer, log.spanId, "mapping");
  const service = labelOrUndefined(log.resource[ATTR_SERVICE_NAME]);
  if (service !== undefined) parts.service ??= service;
}
