/**
 * Citations in answers: "[1]", "[1, 3]", "[2-4]", "[^2]" footnotes and named sources
 * ("(source: refund-policy.md)"), resolved against the retrieved documents. Pure: no I/O.
 */

import type { ContextDocument } from "./context.ts";

export type { ContextDocument } from "./context.ts";

/** What a citation names, before it is resolved. */
export type CitationTarget = { readonly kind: "index"; readonly n: number } | { readonly kind: "name"; readonly name: string };

/** A citation marker found in an answer. Offsets are into the answer. */
export interface CitationMarker {
  /** The marker as written: "[2]", "[1, 3]", "(source: policy.md)". */
  readonly text: string;
  readonly start: number;
  readonly end: number;
  readonly targets: readonly CitationTarget[];
}

/** One citation resolved against the context: the documents (0-based indexes) it names, and those it names but that were not retrieved. */
export interface ResolvedCitation {
  readonly marker: CitationMarker;
  /** Indexes into the context's documents. */
  readonly docs: readonly number[];
  /** Targets that match no retrieved document, as written ("7", "pricing.md"). */
  readonly missing: readonly string[];
}

/** The answer with its markers removed, and the way back to the answer's offsets. */
export interface StrippedAnswer {
  readonly text: string;
  /** Maps an offset of `text` to the offset of the same character in the answer. */
  toOriginal(offset: number): number;
  readonly markers: readonly CitationMarker[];
  /** Offsets in `text` where each marker was (parallel to `markers`), for attaching them to claims. */
  readonly positions: readonly number[];
}

/** Most numbers a range may expand to ("[1-999]" is not a citation list). */
const MAX_RANGE = 20;
/** Most markers read from one answer; the rest are left in the text. */
const MAX_MARKERS = 500;

/** Longest list of names a named source may hold, in characters ("(source: a.md, b.md)"). */
const MAX_NAMED_CHARS = 200;
const SPACE = /\s/;

function isSpace(c: string | undefined): boolean {
  return c !== undefined && SPACE.test(c);
}

/** Whether `text` holds "source" (any case) at `at`. */
function isSourceWord(text: string, at: number): boolean {
  const word = "source";
  for (let k = 0; k < word.length; k++) if ((text.charCodeAt(at + k) | 0x20) !== word.charCodeAt(k)) return false;
  return true;
}

/**
 * A named source at `at` ("(source: refund-policy.md)", "[Source: Refund policy]", "(sources: a.md,
 * b.md)"): an opener, "source" or "sources" in any case, a colon, 1–200 characters of names (no
 * brackets, no line break) and a closer, with any whitespace between. A hand scan, linear in the text
 * it reads: the regular expression it replaces tried every split of a whitespace run between three
 * quantifiers (8 KB took 12.5 s). It stops at the first bracket after the colon, so the text each
 * opener reads ends at the next one.
 */
function namedAt(answer: string, at: number): { end: number; list: string } | undefined {
  let j = at + 1;
  while (isSpace(answer[j])) j++;
  if (!isSourceWord(answer, j)) return undefined;
  j += 6;
  if (answer[j] === "s" || answer[j] === "S") j++;
  while (isSpace(answer[j])) j++;
  if (answer[j] !== ":") return undefined;
  const colon = j;
  j++;
  while (isSpace(answer[j])) j++;
  const first = j;
  let last = -1;
  let lineBreak = false;
  for (; j < answer.length; j++) {
    const c = answer[j];
    if (c === ")" || c === "]") break;
    if (c === "(" || c === "[") return undefined;
    if (c === "\n") lineBreak = true;
    else if (!isSpace(c)) {
      // Names hold no line break (one may only precede the closer) and at most MAX_NAMED_CHARS characters.
      if (lineBreak || j - first >= MAX_NAMED_CHARS) return undefined;
      last = j;
    }
  }
  if (j >= answer.length) return undefined;
  if (last >= 0) return { end: j + 1, list: answer.slice(first, last + 1) };
  // Only whitespace before the closer: the name is one whitespace character (not a line break), as
  // the regular expression read "(source: )"; it resolves to nothing, an invalid citation.
  for (let s = first - 1; s > colon; s--) if (answer[s] !== "\n") return { end: j + 1, list: answer.slice(s, s + 1) };
  return undefined;
}

/** Splits a list at commas and semicolons, dropping the whitespace around each separator. */
function splitList(list: string): string[] {
  const parts = list.split(/[,;]/);
  return parts.map((p, k) => {
    const left = k > 0 ? p.trimStart() : p;
    return k < parts.length - 1 ? left.trimEnd() : left;
  });
}

// "2-4", "2 – 4": a range inside a bracketed list (anchored, no two quantifiers share a character).
const RANGE = /^(\d+)\s*[-–—]\s*(\d+)$/;

function expand(list: string): number[] | undefined {
  const out: number[] = [];
  for (const part of splitList(list)) {
    const range = RANGE.exec(part);
    if (range) {
      const a = Number(range[1]);
      const b = Number(range[2]);
      if (b < a || b - a >= MAX_RANGE) return undefined;
      for (let n = a; n <= b; n++) out.push(n);
    } else out.push(Number(part));
  }
  return out;
}

/**
 * Finds the citation markers of an answer. Text inside code spans and fenced blocks
 * (`a[1]`) and inside double quotation marks is left alone, and so is a markdown link
 * ("[1](https://…)") or an array index right after an identifier with no space ("x[1]" in
 * code). Named sources are read only when `named` is true (the context names its documents).
 */
export function findCitations(answer: string, named = true): CitationMarker[] {
  // "[1]", "[1, 3]", "[2-4]", "[1,2–3]", "[^2]": numbers of 1–3 digits, commas, dashes. Linear: no two
  // adjacent quantifiers share a character (digits, whitespace, dashes, separators are disjoint), so a
  // failed match backs out of each run once (test/core/citations-growth.test.ts).
  const bracketed = /\[(\^?)(\d{1,3}(?:\s*[-–—]\s*\d{1,3})?(?:\s*[,;]\s*\d{1,3}(?:\s*[-–—]\s*\d{1,3})?)*)\](?!\()/y;
  // (A literal here is a new object per call, compiled once: its lastIndex is this call's alone.)
  const markers: CitationMarker[] = [];
  let inCode = false;
  let fence = false;
  let inQuote = false;
  for (let i = 0; i < answer.length && markers.length < MAX_MARKERS; i++) {
    const c = answer[i];
    if (answer.startsWith("```", i)) {
      fence = !fence;
      i += 2;
      continue;
    }
    if (fence) continue;
    if (c === "`") {
      inCode = !inCode;
      continue;
    }
    if (inCode) continue;
    if (c === "\n") inQuote = false;
    if (c === '"' || c === "“" || c === "”") {
      inQuote = c === "“" ? true : c === "”" ? false : !inQuote;
      continue;
    }
    if (inQuote) continue;
    if (c === "[") {
      // An index right after an identifier character ("x[1]", "arr[0]") is code, not a citation:
      // answers put a space or punctuation before a marker, or attach it to a word's end ("Paris[1]").
      const before = answer[i - 1] ?? " ";
      if (/[\d_$]/.test(before)) continue;
      bracketed.lastIndex = i;
      const m = bracketed.exec(answer);
      // "[^1]: …" at the start of a line defines a footnote; it cites nothing.
      const definition = m !== null && answer[i + m[0].length] === ":" && (i === 0 || answer[i - 1] === "\n");
      if (m && !definition) {
        const numbers = expand(m[2] ?? "");
        if (numbers) {
          markers.push({ text: m[0], start: i, end: i + m[0].length, targets: numbers.map((n) => ({ kind: "index", n })) });
          i += m[0].length - 1;
          continue;
        }
      }
    }
    if (named && (c === "(" || c === "[")) {
      const m = namedAt(answer, i);
      if (m) {
        const names = splitList(m.list).filter((n) => n !== "");
        if (names.length > 0) {
          markers.push({ text: answer.slice(i, m.end), start: i, end: m.end, targets: names.map((name) => ({ kind: "name", name })) });
          i = m.end - 1;
        }
      }
    }
  }
  return markers;
}

/**
 * Removes the markers (and the space before each) from the answer, so claims are split and
 * scored on the prose alone, with a map back to the answer's offsets.
 */
export function stripCitations(answer: string, markers: readonly CitationMarker[]): StrippedAnswer {
  if (markers.length === 0) return { text: answer, toOriginal: (o) => o, markers, positions: [] };
  const parts: string[] = [];
  // Piecewise map: kept[k] = [strippedStart, originalStart] of each kept run.
  const kept: Array<[number, number]> = [];
  const positions: number[] = [];
  let from = 0;
  let length = 0;
  for (const m of markers) {
    let cut = m.start;
    while (cut > from && (answer[cut - 1] === " " || answer[cut - 1] === "\t")) cut--;
    // Keep one space when the marker sat between two words ("Paris [1] is" → "Paris is").
    const after = answer[m.end] ?? "";
    const keepSpace = cut < m.start && /\w/.test(after);
    const end = keepSpace ? m.start : cut;
    kept.push([length, from]);
    parts.push(answer.slice(from, end));
    length += end - from;
    positions.push(length);
    from = m.end;
  }
  kept.push([length, from]);
  parts.push(answer.slice(from));
  const text = parts.join("");
  const toOriginal = (offset: number): number => {
    let lo = 0;
    let hi = kept.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((kept[mid]?.[0] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    const [s, o] = kept[lo] ?? [0, 0];
    return o + (offset - s);
  };
  return { text, toOriginal, markers, positions };
}

/** The last line break (as a regular expression's "." reads it) in `text`, or -1. */
// An extension: 1–5 lower-case letters or digits (tested on at most 5 characters).
const EXTENSION = /^[a-z0-9]+$/;

function lastLineBreak(text: string): number {
  return Math.max(text.lastIndexOf("\n"), text.lastIndexOf("\r"), text.lastIndexOf("\u2028"), text.lastIndexOf("\u2029"));
}

/**
 * A name as it is compared: trimmed, lower case, without "http(s)://", its query or fragment (from the
 * first "?" or "#" on its last line) and trailing slashes. Plain string code, linear in the name: the
 * regular expressions it replaces (/\/+$/, /[?#].*$/) were quadratic on runs of "/" or "?".
 */
function normalise(name: string): string {
  let n = name.trim().toLowerCase();
  if (n.startsWith("http://")) n = n.slice(7);
  else if (n.startsWith("https://")) n = n.slice(8);
  const from = lastLineBreak(n) + 1;
  const query = n.indexOf("?", from);
  const fragment = n.indexOf("#", from);
  const cut = query < 0 ? fragment : fragment < 0 ? query : Math.min(query, fragment);
  if (cut >= 0) n = n.slice(0, cut);
  let end = n.length;
  while (end > 0 && n.charCodeAt(end - 1) === 0x2f) end--;
  return n.slice(0, end);
}

/** The last path segment of a URL or path, with and without its extension ("docs/a.md" → "a.md", "a"). */
function baseNames(name: string): string[] {
  const base = name.slice(name.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  const stem = dot >= 0 && base.length - dot - 1 >= 1 && base.length - dot - 1 <= 5 && EXTENSION.test(base.slice(dot + 1)) ? base.slice(0, dot) : base;
  return stem === base ? [base] : [base, stem];
}

/**
 * Resolves markers against the documents. "[n]" names the document whose id is "n" when there
 * is one, else the n-th document (1-based, as answers number their sources). A named source matches a document's id, title or URL (case-insensitive; a URL or
 * path also by its last segment, with or without its extension).
 */
export function resolveCitations(markers: readonly CitationMarker[], documents: ReadonlyArray<Pick<ContextDocument, "id" | "title" | "url">>): ResolvedCitation[] {
  const byName = new Map<string, number>();
  const numericIds = documents.some((d) => d.id !== undefined && /^\d+$/.test(d.id.trim()));
  documents.forEach((d, i) => {
    for (const field of [d.id, d.title, d.url]) {
      if (field === undefined || field.trim() === "") continue;
      const n = normalise(field);
      for (const key of [n, ...baseNames(n)]) if (!byName.has(key)) byName.set(key, i);
    }
  });
  return markers.map((marker) => {
    const docs: number[] = [];
    const missing: string[] = [];
    for (const t of marker.targets) {
      let doc: number | undefined;
      if (t.kind === "index") {
        // A document whose id is the number, else the n-th document: database ids ("4821") never
        // turn a positional [1] into a citation of nothing.
        doc = (numericIds ? byName.get(String(t.n)) : undefined) ?? (t.n >= 1 && t.n <= documents.length ? t.n - 1 : undefined);
      } else {
        const n = normalise(t.name);
        doc = byName.get(n) ?? baseNames(n).map((k) => byName.get(k)).find((x) => x !== undefined);
      }
      if (doc === undefined) missing.push(t.kind === "index" ? String(t.n) : t.name);
      else if (!docs.includes(doc)) docs.push(doc);
    }
    return { marker, docs, missing };
  });
}

/**
 * Attaches each marker to a claim: the claim whose span (in stripped offsets) contains the
 * marker's position, else the last claim ending at or before it (a marker after the full stop),
 * else the first claim after it. Returns, per marker, the index into `claims` or -1.
 */
export function attachCitations(positions: readonly number[], claims: ReadonlyArray<{ start: number; end: number }>): number[] {
  return positions.map((p) => {
    let before = -1;
    for (let k = 0; k < claims.length; k++) {
      const c = claims[k];
      if (!c) continue;
      if (p >= c.start && p <= c.end) return k;
      if (c.end <= p) before = k;
    }
    if (before >= 0) return before;
    return claims.length > 0 ? 0 : -1;
  });
}
