import type { ContextDocument } from "../core/citations.ts";
import type { Sample } from "../core/entropy/semantic-entropy.ts";

/**
 * Copies of host data: arrays read once, element by element, into plain values, so nothing of the
 * host's objects is kept and later changes to them cannot affect scoring. A getter or Proxy trap
 * that throws propagates; callers read host data inside their own guard.
 */

/**
 * Copies retrieved documents: strings, or `{ text, id?, title?, url? }` objects (an id may be a
 * number; it is kept as a string). Undefined when an element is neither.
 */
export function copyDocuments(raw: unknown): Array<string | ContextDocument> | undefined {
  if (!Array.isArray(raw)) return undefined;
  const out: Array<string | ContextDocument> = [];
  for (let i = 0; i < raw.length; i++) {
    const v: unknown = raw[i];
    if (typeof v === "string") {
      out.push(v);
      continue;
    }
    if (!v || typeof v !== "object") return undefined;
    const text: unknown = (v as { text?: unknown }).text;
    if (typeof text !== "string") return undefined;
    const doc: { text: string; id?: string; title?: string; url?: string } = { text };
    const id: unknown = (v as { id?: unknown }).id;
    if (typeof id === "string" || (typeof id === "number" && Number.isFinite(id))) doc.id = String(id);
    for (const key of ["title", "url"] as const) {
      const value: unknown = (v as Record<string, unknown>)[key];
      if (typeof value === "string") doc[key] = value;
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

/** Characters of text in samples (≈ bytes, as queueBytes counts). */
export function sampleChars(samples: readonly Sample[]): number {
  let n = 0;
  for (const s of samples) n += typeof s === "string" ? s.length : s.text.length;
  return n;
}
