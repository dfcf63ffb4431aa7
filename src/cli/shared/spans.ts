import type { AnswerSpan } from "../../core/result.ts";
import { spanSegments } from "../../core/spans.ts";
import { sanitizeForTerminal } from "./io.ts";

/**
 * The words a span detector marked (AnswerSpan, core/result.ts), as a terminal shows them: the
 * answer with its spans marked, and each span in a line. The answer is attacker-controlled: it is cut
 * first (by offsets into the original), each piece between marks is sanitised on its own (so no
 * escape sequence survives, whole or split across a mark), and the marks are ours. Every pass is
 * linear in what is shown; the cutting at span edges is core/spans.ts `spanSegments`, the one cutter.
 */

/** How marked words are drawn. */
export interface MarkStyle {
  /** ANSI bold red on a colour terminal (standard output a TTY, NO_COLOR unset); false: plain markers `[[` … `]]`. */
  readonly color: boolean;
}

/** Colour when standard output is a terminal and NO_COLOR (https://no-color.org) is not set, as the review terminal decides it. */
export function markStyleFor(out: { readonly isTTY?: boolean }, env: NodeJS.ProcessEnv): MarkStyle {
  return { color: out.isTTY === true && !env.NO_COLOR };
}

const COLOR_ON = "\u001b[1;31m";
const COLOR_OFF = "\u001b[22;39m";
/** The plain-text marks around marked words, without colour (the review terminal's too). */
export const PLAIN_MARK_ON = "[[";
export const PLAIN_MARK_OFF = "]]";

/** Characters of an answer shown with its marks (cut with "…" beyond). */
export const MARKED_ANSWER_SHOWN = 500;
/** Spans listed per answer or claim (the rest are counted). */
export const SPANS_SHOWN = 10;
/** Characters of one span's words shown in a span line. */
export const SPAN_TEXT_SHOWN = 120;

/** `text` cut to `max` code units, never inside a surrogate pair. */
function cutAt(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** One line of terminal text: escapes and controls removed, each run of whitespace one space. */
function oneLine(text: string): string {
  return sanitizeForTerminal(text).replace(/\s+/g, " ");
}

/**
 * `text` on one line with the spans marked (colour, or `[[` … `]]`), cut to `max` characters with
 * "…". `from` is the offset of `text` in the answer the spans point into (a claim's: its start).
 */
export function markedText(text: string, spans: readonly Pick<AnswerSpan, "start" | "end">[], style: MarkStyle, max = MARKED_ANSWER_SHOWN, from = 0): string {
  const cut = cutAt(text, max);
  const on = style.color ? COLOR_ON : PLAIN_MARK_ON;
  const off = style.color ? COLOR_OFF : PLAIN_MARK_OFF;
  let out = "";
  for (const seg of spanSegments(cut, spans, from)) {
    const shown = oneLine(seg.text);
    out += seg.span === null ? shown : `${on}${shown}${off}`;
  }
  return `${out.trim()}${cut.length < text.length ? "…" : ""}`;
}

/** A probability as a span line gives it ("0.91"); "?" when it is not a number. */
export function spanProbability(p: unknown): string {
  return typeof p === "number" && Number.isFinite(p) ? p.toFixed(2) : "?";
}

/** A span's words as one quoted line of terminal text: «Lyon», cut to SPAN_TEXT_SHOWN. */
export function spanWords(text: unknown): string {
  const flat = oneLine(String(text ?? "")).trim();
  return `«${flat.length <= SPAN_TEXT_SHOWN ? flat : `${cutAt(flat, SPAN_TEXT_SHOWN - 1)}…`}»`;
}

/** A span in one line: «Lyon» [25, 29) p=0.91 in claim 0 (or "outside every claim"); the words only when it carries them. */
export function spanLine(s: Partial<Pick<AnswerSpan, "text">> & Pick<AnswerSpan, "start" | "end" | "probability" | "claim">): string {
  const words = s.text !== undefined ? `${spanWords(s.text)} ` : "";
  const claim = typeof s.claim === "number" && Number.isSafeInteger(s.claim) ? `in claim ${s.claim}` : "outside every claim";
  return `${words}[${String(s.start)}, ${String(s.end)}) p=${spanProbability(s.probability)} ${claim}`;
}

/**
 * The spans of a claim (its `spans`, indexes into the answer's) as "marked: «Lyon» p=0.91, «3
 * million» p=0.88" (offsets for a span without its words); undefined when it has none.
 */
export function claimMarkedLine(claimSpans: readonly unknown[] | undefined, spans: ReadonlyArray<Partial<Pick<AnswerSpan, "text">> & Pick<AnswerSpan, "start" | "end" | "probability">> | undefined): string | undefined {
  const own = (Array.isArray(claimSpans) ? claimSpans : []).flatMap((i) => (typeof i === "number" && spans?.[i] ? [spans[i]] : []));
  if (own.length === 0) return undefined;
  const shown = own.slice(0, SPANS_SHOWN).map((s) => `${s.text !== undefined ? spanWords(s.text) : `[${String(s.start)}, ${String(s.end)})`} p=${spanProbability(s.probability)}`);
  return `marked: ${shown.join(", ")}${own.length > SPANS_SHOWN ? ` (${own.length - SPANS_SHOWN} more)` : ""}`;
}
