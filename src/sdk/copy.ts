import type { ContextDocument } from "../core/citations.ts";
import { MAX_DOCUMENT_NAME_CHARS, documentId } from "../core/context.ts";
import type { Sample } from "../core/entropy/semantic-entropy.ts";

/**
 * Copies of host data: arrays read once, element by element, into plain values, so nothing of the
 * host's objects is kept and later changes to them cannot affect scoring. A getter or Proxy trap
 * that throws propagates; callers read host data inside their own guard.
 */

/** Why a document array could not be copied: the element (`[3]`, `[3].title`) and what is wrong with it. */
export interface InvalidDocument {
  readonly at: string;
  readonly why: string;
}

/**
 * Copies retrieved documents: strings, or `{ text, id?, title?, url? }` objects (an id may be a
 * number; it is kept as a string). Undefined when `raw` is not an array; an InvalidDocument naming
 * the element when one is neither, or when its id, title or url is longer than
 * MAX_DOCUMENT_NAME_CHARS (such a name is no citation target, and its bytes would be held).
 */
export function copyDocuments(raw: unknown): Array<string | ContextDocument> | InvalidDocument | undefined {
  if (!Array.isArray(raw)) return undefined;
  const out: Array<string | ContextDocument> = [];
  for (let i = 0; i < raw.length; i++) {
    const v: unknown = raw[i];
    if (typeof v === "string") {
      out.push(v);
      continue;
    }
    if (!v || typeof v !== "object") return { at: `[${i}]`, why: "not a string or a { text, id?, title?, url? } document" };
    const text: unknown = (v as { text?: unknown }).text;
    if (typeof text !== "string") return { at: `[${i}].text`, why: "not a string" };
    const doc: { text: string; id?: string; title?: string; url?: string } = { text };
    const id = documentId((v as { id?: unknown }).id);
    if (id !== undefined) doc.id = id;
    for (const key of ["title", "url"] as const) {
      const value: unknown = (v as Record<string, unknown>)[key];
      if (typeof value === "string") doc[key] = value;
    }
    for (const key of ["id", "title", "url"] as const) {
      const length = doc[key]?.length ?? 0;
      if (length > MAX_DOCUMENT_NAME_CHARS) return { at: `[${i}].${key}`, why: `longer than ${MAX_DOCUMENT_NAME_CHARS} characters (${length})` };
    }
    out.push(doc);
  }
  return out;
}

/** Copies samples (strings or `{ text, logprobs? }`); undefined when any element is neither. */
export function copySamples(raw: unknown): Sample[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const out: Sample[] = [];
  for (let i = 0; i < raw.length; i++) {
    const v: unknown = raw[i];
    if (typeof v === "string") out.push(v);
    else if (v && typeof v === "object" && typeof (v as { text?: unknown }).text === "string") {
      const lp: unknown = (v as { logprobs?: unknown }).logprobs;
      const logprobs = typeof lp === "number" ? lp : Array.isArray(lp) ? Array.from(lp as unknown[]).filter((x): x is number => typeof x === "number") : undefined;
      out.push({ text: (v as { text: string }).text, ...(logprobs !== undefined ? { logprobs } : {}) });
    } else return undefined;
  }
  return out;
}
