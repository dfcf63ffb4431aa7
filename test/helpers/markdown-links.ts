/** A Markdown page's lines outside fenced code blocks, with inline code spans blanked out. */
export function prose(md: string): string[] {
  let fence: string | undefined;
  return md.split("\n").map((line) => {
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (f !== undefined && (fence === undefined || (f[0] === fence[0] && f.length >= fence.length))) {
      fence = fence === undefined ? f : undefined;
      return "";
    }
    return fence === undefined ? line.replace(/`+[^`]*`+/g, "``") : "";
  });
}

/** One inline link of a page: its line (1-based), its target, and the rest of its line after it. */
export interface MarkdownLink {
  readonly line: number;
  readonly target: string;
  /** The line's prose after the link's closing parenthesis. */
  readonly after: string;
}

/** The inline links (`[text](target)`) in a page's prose. */
export function markdownLinks(md: string): MarkdownLink[] {
  const out: MarkdownLink[] = [];
  prose(md).forEach((text, i) => {
    for (const m of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) out.push({ line: i + 1, target: m[1] ?? "", after: text.slice((m.index ?? 0) + m[0].length) });
  });
  return out;
}

/** Whether a link target is a URL (https:, mailto:) rather than a path. */
export const isUrl = (target: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(target);
