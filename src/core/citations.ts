/**
 * Citations in answers: "[1]", "[1, 3]", "[2-4]", "[^2]" footnotes and named sources
 * ("(source: refund-policy.md)"), resolved against the retrieved documents. Pure: no I/O.
 */

/** A retrieved document with the identity a citation can name. */
export interface ContextDocument {
  /** The document's id as the retriever returned it ("refund-policy", "doc-17", "3"). */
  readonly id?: string;
  readonly title?: string;
  readonly url?: string;
  readonly text: string;
}

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

// "[1]", "[1, 3]", "[2-4]", "[1,2–3]", "[^2]": numbers of 1–3 digits, commas, dashes.
const BRACKETED = /\[(\^?)(\d{1,3}(?:\s*[-–—]\s*\d{1,3})?(?:\s*[,;]\s*\d{1,3}(?:\s*[-–—]\s*\d{1,3})?)*)\](?!\()/gy;
// "(source: refund-policy.md)", "[Source: Refund policy]", "(sources: a.md, b.md)".
const NAMED = /[([]\s*sources?\s*:\s*([^()[\]\n]{1,200}?)\s*[)\]]/giy;

function expand(list: string): number[] | undefined {
  const out: number[] = [];
  for (const part of list.split(/\s*[,;]\s*/)) {
    const range = /^(\d+)\s*[-–—]\s*(\d+)$/.exec(part);
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
      BRACKETED.lastIndex = i;
      const m = BRACKETED.exec(answer);
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
      NAMED.lastIndex = i;
      const m = NAMED.exec(answer);
      if (m) {
        const names = (m[1] ?? "").split(/\s*[,;]\s*/).filter((n) => n !== "");
        if (names.length > 0) {
          markers.push({ text: m[0], start: i, end: i + m[0].length, targets: names.map((name) => ({ kind: "name", name })) });
          i += m[0].length - 1;
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

function normalise(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, "")
    .replace(/[?#].*$/, "")
    .replace(/\/+$/, "");
}

/** The last path segment of a URL or path, with and without its extension ("docs/a.md" → "a.md", "a"). */
function baseNames(name: string): string[] {
  const base = name.split("/").pop() ?? name;
  const stem = base.replace(/\.[a-z0-9]{1,5}$/, "");
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
