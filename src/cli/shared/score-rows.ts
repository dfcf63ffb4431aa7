import type { ContextInput } from "../../core/context.ts";
import { documentId } from "../../core/context.ts";
import type { Sample } from "../../core/entropy/semantic-entropy.ts";
import { isPlainObject } from "../../core/plain-object.ts";

/** One input row of `groundwatch score`. */
export interface ScoreRow {
  readonly id: string | number;
  readonly context: ContextInput;
  readonly answer: string;
  readonly question?: string;
  readonly samples?: readonly Sample[];
}

export type ParsedRow = { readonly ok: true; readonly row: ScoreRow } | { readonly ok: false; readonly error: string };

function typeName(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
}

/** Parses and validates one JSONL line; the error names the line and the field. */
export function parseScoreRow(line: string, lineNumber: number): ParsedRow {
  const fail = (msg: string): ParsedRow => ({ ok: false, error: `line ${lineNumber}: ${msg}` });
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return fail(`not valid JSON (${(error as Error).message})`);
  }
  if (!isPlainObject(value)) return fail(`expected a JSON object, got ${typeName(value)}`);
  const v = value as Record<string, unknown>;
  // RAGAS and DeepEval rows are read as they are (their id defaults to the line number).
  if ([...RAGAS_ONLY, ...DEEPEVAL_ONLY].some((k) => v[k] !== undefined && v[k] !== null)) {
    const r = parseEvalSetRow(value, `line ${lineNumber}`, lineNumber);
    if (typeof r === "string") return { ok: false, error: r };
    const names = ROW_FIELDS[r.format];
    if (r.answer === undefined) return fail(`"${names.answer}" is missing: score needs the answer`);
    if (r.context === undefined) return fail(`"${names.context[0] ?? "context"}" is missing: score needs the retrieved documents`);
    return { ok: true, row: { id: r.id, context: r.context, answer: r.answer, ...(r.question !== undefined ? { question: r.question } : {}), ...(r.samples ? { samples: r.samples } : {}) } };
  }
  if (typeof v.id !== "string" && typeof v.id !== "number") return fail(`"id" must be a string or a number (got ${typeName(v.id)})`);
  if (typeof v.answer !== "string") return fail(`"answer" must be a string (got ${typeName(v.answer)})`);
  const ctx = v.context;
  const ctxError = contextError(ctx, "context");
  if (ctxError) return fail(ctxError);
  if (v.question !== undefined && typeof v.question !== "string") return fail(`"question" must be a string when present (got ${typeName(v.question)})`);
  let samples: Sample[] | undefined;
  if (v.samples !== undefined) {
    const parsedSamples = parseSamples(v.samples, v.logprobs);
    if (typeof parsedSamples === "string") return fail(parsedSamples);
    samples = parsedSamples;
  }
  const row: ScoreRow = {
    id: v.id,
    context: normaliseContext(ctx as ContextInput),
    answer: v.answer,
    ...(typeof v.question === "string" ? { question: v.question } : {}),
    ...(samples ? { samples } : {}),
  };
  return { ok: true, row };
}

/**
 * Validates resamples: strings or {text, logprobs?}; an optional parallel "logprobs"
 * array holds, per sample, token log-probabilities or one mean log-probability.
 * Returns the samples or an error naming the field.
 */
export function parseSamples(samples: unknown, logprobs: unknown): Sample[] | string {
  if (!Array.isArray(samples)) return `"samples" must be an array (got ${typeName(samples)})`;
  if (logprobs !== undefined && (!Array.isArray(logprobs) || logprobs.length !== samples.length)) {
    return `"logprobs" must be an array with one entry per sample (${samples.length})`;
  }
  const out: Sample[] = [];
  for (const [i, s] of samples.entries()) {
    const lp: unknown = Array.isArray(logprobs) ? logprobs[i] : undefined;
    if (lp !== undefined && lp !== null && typeof lp !== "number" && !(Array.isArray(lp) && lp.every((x) => typeof x === "number" || x === null))) {
      return `"logprobs[${i}]" must be a number or an array of numbers`;
    }
    // JSON has no NaN: null token log-probabilities arrive as null and are kept as NaN, so the estimator can refuse them.
    const lpValue = lp === undefined || lp === null ? undefined : Array.isArray(lp) ? lp.map((x: number | null) => (x === null ? NaN : x)) : lp;
    if (typeof s === "string") out.push(lpValue === undefined ? s : { text: s, logprobs: lpValue });
    else if (s && typeof s === "object" && typeof (s as { text?: unknown }).text === "string") {
      const o = s as { text: string; logprobs?: unknown };
      if (o.logprobs !== undefined && typeof o.logprobs !== "number" && !(Array.isArray(o.logprobs) && o.logprobs.every((x) => typeof x === "number"))) {
        return `"samples[${i}].logprobs" must be a number or an array of numbers`;
      }
      const own = o.logprobs as number | number[] | undefined;
      const chosen = own ?? lpValue;
      out.push(chosen === undefined ? o.text : { text: o.text, logprobs: chosen });
    } else return `"samples[${i}]" must be a string or {"text": string, "logprobs"?: number[]} (got ${typeName(s)})`;
  }
  return out;
}

/** The row conventions `groundwatch eval` reads: its own, RAGAS and DeepEval. */
export type RowFormat = "groundwatch" | "ragas" | "deepeval";

/** An eval row in groundwatch's terms, whichever convention it was written in. */
export interface EvalSetRow {
  readonly format: RowFormat;
  /** The row's id; its line (or position in a JSON array) when the row has none. */
  readonly id: string | number;
  readonly question: string | undefined;
  /** Undefined when the row has none: the context must then come from the service's reply. */
  readonly context: ContextInput | undefined;
  readonly answer: string | undefined;
  readonly label?: 0 | 1;
  readonly samples?: Sample[];
}

/**
 * Where each convention keeps groundwatch's fields. RAGAS (SingleTurnSample / EvaluationDataset)
 * and DeepEval (LLMTestCase, as exported to JSON) rows are read as they are; their reference
 * answers (`reference`, `expected_output`) are not needed to check groundedness and are ignored.
 */
export const ROW_FIELDS: Readonly<Record<RowFormat, { readonly question: string; readonly context: readonly string[]; readonly answer: string }>> = {
  groundwatch: { question: "question", context: ["context"], answer: "answer" },
  ragas: { question: "user_input", context: ["retrieved_contexts"], answer: "response" },
  // DeepEval's `retrieval_context` is what the answer was generated from (its faithfulness
  // metric); its `context` is the ideal context (its hallucination metric), used only without one.
  deepeval: { question: "input", context: ["retrieval_context", "context"], answer: "actual_output" },
};

// Keys that only one convention uses; `context` is groundwatch's and DeepEval's both.
const RAGAS_ONLY = ["user_input", "retrieved_contexts", "response", "reference", "reference_contexts"];
const DEEPEVAL_ONLY = ["input", "actual_output", "retrieval_context", "expected_output"];
const GROUNDWATCH_ONLY = ["question", "answer"];

/** A field's value, with JSON null (as pandas and DeepEval exports write absent fields) read as absent. */
function field(o: Record<string, unknown>, key: string): unknown {
  return o[key] === null ? undefined : o[key];
}

/**
 * Reads one eval row (already parsed from JSON) in groundwatch's, RAGAS's or DeepEval's
 * convention; `where` names it in errors ("line 3", "row 3") and `position` is its default id.
 * Returns the row or an error naming the field as the row spells it.
 */
export function parseEvalSetRow(value: unknown, where: string, position: number): EvalSetRow | string {
  const fail = (msg: string): string => `${where}: ${msg}`;
  if (!isPlainObject(value)) return fail(`expected a JSON object, got ${typeName(value)}`);
  const o = value as Record<string, unknown>;
  const has = (keys: readonly string[]): string[] => keys.filter((k) => field(o, k) !== undefined);
  const ragas = has(RAGAS_ONLY);
  const deepeval = has(DEEPEVAL_ONLY);
  const own = has(GROUNDWATCH_ONLY);
  const mixed = [ragas.length > 0 ? `RAGAS (${ragas.join(", ")})` : "", deepeval.length > 0 ? `DeepEval (${deepeval.join(", ")})` : "", own.length > 0 && (ragas.length > 0 || deepeval.length > 0) ? `groundwatch (${own.join(", ")})` : ""].filter((s) => s !== "");
  if (mixed.length > 1) return fail(`mixes the fields of ${mixed.join(" and ")}: use one convention per row`);
  if (ragas.length > 0 && field(o, "context") !== undefined) return fail('mixes RAGAS fields with groundwatch\'s "context": RAGAS rows keep the documents in "retrieved_contexts"');
  const format: RowFormat = ragas.length > 0 ? "ragas" : deepeval.length > 0 ? "deepeval" : "groundwatch";
  const names = ROW_FIELDS[format];

  const id = field(o, "id");
  if (id !== undefined && typeof id !== "string" && typeof id !== "number") return fail(`"id" must be a string or a number (got ${typeName(id)})`);
  const question = field(o, names.question);
  if (format === "ragas" && Array.isArray(question)) return fail('"user_input" is a conversation (a multi-turn sample): give the question as a string');
  if (question !== undefined && typeof question !== "string") return fail(`"${names.question}" must be a string (got ${typeName(question)})`);
  const answer = field(o, names.answer);
  if (answer !== undefined && typeof answer !== "string") return fail(`"${names.answer}" must be a string (got ${typeName(answer)})`);
  const contextKey = names.context.find((k) => field(o, k) !== undefined);
  const context = contextKey === undefined ? undefined : field(o, contextKey);
  const contextProblem = contextKey === undefined ? undefined : contextError(context, contextKey);
  if (contextProblem) return fail(contextProblem);
  const label = field(o, "label");
  if (label !== undefined && label !== 0 && label !== 1) return fail('"label" must be 1 (grounded) or 0 (not grounded)');
  let samples: Sample[] | undefined;
  if (field(o, "samples") !== undefined) {
    const s = parseSamples(o.samples, field(o, "logprobs"));
    if (typeof s === "string") return fail(s);
    samples = s;
  }
  return {
    format,
    id: id ?? position,
    question,
    context: context === undefined ? undefined : normaliseContext(context as ContextInput),
    answer,
    ...(label === 0 || label === 1 ? { label } : {}),
    ...(samples ? { samples } : {}),
  };
}

/**
 * Why a row's context is not one string or an array of documents (strings or
 * `{ text, id?, title?, url? }` objects), naming the element; undefined when it is fine.
 */
function contextError(ctx: unknown, name: string): string | undefined {
  if (typeof ctx === "string") return undefined;
  if (!Array.isArray(ctx)) return `"${name}" must be a string or an array of documents (got ${typeName(ctx)})`;
  for (let i = 0; i < ctx.length; i++) {
    const d: unknown = ctx[i];
    if (typeof d === "string") continue;
    if (!isPlainObject(d)) return `"${name}[${i}]" must be a string or a { text, id?, title?, url? } object (got ${typeName(d)})`;
    const o = d as Record<string, unknown>;
    if (typeof o.text !== "string") return `"${name}[${i}].text" must be a string (got ${typeName(o.text)})`;
    if (o.id !== undefined && typeof o.id !== "string" && typeof o.id !== "number") return `"${name}[${i}].id" must be a string or a number (got ${typeName(o.id)})`;
    for (const key of ["title", "url"]) if (o[key] !== undefined && typeof o[key] !== "string") return `"${name}[${i}].${key}" must be a string (got ${typeName(o[key])})`;
    const unknown = Object.keys(o).find((k) => !["text", "id", "title", "url"].includes(k));
    if (unknown !== undefined) return `"${name}[${i}]" has an unknown field "${unknown}" (documents are { text, id?, title?, url? })`;
  }
  return undefined;
}

/** Document ids as strings (a row may number them). */
function normaliseContext(ctx: ContextInput): ContextInput {
  if (typeof ctx === "string") return ctx;
  return ctx.map((d) => {
    if (typeof d === "string") return d;
    const id = documentId(d.id);
    return { ...d, ...(id !== undefined ? { id } : {}) };
  });
}
