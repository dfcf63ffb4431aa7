import type { Token } from "../../core/text.ts";

/** Words and marks that end a clause inside a sentence ("30 days on Starter *and* 90 days on Team"). */
const CLAUSE_WORDS = new Set(["and", "but", "while", "whereas", "or", "versus", "vs", "vs."]);
const CLAUSE_MARKS = new Set([",", ";", ":"]);

/** Whether a token may end a clause: a comma, semicolon or colon, or a coordinating word ("and", "while", "versus"). */
export function isClauseBoundary(t: Token): boolean {
  return t.type === "punctuation" ? CLAUSE_MARKS.has(t.text) : CLAUSE_WORDS.has(t.lower);
}

/** Whether a token is a verb or an auxiliary: what makes a clause more than a list item. */
export function isVerb(t: Token): boolean {
  return t.pos === "VERB" || t.pos === "AUX";
}

/**
 * The clauses of tokens[start, end) that have a verb of their own, as token ranges (the boundary
 * token itself belongs to neither side). A boundary ends a clause only once the clause has a verb,
 * so coordinated subjects stay with their predicate ("Dr. Kim *and* Dr. Lee reviewed the scans"
 * is one clause); a verbless tail joins the clause before it ("includes phone, email and chat").
 * One pass over the tokens.
 */
export function verbClauses(tokens: readonly Token[], start: number, end: number): Array<{ start: number; end: number }> {
  const out: Array<{ start: number; end: number }> = [];
  let from = start;
  let verb = false;
  for (let i = start; i < end; i++) {
    const t = tokens[i];
    if (!t) break;
    if (isVerb(t)) verb = true;
    else if (verb && isClauseBoundary(t) && i > from) {
      out.push({ start: from, end: i });
      from = i + 1;
      verb = false;
    }
  }
  const last = out[out.length - 1];
  if (from < end) {
    if (!verb && last) last.end = end;
    else out.push({ start: from, end });
  }
  return out;
}
