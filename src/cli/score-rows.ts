import type { ContextInput } from "../core/context.ts";
import type { Sample } from "../core/entropy/semantic-entropy.ts";

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
  let samples: Sample[] | undefined;
  if (v.samples !== undefined) {
    const parsedSamples = parseSamples(v.samples, v.logprobs);
    if (typeof parsedSamples === "string") return fail(parsedSamples);
    samples = parsedSamples;
  }
  const row: ScoreRow = {
    id: v.id,
    context: ctx as ContextInput,
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
