import type { AnalyzedText, Token } from "../../core/text.ts";
import { isContentToken } from "../../core/text.ts";
import { verbClauses } from "./clauses.ts";
import type { Lexicon } from "./lexicon.ts";

/**
 * Nouns that name a kind of offering or release, whose instances a text tells apart by a name or a
 * number: "the Basic *plan*", "*Version* 3", "Gold *members*", "the premium *tier*".
 */
const KIND_NOUNS = new Set([
  "plan", "tier", "version", "edition", "release", "level", "package", "membership", "member", "subscription",
  "model", "account", "card", "license", "licence", "bundle", "class", "program", "programme", "option", "grade", "series",
]);

/** Titles before a person's name, left out of the name ("Dr. Kim" is the Kim of "Kim said"). */
const TITLES = new Set([
  "dr", "mr", "mrs", "ms", "mx", "miss", "prof", "professor", "sir", "dame", "rev", "hon", "gen", "capt", "col", "lt", "sgt",
  "gov", "sen", "rep", "president", "senator", "judge", "justice", "governor", "mayor", "minister", "chancellor", "coach", "captain", "officer",
]);

/** A named thing a clause is about: a name ("Dr. Kim", "Acme Lite") or an instance of a kind ("Basic plan", "version 3"). */
export interface Mention {
  /** "name", "person" (a name after a title), or the kind noun's lemma ("plan", "version", "member"). */
  readonly kind: string;
  /** The words that tell it apart from others of its kind, lowercased: ["basic"], ["3"], ["acme", "lite"]. */
  readonly words: readonly string[];
  /** As written, for notes. */
  readonly text: string;
  /**
   * Lemma of its first word when that word opens the sentence, where any word is capitalised: the
   * word is part of the name only when it is not a common word ("Yesterday Kim said" names Kim).
   */
  readonly initialLemma?: string;
}

/** One clause of a text: what it says (content lemmas outside its mentions) and whom it says it of. */
export interface MentionClause {
  readonly lemmas: ReadonlySet<string>;
  readonly mentions: readonly Mention[];
}

/** Most words kept of one name: a longer run of capitalised words is a title-case heading more than a name. */
const MAX_NAME_WORDS = 8;

const UPPER_FIRST = /^\p{Lu}/u;

function isNameWord(t: Token | undefined): boolean {
  return t !== undefined && t.type === "word" && !t.stop && (t.pos === "PROPN" || UPPER_FIRST.test(t.text));
}

function isTitle(t: Token | undefined, next: Token | undefined): boolean {
  if (t === undefined || t.type !== "word") return false;
  const bare = t.lower.endsWith(".") ? t.lower.slice(0, -1) : t.lower;
  return TITLES.has(bare) && isNameWord(next);
}

function isNumber(t: Token | undefined): boolean {
  return t !== undefined && (t.type === "number" || t.pos === "NUM");
}

function isKindNoun(t: Token | undefined): boolean {
  return t !== undefined && t.type === "word" && KIND_NOUNS.has(t.lemma);
}

/**
 * The mentions in tokens[start, end) and the content lemmas outside them. A run of capitalised
 * words (titles inside it left out of its words) is a name, or an instance of a kind when a kind
 * noun ends it or follows it ("Premium plan", "Gold members"); a kind noun followed by a number
 * ("version 3") or preceded by a lowercase adjective or noun ("basic plan") is an instance too.
 * One pass: every token is looked at a bounded number of times.
 */
function clauseMentions(tokens: readonly Token[], start: number, end: number, first: number): { lemmas: Set<string>; mentions: Mention[] } {
  const lemmas = new Set<string>();
  const mentions: Mention[] = [];
  const textOf = (a: number, b: number): string => tokens.slice(a, b).map((t) => t.text).join(" ");
  let i = start;
  while (i < end) {
    const t = tokens[i];
    if (!t) break;
    if (isNameWord(t) || isTitle(t, tokens[i + 1])) {
      let j = i;
      const words: string[] = [];
      let titled = false;
      while (j < end && (isNameWord(tokens[j]) || isTitle(tokens[j], tokens[j + 1]))) {
        const u = tokens[j];
        if (isTitle(u, tokens[j + 1])) titled = true;
        else if (u && words.length < MAX_NAME_WORDS) words.push(u.lower);
        j++;
      }
      let kind = titled ? "person" : "name";
      const last = tokens[j - 1];
      if (words.length > 0 && isKindNoun(last) && last && words[words.length - 1] === last.lower) {
        kind = last.lemma;
        words.pop();
        if (j < end && isNumber(tokens[j])) words.push(tokens[j++]?.lower ?? "");
      } else if (j < end && isKindNoun(tokens[j])) kind = tokens[j++]?.lemma ?? kind;
      const initial = i === first && kind === "name" ? { initialLemma: t.lemma } : {};
      if (words.length > 0) mentions.push({ kind, words, text: textOf(i, j), ...initial });
      i = j;
      continue;
    }
    const next = tokens[i + 1];
    if (isKindNoun(t) && i + 1 < end && isNumber(next)) {
      mentions.push({ kind: t.lemma, words: [next?.lower ?? ""], text: textOf(i, i + 2) });
      i += 2;
      continue;
    }
    if (isContentToken(t) && t.type === "word" && (t.pos === "ADJ" || t.pos === "NOUN") && i + 1 < end && isKindNoun(next) && !isKindNoun(t)) {
      mentions.push({ kind: next?.lemma ?? "", words: [t.lower], text: textOf(i, i + 2) });
      i += 2;
      continue;
    }
    if (isContentToken(t)) lemmas.add(t.lemma);
    i++;
  }
  return { lemmas, mentions };
}

/**
 * A text's clauses with their mentions, in text order. Clauses are split as `verbClauses` splits
 * them; a clause that names nobody continues the one before it in its sentence ("Dr. Kim arrived
 * *and performed the surgery*"). Linear in the text.
 */
export function mentionClauses(doc: AnalyzedText): MentionClause[] {
  const out: MentionClause[] = [];
  for (const s of doc.sentences) {
    let first = s.tokenStart;
    while (first < s.tokenEnd && doc.tokens[first]?.type === "punctuation") first++;
    let previous: { lemmas: Set<string> } | undefined;
    for (const c of verbClauses(doc.tokens, s.tokenStart, s.tokenEnd)) {
      const clause = clauseMentions(doc.tokens, c.start, c.end, first);
      if (previous && clause.mentions.length === 0) {
        for (const l of clause.lemmas) previous.lemmas.add(l);
        continue;
      }
      // Each clause is made here, so it is kept as made (the clauses after it may add their words).
      previous = clause;
      out.push(clause);
    }
  }
  return out;
}

/**
 * What tells a mention apart from others of its kind, as one string ("basic", "acme lite", "3"), and
 * the kind it is told apart within: the kind noun ("plan"), "person" for a titled name ("Dr. Kim"),
 * and for a name of two words or more its first word ("Acme Cloud" and "Acme Lite" are both of kind
 * "name:acme"). A bare one-word name ("Oman", "Tuesday") has no kind: a text about a country, a
 * publisher and a weekday names things no claim could swap. A sentence's first word is left out when
 * it is a common word. Undefined when nothing is left.
 */
export function resolveMention(m: Mention, lexicon: Lexicon): { key: string; words: readonly string[]; kind?: string } | undefined {
  let words = m.words;
  const lead = words[0];
  if (m.initialLemma !== undefined && lead !== undefined && (lexicon.isCommon(lead) || lexicon.isCommon(m.initialLemma))) words = words.slice(1);
  if (words.length === 0) return undefined;
  const key = words.join(" ");
  if (m.kind !== "name") return { key, words, kind: m.kind };
  return words.length >= 2 ? { key, words, kind: `name:${words[0] ?? ""}` } : { key, words };
}
