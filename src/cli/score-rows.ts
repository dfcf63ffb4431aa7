import type { ContextInput } from "../core/context.ts";

/** One input row of `groundwatch score`. */
export interface ScoreRow {
  readonly id: string | number;
  readonly context: ContextInput;
  readonly answer: string;
  readonly question?: string;
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
  if (!value || typeof value !== "object" || Array.isArray(value)) return fail(`expected a JSON object, got ${typeName(value)}`);
  const v = value as Record<string, unknown>;
  if (typeof v.id !== "string" && typeof v.id !== "number") return fail(`"id" must be a string or a number (got ${typeName(v.id)})`);
  if (typeof v.answer !== "string") return fail(`"answer" must be a string (got ${typeName(v.answer)})`);
  const ctx = v.context;
  if (typeof ctx !== "string") {
    if (!Array.isArray(ctx)) return fail(`"context" must be a string or an array of strings (got ${typeName(ctx)})`);
    const bad = ctx.findIndex((d) => typeof d !== "string");
    if (bad >= 0) return fail(`"context[${bad}]" must be a string (got ${typeName(ctx[bad])})`);
  }
  if (v.question !== undefined && typeof v.question !== "string") return fail(`"question" must be a string when present (got ${typeName(v.question)})`);
  const row: ScoreRow = { id: v.id, context: ctx as ContextInput, answer: v.answer, ...(typeof v.question === "string" ? { question: v.question } : {}) };
  return { ok: true, row };
}
