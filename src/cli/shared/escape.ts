// Untrusted text (row ids, answers, claims, baseline reports) in the reports eval writes:
// report.md, which GitHub renders in $GITHUB_STEP_SUMMARY, report.html and junit.xml. Escape
// sequences and control characters go through the one sanitiser, core/safe-text.ts.

import type { DocumentNames } from "../../core/context.ts";
import { sourceName } from "../../core/context.ts";
import { stripControls } from "../../core/safe-text.ts";

// A run of whitespace, and whether it holds a line break or tab. The run is matched whole (it cannot
// fail part-way), so this is linear; /\s*(?:\r\n|[\t\n\r\u2028\u2029])\s*/g re-read a run of spaces
// with no break from each of its characters (quadratic: 40 KB of spaces took 3.4 s).
const WHITESPACE_RUN = /\s+/g;
const BREAK = /[\t\n\r\u2028\u2029]/;

/**
 * One line of plain text: ANSI escape sequences (an OSC's payload with it), C0 and C1 control
 * characters (ESC, NUL…) and bidirectional controls removed, line breaks and tabs collapsed to a
 * space, cut to `max` characters.
 */
export function plainText(value: unknown, max = Infinity): string {
  // Each run of whitespace that holds a line break or tab becomes one space; other runs stay.
  const text = stripControls(String(value), { keepWhitespace: true }).replace(WHITESPACE_RUN, (run) => (BREAK.test(run) ? " " : run));
  if (text.length <= max) return text;
  // Cut at a code point, never inside a surrogate pair.
  return `${Array.from(text).slice(0, max).join("")}…`;
}

const MARKDOWN_SPECIAL = /[\\`*_[\]()!#|~$&<>]/g;
const ENTITIES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };

/**
 * Text for GitHub-flavoured Markdown, inline or in a table cell: one line (see plainText), every
 * character that starts markup backslash-escaped (links, images, emphasis, code, headings, table
 * pipes, math), and `&`, `<`, `>` as entities so no HTML, comment or autolink can open.
 */
export function mdText(value: unknown, max?: number): string {
  return plainText(value, max).replace(MARKDOWN_SPECIAL, (c) => ENTITIES[c] ?? `\\${c}`);
}

const HTML_ENTITIES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text for HTML content or a quoted attribute; escape sequences, control and bidirectional characters removed, tabs and line breaks kept. */
export function escapeHtml(text: string): string {
  return stripControls(text, { keepWhitespace: true }).replace(/[&<>"']/g, (c) => HTML_ENTITIES[c] ?? c);
}

// Not allowed in XML 1.0 besides the controls escapeHtml removes: unpaired surrogates, U+FFFE and U+FFFF.
const NOT_XML = /[\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const XML_WHITESPACE: Readonly<Record<string, string>> = { "\t": "&#9;", "\n": "&#10;" };

/**
 * Text for XML 1.0 content or a quoted attribute: characters XML cannot carry are dropped, as
 * are escape sequences, C1 and bidirectional controls; in an attribute, tabs and line breaks are
 * character references so a parser does not fold them into spaces.
 */
export function escapeXml(text: string, attribute = false): string {
  const escaped = escapeHtml(text).replace(NOT_XML, "");
  return attribute ? escaped.replace(/[\t\n]/g, (c) => XML_WHITESPACE[c] ?? c) : escaped;
}

/** Longest document name (id, title or URL) shown in one line. */
export const DOCUMENT_NAME_SHOWN = 200;

/**
 * Document `doc` (0-based) of a context as a report or terminal shows it, from values that may be
 * untrusted (a collector's reply, a spool record): `[2]` (1-based), or `[2] ("refund-policy.md")`
 * with its id, else title, else URL (core's sourceName), each name one line of plain text (see
 * plainText) capped at DOCUMENT_NAME_SHOWN; `[?]` for a position that is not one.
 */
export function sourceText(doc: unknown, names: { readonly id?: unknown; readonly title?: unknown; readonly url?: unknown } | null | undefined): string {
  if (typeof doc !== "number" || !Number.isSafeInteger(doc) || doc < 0) return "[?]";
  const shown: { -readonly [K in keyof DocumentNames]: string } = {};
  for (const key of ["id", "title", "url"] as const) {
    const v = names?.[key];
    if (typeof v === "string" && v !== "") shown[key] = plainText(v, DOCUMENT_NAME_SHOWN);
  }
  return sourceName(shown, doc);
}
