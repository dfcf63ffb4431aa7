/** Segmentation of an answer: blocks at list items and line ends, then sentence spans within a block. */
import type { AnalyzedText } from "../text.ts";

/** One line of the answer after list markers were removed. */
interface Block {
  readonly start: number;
  readonly end: number;
}

const LIST_MARKER = /^[ \t]*(?:[-*•‣◦▪–]|\(?\d{1,3}[.)]|\(?[a-zA-Z][.)](?=\s))[ \t]+/;
/** A line that ends a sentence (then the next line starts a new block): also 。！？ and the brackets that close a CJK quotation. */
const TERMINAL = /[.!?:;"'”’)\]。｡．！？」』）]\s*$/;

/**
 * Splits text into blocks at list items, blank lines and lines that end a sentence,
 * so bullets are never glued into one "sentence"; a hard-wrapped paragraph stays whole.
 */
export function splitBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  const lines: Array<{ start: number; end: number }> = [];
  let pos = 0;
  for (const line of text.split("\n")) {
    lines.push({ start: pos, end: pos + line.length });
    pos += line.length + 1;
  }
  let current: { start: number; end: number } | undefined;
  let previousEndsSentence = true;
  let inListItem = false;
  for (const line of lines) {
    const raw = text.slice(line.start, line.end);
    if (raw.trim() === "") {
      if (current) blocks.push(current);
      current = undefined;
      previousEndsSentence = true;
      inListItem = false;
      continue;
    }
    const marker = LIST_MARKER.exec(raw);
    const contentStart = line.start + (marker ? marker[0].length : raw.length - raw.trimStart().length);
    // A list item ends at its line unless the next line is indented under it.
    const continuesItem: boolean = inListItem && /^[ \t]+/.test(raw);
    const startsNew = marker !== null || previousEndsSentence || (inListItem && !continuesItem) || /^#{1,6}\s/.test(raw.trimStart());
    if (startsNew || !current) {
      if (current) blocks.push(current);
      current = { start: contentStart, end: line.end };
    } else {
      current.end = line.end;
    }
    previousEndsSentence = TERMINAL.test(raw) || /^#{1,6}\s/.test(raw.trimStart());
    inListItem = marker !== null || continuesItem;
  }
  if (current) blocks.push(current);
  return blocks;
}

/** Double quotation marks in text[start, end): the quote balance that decides merging. */
function countQuotes(text: string, start: number, end: number): number {
  let n = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 || c === 0x201c || c === 0x201d) n++;
  }
  return n;
}

/** True when text[start, end) ends, before any trailing whitespace, with a closing quote or parenthesis. */
function endsWithClosingQuote(text: string, start: number, end: number): boolean {
  let e = end;
  while (e > start && /\s/.test(text[e - 1] ?? "")) e--;
  return e > start && "\"”’)".includes(text[e - 1] ?? "x");
}

/**
 * Sentence spans of a block, merged where the splitter broke inside a quotation. Linear:
 * the quote balance of a growing merge is carried forward, never recounted.
 */
export function sentenceSpans(doc: AnalyzedText): Array<{ start: number; end: number; tokenStart: number; tokenEnd: number }> {
  const out: Array<{ start: number; end: number; tokenStart: number; tokenEnd: number }> = [];
  let pending: { start: number; end: number; tokenStart: number; tokenEnd: number } | undefined;
  let pendingQuotes = 0;
  for (const s of doc.sentences) {
    const merged = pending ? { ...pending, end: s.end, tokenEnd: s.tokenEnd } : { ...s };
    const quotes = pending ? pendingQuotes + countQuotes(doc.text, pending.end, s.end) : countQuotes(doc.text, s.start, s.end);
    if (quotes % 2 === 1) {
      pending = merged;
      pendingQuotes = quotes;
      continue;
    }
    // The splitter breaks after a closing quote ("Stop. Now." and left): a piece that
    // follows a quote and starts in lower case continues it. Other lower-case starts are
    // real sentences in informal answers ("the tower is in paris. the museum opens…").
    const previous = out[out.length - 1];
    const afterQuote = previous !== undefined && endsWithClosingQuote(doc.text, previous.start, previous.end);
    if (previous && afterQuote && /^[a-z]/.test(doc.text[s.start] ?? "") && s.end > s.start && !pending) {
      out[out.length - 1] = { ...previous, end: s.end, tokenEnd: s.tokenEnd };
      continue;
    }
    pending = undefined;
    out.push(merged);
  }
  if (pending) out.push(pending);
  return out;
}

export function trimSpan(text: string, start: number, end: number): { start: number; end: number } {
  while (start < end && /[\s,;]/.test(text[start] ?? "")) start++;
  while (end > start && /[\s,;]/.test(text[end - 1] ?? "")) end--;
  return { start, end };
}
