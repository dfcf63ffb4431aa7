/**
 * The code blocks of Markdown pages and the command lines of their shell blocks, as the README test
 * walks them: fenced blocks with their language and line numbers, trailing `# comments` split off
 * outside quotes, backslash-continued lines joined.
 */

/** The languages of the blocks whose lines are commands. */
export const SHELL_LANGS: ReadonlySet<string> = new Set(["sh", "bash", "shell"]);

export interface CodeBlock {
  /** The file it is in, relative to the repository root. */
  readonly doc: string;
  readonly lang: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly lines: ReadonlyArray<{ readonly n: number; readonly text: string }>;
}

/** One command line of a shell block: what runs, and the trailing `# comment` it had. */
export interface ReadmeCommand {
  /** The file it is in, relative to the repository root. */
  readonly doc: string;
  readonly line: number;
  readonly text: string;
  readonly comment: string;
  /** Index of its code block among all blocks. */
  readonly block: number;
}

/** The fenced code blocks of a Markdown page `doc`; an unclosed fence throws, naming its line. */
export function codeBlocks(doc: string, md: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let open: { lang: string; line: number; fence: string; lines: Array<{ n: number; text: string }> } | undefined;
  md.split("\n").forEach((text, i) => {
    const fence = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(text);
    if (open) {
      const closes = fence?.[1] !== undefined && fence[1][0] === open.fence[0] && fence[1].length >= open.fence.length && (fence[2] ?? "").trim() === "";
      if (closes) {
        blocks.push({ doc, lang: open.lang, line: open.line, lines: open.lines });
        open = undefined;
      } else open.lines.push({ n: i + 1, text });
    } else if (fence?.[1] !== undefined) {
      open = { lang: (fence[2] ?? "").trim().split(/\s+/)[0]?.toLowerCase() ?? "", line: i + 1, fence: fence[1], lines: [] };
    }
  });
  if (open) throw new Error(`${doc}: the code block opened at line ${open.line} is never closed`);
  return blocks;
}

/** Splits a shell line at its comment: a `#` at the start or after a blank, outside quotes. */
export function splitComment(doc: string, line: string): { code: string; comment: string } {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"') i++;
      continue;
    }
    if (c === "\\") i++;
    else if (c === "'" || c === '"') quote = c;
    else if (c === "#" && (i === 0 || /\s/.test(line[i - 1] ?? ""))) return { code: line.slice(0, i).trim(), comment: line.slice(i + 1).trim() };
  }
  if (quote !== undefined) throw new Error(`${doc}: unterminated ${quote} in: ${line}`);
  return { code: line.trim(), comment: "" };
}

/** The command lines of the shell blocks among `blocks`, continued lines joined, comments split off. */
export function shellCommands(blocks: readonly CodeBlock[]): ReadmeCommand[] {
  const commands: ReadmeCommand[] = [];
  blocks.forEach((b, block) => {
    if (!SHELL_LANGS.has(b.lang)) return;
    let pending: { line: number; text: string } | undefined;
    for (const { n, text } of b.lines) {
      const { code, comment } = splitComment(b.doc, text);
      if (code === "") continue;
      // A line ending in a backslash continues on the next one.
      if (code.endsWith("\\")) {
        pending = { line: pending?.line ?? n, text: `${pending ? `${pending.text} ` : ""}${code.slice(0, -1).trim()}` };
        continue;
      }
      commands.push({ doc: b.doc, line: pending?.line ?? n, text: pending ? `${pending.text} ${code}` : code, comment, block });
      pending = undefined;
    }
    if (pending) throw new Error(`${b.doc}:${pending.line}: a continued command line never ends`);
  });
  return commands;
}
