import type { SpoolClaim, SpoolDocument, SpoolRecord, SpoolSpan } from "../../review/record.ts";
import { spanSegments } from "../../core/spans.ts";
import { plainText, sourceText } from "../shared/escape.ts";
import { evidenceLabel } from "../report/evidence.ts";
import { sanitizeForTerminal } from "../shared/io.ts";

/**
 * One spooled answer as the terminal shows it: header, question, answer, each document with its
 * claims' evidence highlighted, each claim with its verdict, score and cause. Spooled text is
 * attacker-controlled: every piece is cut first (by offsets into the original text) and then
 * sanitised, so no escape sequence reaches the terminal and the output per answer is bounded
 * whatever the size of the record. Every pass is linear in what it keeps.
 */

/** How highlighted spans are marked: ANSI inverse video on a colour terminal, plain markers otherwise. */
export interface RenderStyle {
  /** ANSI styling (a TTY without NO_COLOR); false: plain text markers `[[` … `]]`. */
  readonly color: boolean;
}

/** Bounds of what one answer's view may hold. */
export const RENDER_LIMITS = {
  /** Characters of the question and of the answer shown (cut with an ellipsis beyond). */
  text: 1500,
  /** Characters of context shown on each side of an evidence span. */
  context: 160,
  /** Characters of one evidence span shown (its middle is cut beyond). */
  span: 400,
  /** Characters of a document shown when it has no evidence span. */
  plainDoc: 400,
  /** Evidence spans shown per document (merged spans; the rest are counted). */
  spansPerDoc: 8,
  /** Documents shown (the rest are counted). */
  documents: 12,
  /** Claims listed (the rest are counted). */
  claims: 40,
  /** Characters of one claim's text, a title, a URL, a route or a cause. */
  line: 200,
  /** Spans listed under the answer (the rest are counted; all are highlighted in the answer shown). */
  spans: 40,
} as const;

const HIGHLIGHT_ON = "\u001b[7m";
const HIGHLIGHT_OFF = "\u001b[27m";
const DIM_ON = "\u001b[2m";
const DIM_OFF = "\u001b[22m";
const SPAN_ON = "\u001b[4;31m";
const SPAN_OFF = "\u001b[24;39m";
const MARK_ON = "[[";
const MARK_OFF = "]]";
const GAP = " … ";

/** A half-open range of offsets into a document's text. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

const finite = (n: unknown): n is number => typeof n === "number" && Number.isFinite(n);

/**
 * The evidence spans of `claims` that lie in document `doc`, clamped to `[0, length)`, sorted and
 * merged where they overlap or touch. Spans with bad offsets are dropped.
 */
export function evidenceSpans(claims: readonly SpoolClaim[], doc: number, length: number): Span[] {
  const spans: Span[] = [];
  for (const c of claims) {
    const e = c.evidence;
    if (!e || e.doc !== doc || !finite(e.start) || !finite(e.end)) continue;
    const start = Math.max(0, Math.min(length, Math.floor(e.start)));
    const end = Math.max(0, Math.min(length, Math.floor(e.end)));
    if (end > start) spans.push({ start, end });
  }
  spans.sort((a, b) => a.start - b.start || a.end - b.end);
  const merged: Span[] = [];
  for (const s of spans) {
    const last = merged.at(-1);
    if (last && s.start <= last.end) merged[merged.length - 1] = { start: last.start, end: Math.max(last.end, s.end) };
    else merged.push(s);
  }
  return merged;
}

/** `text[start, end)` sanitised, its middle cut when longer than `max` code units. */
function piece(text: string, start: number, end: number, max: number): string {
  if (end - start <= max) return sanitizeForTerminal(text.slice(start, end));
  const half = Math.floor(max / 2);
  return `${sanitizeForTerminal(text.slice(start, start + half))}${GAP}${sanitizeForTerminal(text.slice(end - half, end))}`;
}

/** `text` sanitised and cut to `max` code units with an ellipsis. */
export function cutText(text: string, max: number): string {
  return text.length <= max ? sanitizeForTerminal(text) : `${sanitizeForTerminal(text.slice(0, max))}…`;
}

/**
 * A document's text as shown: without evidence, its start; with evidence, each span highlighted
 * with up to `context` characters around it, the gaps between elided. Bounded by the limits
 * whatever the document's length; the spans are offsets into the original (unsanitised) text.
 */
export function documentExcerpt(text: string, spans: readonly Span[], style: RenderStyle): string {
  const { context, span: spanMax, plainDoc, spansPerDoc } = RENDER_LIMITS;
  if (spans.length === 0) return cutText(text, plainDoc);
  const on = style.color ? HIGHLIGHT_ON : MARK_ON;
  const off = style.color ? HIGHLIGHT_OFF : MARK_OFF;
  const shown = spans.slice(0, spansPerDoc);
  let out = "";
  let at = 0; // how far the text has been shown (or elided)
  for (const s of shown) {
    const from = Math.max(at, s.start - context);
    if (from > at) out += GAP;
    out += piece(text, from, s.start, context);
    out += `${on}${piece(text, s.start, s.end, spanMax)}${off}`;
    at = s.end;
    const next = shown[shown.indexOf(s) + 1];
    const to = Math.min(text.length, s.end + context, next ? next.start : Infinity);
    out += piece(text, at, to, context);
    at = to;
  }
  if (at < text.length) out += GAP;
  if (spans.length > shown.length) out += ` (${spans.length - shown.length} more evidence spans)`;
  return out;
}

/**
 * The answer as shown (its first RENDER_LIMITS.text characters) with the spans a span detector
 * marked highlighted: red underline on a colour terminal, `[[` … `]]` otherwise. The text is cut at
 * the spans' offsets into the original answer (core/spans.ts spanSegments) before each piece is sanitised.
 */
export function answerWithSpans(answer: string, spans: readonly SpoolSpan[] | undefined, style: RenderStyle): string {
  if (!spans || spans.length === 0) return cutText(answer, RENDER_LIMITS.text);
  const shown = answer.slice(0, RENDER_LIMITS.text);
  const on = style.color ? SPAN_ON : MARK_ON;
  const off = style.color ? SPAN_OFF : MARK_OFF;
  // Spans come in answer order: those from the first one past what is shown on cannot be shown (the cost stays bounded by the view).
  let upTo = 0;
  while (upTo < spans.length && (spans[upTo] as SpoolSpan).start < shown.length) upTo++;
  const body = spanSegments(shown, spans.slice(0, upTo))
    .map((seg) => (seg.span === null ? sanitizeForTerminal(seg.text) : `${on}${sanitizeForTerminal(seg.text)}${off}`))
    .join("");
  return answer.length > shown.length ? `${body}…` : body;
}

/** One span's line: its index, probability, claim and offsets, the words quoted, and the reviewer's mark (while marking, or once marked). */
export function spanLine(s: SpoolSpan, i: number, wrong: boolean): string {
  const claim = finite(s.claim) ? `claim ${s.claim}` : "no claim";
  return `${wrong ? "[wrong] " : ""}${i}. p ${scoreText(s.probability)}, ${claim}, chars ${one(s.start)}–${one(s.end)}: "${one(s.text)}"`;
}

const scoreText = (score: unknown): string => (finite(score) ? score.toFixed(3) : "-");
const one = (v: unknown): string => plainText(v ?? "-", RENDER_LIMITS.line);

/** A document's heading: its position as citations give it ([1] is the first), then each name it has. */
function documentTitle(d: SpoolDocument, i: number): string {
  const parts = [`document ${sourceText(i, undefined)}`];
  if (d.id !== undefined) parts.push(`id ${one(d.id)}`);
  if (d.title !== undefined) parts.push(one(d.title));
  if (d.url !== undefined) parts.push(`<${one(d.url)}>`);
  return parts.join("  ");
}

/**
 * One claim's line: number, verdict, cause and score, then the claim's text, labelled and quoted,
 * then where its evidence lies, labelled as what it is (nearest, contradicting, supported instead
 * by) with the document's position and name: the evidence's text is the highlighted span in that
 * document above, never this line's.
 */
export function claimLine(c: SpoolClaim, documents: readonly SpoolDocument[], mark?: string): string {
  const e = c.evidence;
  const shownAbove = e !== undefined && Number.isInteger(e.doc) && e.doc >= 0 && e.doc < Math.min(documents.length, RENDER_LIMITS.documents);
  const evidence = e && finite(e.doc) ? ` | ${evidenceLabel(c.verdict)}: document ${sourceText(e.doc, documents[e.doc])}${shownAbove ? ", highlighted above" : ""}` : " | no evidence";
  const cause = c.cause !== undefined ? ` (${one(c.cause)})` : "";
  return `${mark ?? ""}${one(c.index)}. ${one(c.verdict)}${cause}, score ${scoreText(c.score)} | claim: "${one(c.text)}"${evidence}`;
}

/** The spans marked wrong and, while marking them, the cursor. */
export interface SpanMarking {
  readonly wrong: readonly number[];
  readonly cursor?: number | undefined;
}

/**
 * The whole view of one answer (a `viewableRecord`), as lines (without the key prompt). `marks` shows
 * claim-by-claim marking, the cursor at `cursor`; `spanMarking` the spans marked wrong (and the cursor while marking them).
 */
export function renderRecord(r: SpoolRecord, style: RenderStyle, marking?: { readonly marks: readonly (0 | 1)[]; readonly cursor: number }, spanMarking?: SpanMarking): string[] {
  const dim = (s: string): string => (style.color ? `${DIM_ON}${s}${DIM_OFF}` : s);
  const lines = [`${one(r.kind)}  ${one(r.route)}  ${one(r.time)}  ${one(r.verdict)}  score ${scoreText(r.score)}  cause ${one(r.cause)}`];
  lines.push(dim("question:"), r.question !== undefined ? cutText(r.question, RENDER_LIMITS.text) : "-");
  lines.push(dim("answer:"), answerWithSpans(r.answer, r.spans, style));
  const spans = r.spans ?? [];
  if (spans.length > 0) {
    lines.push(dim("unsupported spans (the words a span detector marked):"));
    // A window of the spans: the first ones, or, while marking, the ones around the cursor.
    const limit = RENDER_LIMITS.spans;
    const cursor = spanMarking?.cursor;
    const from = cursor !== undefined ? Math.max(0, Math.min(cursor - Math.floor(limit / 2), spans.length - limit)) : 0;
    if (from > 0) lines.push(dim(`  (${from} spans above)`));
    spans.slice(from, from + limit).forEach((s, k) => {
      const i = from + k;
      lines.push(`${i === cursor ? "> " : "  "}${spanLine(s, i, spanMarking?.wrong.includes(i) === true)}`);
    });
    const below = spans.length - from - Math.min(limit, spans.length - from);
    if (below > 0) lines.push(dim(`  (${below} more spans)`));
  }
  const docs = r.documents;
  docs.slice(0, RENDER_LIMITS.documents).forEach((d, i) => {
    lines.push(dim(documentTitle(d, i) + ":"), documentExcerpt(d.text, evidenceSpans(r.claims, i, d.text.length), style));
  });
  if (docs.length > RENDER_LIMITS.documents) lines.push(dim(`(${docs.length - RENDER_LIMITS.documents} more documents)`));
  lines.push(dim("claims:"));
  // A window of the claims: the first ones, or, while marking, the ones around the cursor.
  const limit = RENDER_LIMITS.claims;
  const from = marking ? Math.max(0, Math.min(marking.cursor - Math.floor(limit / 2), r.claims.length - limit)) : 0;
  const claims = r.claims.slice(from, from + limit);
  if (from > 0) lines.push(dim(`  (${from} claims above)`));
  claims.forEach((c, k) => {
    const i = from + k;
    if (!marking) return lines.push(`  ${claimLine(c, docs)}`);
    const cursor = i === marking.cursor ? "> " : "  ";
    const mark = marking.marks[i] === 1 ? "[supported]     " : "[not supported] ";
    return lines.push(`${cursor}${mark}${claimLine(c, docs)}`);
  });
  if (r.claims.length === 0) lines.push("  (no claims)");
  const below = r.claims.length - from - claims.length;
  if (below > 0) lines.push(dim(`  (${below} more claims)`));
  return lines;
}
