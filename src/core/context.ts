import type { AnalyzedText, TextAnalyzer, Token } from "./text.ts";
import { isContentToken } from "./text.ts";

import { createByteLru } from "./byte-lru.ts";

/** A retrieved document with the identity a citation can name. */
export interface ContextDocument {
  /** The document's id as the retriever returned it ("refund-policy", "doc-17", "3"). */
  readonly id?: string;
  readonly title?: string;
  readonly url?: string;
  readonly text: string;
}

/** One retrieved document as it may be given: its text, or the text with its names. */
export type ContextItem = string | ContextDocument;

/**
 * Retrieved context: one string, or one entry per retrieved document — its text, or the
 * document with the id, title or URL an answer's citations can name.
 */
export type ContextInput = string | ReadonlyArray<ContextItem>;

/** The text of one retrieved document: the string itself, or a document's `text`. */
export function documentText(d: ContextItem): string {
  return typeof d === "string" ? d : d.text;
}

/** The texts of the context's documents, in order. */
export function contextTexts(context: ContextInput): string[] {
  return typeof context === "string" ? [context] : context.map(documentText);
}

/** The context as documents, in order: a string is one document; `{ text }` objects keep their names. */
export function toDocuments(context: ContextInput): ContextDocument[] {
  if (typeof context === "string") return [{ text: context }];
  return context.map((d) => (typeof d === "string" ? { text: d } : d));
}

/**
 * A document id as core keeps it: a string as given, a finite number as its decimal string (a
 * retriever or a JSONL row may number its documents); undefined for anything else.
 */
export function documentId(id: unknown): string | undefined {
  if (typeof id === "string") return id;
  return typeof id === "number" && Number.isFinite(id) ? String(id) : undefined;
}

/** The names a document may carry: what a citation can name it by. */
export type DocumentNames = Partial<Pick<ContextDocument, "id" | "title" | "url">>;

/** The name a document goes by: its id, else its title, else its URL; undefined when it has none. */
export function documentName(d: DocumentNames | undefined): string | undefined {
  return d?.id ?? d?.title ?? d?.url;
}

/**
 * Document `doc` (0-based) of a context as an answer would cite it: `[2]` (1-based), with its name
 * when it has one: `[2] ("refund-policy.md")`. The name is as given: a caller showing it to a person
 * sanitises and caps it first.
 */
export function sourceName(d: DocumentNames | undefined, doc: number): string {
  const name = documentName(d);
  return name !== undefined ? `[${doc + 1}] ("${name}")` : `[${doc + 1}]`;
}

/**
 * Longest document id, title or URL, in characters: names are what citations point at ("[2]",
 * "(source: refund-policy.md)"), and a longer one is input to refuse (the SDK, /v1/observations) or
 * to leave unnamed (OTLP ingest), never text to hold and compare.
 */
export const MAX_DOCUMENT_NAME_CHARS = 2048;

/** Characters the context holds, all documents together: their text and their id, title and URL. */
export function contextBytes(context: ContextInput): number {
  if (typeof context === "string") return context.length;
  let n = 0;
  for (const d of context) n += typeof d === "string" ? d.length : d.text.length + (d.id?.length ?? 0) + (d.title?.length ?? 0) + (d.url?.length ?? 0);
  return n;
}

/** Characters of text in the context, all documents together. */
export function contextChars(context: ContextInput): number {
  if (typeof context === "string") return context.length;
  let n = 0;
  for (const d of context) n += typeof d === "string" ? d.length : d.text.length;
  return n;
}

/**
 * One sentence of a window (a part of one, where a sentence longer than the token budget was cut
 * at token boundaries), with the lemmas of its content words.
 */
export interface WindowSentence {
  /** Character offsets into the document. */
  readonly start: number;
  readonly end: number;
  readonly terms: readonly string[];
  /** True on a part of a sentence cut at the token budget: not a whole sentence (core/verbatim.ts compares whole ones only). */
  readonly part?: true;
}

/** A run of consecutive sentences of one document that fits the token budget. */
export interface ContextWindow {
  readonly id: number;
  /** Index of the document in the context array (0 for a string context). */
  readonly doc: number;
  /** Character offsets into that document. */
  readonly start: number;
  readonly end: number;
  readonly text: string;
  readonly tokens: number;
  /** Lemmas of the window's content words, for preselection. */
  readonly terms: readonly string[];
  /** The window's sentences, in order: where in it the evidence for a claim lies. */
  readonly sentences: readonly WindowSentence[];
}

export interface WindowOptions {
  /** Largest window, in estimated model tokens. */
  readonly tokenBudget: number;
  /** Estimates model tokens for a piece of text; defaults to a subword estimate. */
  readonly countTokens?: (text: string) => number;
  /**
   * Windows of documents seen before, so a document that recurs (the same retrieved passage
   * across requests and rows) is cut into windows once. It must only ever be used with one
   * token budget and counter.
   */
  readonly cache?: WindowCache;
}

/** Windows by document text, least recently used out first, bounded in estimated bytes. */
export interface WindowCache {
  get(doc: string): readonly DocumentWindow[] | undefined;
  set(doc: string, windows: readonly DocumentWindow[]): void;
}

/** A window of one document, before it is numbered and placed in a context. */
export type DocumentWindow = Omit<ContextWindow, "id" | "doc">;

/** Default byte bound of a scorer's window cache. */
export const DEFAULT_WINDOW_CACHE_BYTES = 16 * 1024 * 1024;

/** A window cache holding at most `maxBytes` (estimated: texts, terms and the windows' fields). */
export function createWindowCache(maxBytes: number = DEFAULT_WINDOW_CACHE_BYTES): WindowCache {
  const entries = createByteLru<readonly DocumentWindow[]>(maxBytes);
  return {
    get: (doc) => entries.get(doc),
    set(doc: string, windows: readonly DocumentWindow[]): void {
      if (entries.has(doc)) return;
      let bytes = 2 * doc.length + 64;
      // Window texts are slices of the document; their terms are short strings. A window's
      // sentences (one shared with its neighbour) hold references to the same strings.
      const sentences = new Set<WindowSentence>();
      for (const w of windows) {
        bytes += 96 + 40 * w.terms.length;
        for (const s of w.sentences) sentences.add(s);
      }
      for (const s of sentences) bytes += 64 + 8 * s.terms.length;
      entries.set(doc, windows, bytes);
    },
  };
}

/**
 * Estimates subword tokens the way WordPiece/Unigram vocabularies behave on
 * English: one per short word or symbol, more for long or rare-looking words.
 */
export function estimateTokens(text: string): number {
  let n = 0;
  for (const m of text.matchAll(/[A-Za-z]+|\d+|[^\sA-Za-z\d]/g)) {
    const w = m[0];
    n += /^[A-Za-z]+$/.test(w) ? 1 + Math.floor(Math.max(0, w.length - 4) / 5) : /^\d+$/.test(w) ? Math.ceil(w.length / 3) : 1;
  }
  return n;
}

/** The lemmas a window is indexed by, and a claim is looked up by. */
export function contentTerms(tokens: readonly Token[]): string[] {
  return tokens.filter(isContentToken).map((t) => t.lemma);
}

interface Piece extends WindowSentence {
  readonly tokens: number;
}

function sentencePieces(doc: AnalyzedText, budget: number, count: (t: string) => number): Piece[] {
  const pieces: Piece[] = [];
  for (const s of doc.sentences) {
    const toks = doc.tokens.slice(s.tokenStart, s.tokenEnd);
    const text = doc.text.slice(s.start, s.end);
    const n = count(text);
    const terms = contentTerms(toks);
    if (n <= budget) {
      pieces.push({ start: s.start, end: s.end, tokens: n, terms });
      continue;
    }
    // A sentence longer than the budget (tables, run-on lists) is cut at token
    // boundaries so no window ever exceeds what the model can read.
    let from = 0;
    while (from < toks.length) {
      let to = from;
      let used = 0;
      while (to < toks.length) {
        const tk = toks[to];
        if (!tk) break;
        const c = count(tk.text);
        if (used + c > budget && to > from) break;
        used += c;
        to++;
      }
      const first = toks[from];
      const last = toks[to - 1];
      if (first && last) {
        const part = toks.slice(from, to);
        pieces.push({
          start: first.start,
          end: last.end,
          tokens: used,
          terms: contentTerms(part),
          part: true,
        });
      }
      from = to;
    }
  }
  return pieces;
}

/**
 * Splits the context into sentence windows that fit the token budget. Consecutive
 * windows share one sentence, so a fact stated across a boundary stays readable.
 */
export function buildWindows(context: ContextInput, analyzer: TextAnalyzer, options: WindowOptions): ContextWindow[] {
  const docs = contextTexts(context);
  const windows: ContextWindow[] = [];
  docs.forEach((docText, docIndex) => {
    if (docText.trim() === "") return;
    let own = options.cache?.get(docText);
    if (!own) {
      own = documentWindows(docText, analyzer, options);
      options.cache?.set(docText, own);
    }
    for (const w of own) windows.push({ ...w, id: windows.length, doc: docIndex });
  });
  return windows;
}

function documentWindows(docText: string, analyzer: TextAnalyzer, options: WindowOptions): DocumentWindow[] {
  const count = options.countTokens ?? estimateTokens;
  const windows: DocumentWindow[] = [];
  const pieces = sentencePieces(analyzer.analyze(docText), options.tokenBudget, count);
  let i = 0;
  while (i < pieces.length) {
    let j = i;
    let tokens = 0;
    while (j < pieces.length) {
      const p = pieces[j];
      if (!p || (tokens + p.tokens > options.tokenBudget && j > i)) break;
      tokens += p.tokens;
      j++;
    }
    const first = pieces[i];
    const last = pieces[j - 1];
    if (first && last) {
      windows.push({
        start: first.start,
        end: last.end,
        text: docText.slice(first.start, last.end),
        tokens,
        terms: pieces.slice(i, j).flatMap((p) => p.terms),
        sentences: pieces.slice(i, j),
      });
    }
    if (j >= pieces.length) break;
    i = j - i > 1 ? j - 1 : j;
  }
  return windows;
}
