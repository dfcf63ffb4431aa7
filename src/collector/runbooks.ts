import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { diag } from "@opentelemetry/api";
import type { Request, Response } from "express";

/**
 * The packaged runbooks (docs/runbooks.md, in package.json "files"). This module sits two levels under
 * the package root both as src/collector/runbooks.ts and as dist/collector/runbooks.{js,cjs}.
 */
export const RUNBOOKS_PATH: string = fileURLToPath(new URL("../../docs/runbooks.md", import.meta.url));

const escapeHtml = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");

/**
 * A heading's anchor, as GitHub makes it: lower case, punctuation removed (word characters, spaces
 * and hyphens kept), spaces to hyphens. `GroundwatchHallucinationRateHigh` → `groundwatchhallucinationratehigh`,
 * the fragment every alert's runbook_url ends with.
 */
export function headingId(text: string): string {
  return text
    .replace(/`/g, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, "")
    .replace(/ /g, "-");
}

/** Only links that cannot run script: http(s) and mailto, or no scheme (fragments, relative paths). */
function safeHref(url: string): string | undefined {
  const scheme = /^([a-z][a-z\d+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  return scheme === undefined || scheme === "http" || scheme === "https" || scheme === "mailto" ? url : undefined;
}

/** Inline Markdown of one block, HTML-escaped: `code`, **bold**, *emphasis*, [links](url). */
export function renderInline(text: string): string {
  const codes: string[] = [];
  // Code spans first, so nothing inside them is read as Markdown; they wait behind placeholders
  // delimited by a private-use character (dropped from the text itself).
  let s = text.replace(/\uE000/g, "").replace(/(`+)([\s\S]*?[^`])\1(?!`)/g, (_m, _ticks: string, code: string) => {
    codes.push(`<code>${escapeHtml(code)}</code>`);
    return `\uE000${codes.length - 1}\uE000`;
  });
  s = escapeHtml(s);
  s = s.replace(/\[([^\]]+)\]\(([^()\s]+)\)/g, (_m, label: string, url: string) => {
    // The URL was escaped with the rest of the text: back to its characters, then escaped once.
    const href = safeHref(url.replace(/&(amp|lt|gt|quot|#39);/g, (_e, n: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[n] ?? ""));
    return href === undefined ? label : `<a href="${escapeHtml(href)}">${label}</a>`;
  });
  s = s.replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, "<strong>$1</strong>");
  s = s.replace(/(^|[^\w*])\*(?=\S)([^*]*?\S)\*(?![\w*])/g, "$1<em>$2</em>");
  return s.replace(/\uE000(\d+)\uE000/g, (_m, i: string) => codes[Number(i)] ?? "");
}

/** The cells of a table row `| a | b |` (escaped pipes `\|` kept in the cell). */
function tableCells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, "")
    .replace(/(?<!\\)\|$/, "")
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replace(/\\\|/g, "|"));
}

/** A table's delimiter row: `|---|:---:|`. */
function isTableDelimiter(line: string | undefined): boolean {
  return line !== undefined && /^\s*\|?(\s*:?-+:?\s*\|)+\s*(:?-+:?\s*)?$/.test(line);
}

interface ListFrame {
  indent: number;
  tag: "ul" | "ol";
  /** The open item's lines; undefined when no item is open. */
  item: string[] | undefined;
  /** Whether the open item's `<li>` and text are out already (a nested list followed them). */
  started: boolean;
}

/**
 * A small Markdown renderer for the project's own runbooks: ATX headings (with GitHub's anchors),
 * paragraphs, bullet and numbered lists (nested by indentation, continuation lines folded in),
 * pipe tables, fenced code blocks, horizontal rules, and the inline forms of renderInline. Everything else is text,
 * escaped. Not a general CommonMark implementation.
 */
export function renderMarkdown(markdown: string): string {
  const out: string[] = [];
  const ids = new Map<string, number>();
  let paragraph: string[] = [];
  const lists: ListFrame[] = [];
  const lines = markdown.replace(/\r\n?/g, "\n").split("\n");

  const flushParagraph = (): void => {
    if (paragraph.length > 0) out.push(`<p>${renderInline(paragraph.join("\n"))}</p>`);
    paragraph = [];
  };
  const closeItem = (frame: ListFrame): void => {
    if (frame.item) out.push(frame.started ? "</li>" : `<li>${renderInline(frame.item.join("\n"))}</li>`);
    frame.item = undefined;
    frame.started = false;
  };
  const closeLists = (toIndent = -1): void => {
    while (lists.length > 0 && lists[lists.length - 1]!.indent > toIndent) {
      const frame = lists.pop()!;
      closeItem(frame);
      out.push(`</${frame.tag}>`);
    }
  };
  const uniqueId = (text: string): string => {
    const base = headingId(text) || "section";
    const n = ids.get(base) ?? 0;
    ids.set(base, n + 1);
    return n === 0 ? base : `${base}-${n}`;
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = /^\s*(```|~~~)/.exec(line);
    if (fence) {
      flushParagraph();
      closeLists();
      const body: string[] = [];
      for (i++; i < lines.length && !lines[i]!.trimStart().startsWith(fence[1]!); i++) body.push(lines[i]!);
      out.push(`<pre><code>${escapeHtml(body.join("\n"))}</code></pre>`);
      continue;
    }
    if (line.trim() === "") {
      flushParagraph();
      // A blank line ends a list unless the next line continues it (indented, or another item).
      const next = lines.slice(i + 1).find((l) => l.trim() !== "");
      if (lists.length > 0 && (next === undefined || !/^\s+\S|^\s*([-*+]|\d+[.)])\s+/.test(next))) closeLists();
      continue;
    }
    const heading = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      flushParagraph();
      closeLists();
      const level = heading[1]!.length;
      const text = heading[2]!;
      out.push(`<h${level} id="${escapeHtml(uniqueId(text))}">${renderInline(text)}</h${level}>`);
      continue;
    }
    if (/^\s*\|/.test(line) && isTableDelimiter(lines[i + 1])) {
      flushParagraph();
      closeLists();
      const head = tableCells(line);
      const rows: string[][] = [];
      for (i += 2; i < lines.length && /^\s*\|/.test(lines[i]!); i++) rows.push(tableCells(lines[i]!));
      i--;
      const cells = (tag: string, row: string[]): string => `<tr>${head.map((_h, k) => `<${tag}>${renderInline(row[k] ?? "")}</${tag}>`).join("")}</tr>`;
      out.push(`<table>\n<thead>${cells("th", head)}</thead>\n<tbody>\n${rows.map((r) => cells("td", r)).join("\n")}\n</tbody>\n</table>`);
      continue;
    }
    if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flushParagraph();
      closeLists();
      out.push("<hr>");
      continue;
    }
    const item = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (item) {
      flushParagraph();
      const indent = item[1]!.length;
      const tag = /\d/.test(item[2]!) ? "ol" : "ul";
      // Close deeper lists; a sibling closes its predecessor; a deeper marker opens a nested list.
      closeLists(indent);
      let frame = lists[lists.length - 1];
      if (frame && frame.indent === indent && frame.tag !== tag) {
        closeLists(indent - 1);
        frame = lists[lists.length - 1];
      }
      if (!frame || frame.indent < indent) {
        if (frame?.item && !frame.started) {
          out.push(`<li>${renderInline(frame.item.join("\n"))}`);
          frame.started = true;
        }
        const start = tag === "ol" ? Number.parseInt(item[2]!, 10) : 1;
        out.push(tag === "ol" && start !== 1 ? `<ol start="${start}">` : `<${tag}>`);
        frame = { indent, tag, item: undefined, started: false };
        lists.push(frame);
      } else closeItem(frame);
      frame.item = [item[3]!];
      continue;
    }
    const open = lists[lists.length - 1];
    if (open?.item && !open.started) {
      // A continuation line of the current item (indented, or lazily not).
      open.item.push(line.trim());
      continue;
    }
    paragraph.push(line.trim());
  }
  flushParagraph();
  closeLists();
  return out.join("\n");
}

const STYLE = `
body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1f2328; background: #fff; }
main { max-width: 52rem; margin: 0 auto; padding: 1rem 1.25rem 4rem; }
h1, h2, h3 { line-height: 1.25; margin-top: 1.75em; }
h2 { border-bottom: 1px solid #d0d7de; padding-bottom: .3em; scroll-margin-top: 1rem; }
:target { background: #fff8c5; outline: .4rem solid #fff8c5; }
code { font: .9em ui-monospace, SFMono-Regular, Menlo, monospace; background: #f6f8fa; padding: .1em .3em; border-radius: 4px; overflow-wrap: anywhere; }
pre { background: #f6f8fa; padding: .75rem; overflow-x: auto; border-radius: 6px; }
pre code { padding: 0; background: none; }
table { border-collapse: collapse; margin: 1em 0; display: block; overflow-x: auto; }
th, td { border: 1px solid #d0d7de; padding: .3em .6em; text-align: left; vertical-align: top; }
a { color: #0969da; }
nav ul { columns: 2 16rem; padding-left: 1.25rem; }
@media (prefers-color-scheme: dark) { body { color: #e6edf3; background: #0d1117; } code, pre { background: #161b22; } h2 { border-color: #30363d; } :target { background: #3b2e00; outline-color: #3b2e00; } a { color: #4493f8; } }
`;

/** The whole HTML page: the rendered runbooks, with a table of contents of their second-level headings. */
export function runbooksPage(markdown: string): string {
  const body = renderMarkdown(markdown);
  const toc = [...body.matchAll(/<h2 id="([^"]+)">(.*?)<\/h2>/g)].map((m) => `<li><a href="#${m[1]}">${m[2]}</a></li>`);
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    "<title>groundwatch runbooks</title>",
    `<style>${STYLE}</style>`,
    "</head>",
    "<body>",
    "<main>",
    toc.length > 0 ? `<nav aria-label="Alerts"><ul>\n${toc.join("\n")}\n</ul></nav>` : "",
    body,
    "</main>",
    "</body>",
    "</html>",
    "",
  ].join("\n");
}

/**
 * `GET /runbooks`: the packaged runbooks as an HTML page, the target of every alert's runbook_url
 * (`<base>#<alert name in lower case>`). Unauthenticated, like /healthz: the page is the project's
 * public documentation, holds nothing about this deployment, and a link opened from a pager cannot
 * carry a bearer token. Read and rendered once, on first request.
 */
export function runbooksHandler(path: string = RUNBOOKS_PATH): (req: Request, res: Response) => void {
  let page: Promise<string> | undefined;
  return (_req, res) => {
    page ??= readFile(path, "utf8").then(runbooksPage);
    page.then(
      (html) => {
        res.setHeader("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
        res.setHeader("X-Content-Type-Options", "nosniff");
        res.setHeader("Referrer-Policy", "no-referrer");
        res.setHeader("Cache-Control", "public, max-age=300");
        res.status(200).type("text/html; charset=utf-8").send(html);
      },
      (error: Error) => {
        // Retry on the next request: the file may be restored without a restart.
        page = undefined;
        diag.warn(`groundwatch collector: GET /runbooks: cannot read ${path}: ${error.message}`);
        res.status(404).json({ error: "runbooks not available: docs/runbooks.md is missing from this installation" });
      },
    );
  };
}
