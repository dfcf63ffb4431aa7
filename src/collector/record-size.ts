/**
 * What a span or log record costs the trace buffer: the joiner's byte counts (text, plus a fixed
 * amount per record and per kept item) and the upper bound footprint() reserves before a request is
 * joined; and the digest that finds a repeated log record.
 */
import { createHash } from "node:crypto";
import type { OtlpLog, OtlpSpan } from "./otlp.ts";

/** Counted per span or log record absorbed, for what the trace keeps of it besides text (its id). */
export const RECORD_BYTES = 64;
/** Counted per document and input message kept, besides its text: a million one-character documents are not free. */
export const ITEM_BYTES = 16;
/**
 * A JSON array in an attribute (documents, messages) can become one kept item per 4 characters ("x",),
 * each counted ITEM_BYTES more than its text: JSON text counts this many times its length in footprint().
 */
const JSON_EXPANSION = 5;

/** A log record's digest (span, event name, body, attributes): an exporter's retry of the same record has the same one. */
export function logKey(log: OtlpLog): string {
  return createHash("sha1").update(JSON.stringify([log.spanId, log.eventName, log.body ?? null, log.attributes])).digest("base64");
}

/** Characters of text in an attribute value, walked to a bounded depth (decoding already bounds it). */
function textOf(v: unknown, depth = 0): number {
  if (typeof v === "string") return /^\s*[[{]/.test(v) ? v.length * JSON_EXPANSION : v.length;
  if (depth > 100 || v === null || typeof v !== "object") return 8;
  let n = Array.isArray(v) ? v.length * ITEM_BYTES : 0;
  for (const x of Array.isArray(v) ? v : Object.entries(v as Record<string, unknown>).flat()) n += textOf(x, depth + 1);
  return n;
}

/** An upper bound of the text a span or log record can add to its trace. */
export function recordText(r: OtlpSpan | OtlpLog): number {
  let n = RECORD_BYTES + textOf(r.attributes);
  if ("events" in r) for (const e of r.events ?? []) n += textOf(e.attributes);
  if ("body" in r) n += textOf(r.body);
  return n;
}
