import type { AnalyzedText, TextAnalyzer, Token } from "./text.ts";
import { isContentToken } from "./text.ts";

/** Why a sentence of the answer was not checked against the context. */
export type SkipReason = "question" | "greeting" | "meta" | "refusal" | "no_content" | "over_limit";

/** A checkable statement of the answer. Offsets are into the answer string. */
export interface Claim {
  readonly kind: "claim";
  readonly index: number;
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

/** A sentence that is not a claim, kept so nothing is dropped silently. */
export interface SkippedSentence {
  readonly kind: "skipped";
  readonly text: string;
  readonly start: number;
  readonly end: number;
  readonly reason: SkipReason;
}

export type AnswerSegment = Claim | SkippedSentence;

/** One line of the answer after list markers were removed. */
interface Block {
  readonly start: number;
  readonly end: number;
}

const LIST_MARKER = /^[ \t]*(?:[-*•‣◦▪–]|\(?\d{1,3}[.)]|\(?[a-zA-Z][.)](?=\s))[ \t]+/;
const TERMINAL = /[.!?:;"'”’)\]]\s*$/;

/**
 * Splits text into blocks at list items, blank lines and lines that end a sentence,
 * so bullets are never glued into one "sentence"; a hard-wrapped paragraph stays whole.
 */
function splitBlocks(text: string): Block[] {
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
function sentenceSpans(doc: AnalyzedText): Array<{ start: number; end: number; tokenStart: number; tokenEnd: number }> {
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

const GREETING = /^(?:hi|hello|hey|greetings|good (?:morning|afternoon|evening)|thanks?(?: you)?|thank you|you'?re welcome|sure|certainly|of course|absolutely|great question|happy to help|i hope (?:this|that) helps|let me know|feel free|glad to help|no problem)\b/i;
/** A bare yes or no: an answer to a question, but nothing checkable without it. */
const BARE_YES_NO = /^(?:(?:oh|well),?\s+)?(?:yes|no|yeah|yep|nope|right|true|false|correct|incorrect)[\s,.!]*$/i;
/** A whole sentence of conversational filler: agrees or reacts, states nothing. */
const FILLER = /^(?:(?:oh|well|so|and|but),?\s+)?(?:i (?:agree|disagree|see|think so|guess so|love (?:it|that)|like (?:it|that))|me too|me neither|ok(?:ay)?|wow|cool|interesting|nice|great|indeed|exactly|that'?s (?:true|right|cool|great|interesting|nice|awesome))(?:\s+(?:indeed|too|really|then))?[\s,.!]*$/i;
const META = /^(?:here(?:'s| is| are)|below (?:is|are)|the following|in summary|to summari[sz]e|in short|to sum up|overall|based on the (?:provided |given )?(?:context|documents?|information|sources?|text)|according to the (?:provided |given )?(?:context|documents?|sources?))\b/i;
const REFUSAL = /^(?:i (?:do not|don't|cannot|can't|am unable to|am not able to|couldn't|could not) (?:know|answer|find|help|say|determine|provide|tell)|i'?m (?:sorry|afraid|unable|not able)|sorry,|unfortunately,? (?:i|the (?:context|documents?))|as an ai\b|(?:the|this) (?:provided )?(?:context|documents?|information|text|sources?) (?:does not|doesn't|do not|don't) (?:contain|mention|say|provide|include|specify|state|cover)|there is (?:no|not enough) information|(?:i have|there is) insufficient information|no information (?:is )?(?:available|provided))/i;

function classify(text: string, tokens: readonly Token[]): SkipReason | undefined {
  const trimmed = text.trim();
  if (/\?["'”’)]*$/.test(trimmed)) return "question";
  if (REFUSAL.test(trimmed)) return "refusal";
  const content = tokens.filter(isContentToken);
  if (/:$/.test(trimmed) && (META.test(trimmed) || content.length <= 6)) return "meta";
  if (META.test(trimmed) && content.length <= 4) return "meta";
  if (BARE_YES_NO.test(trimmed)) return "no_content";
  if ((GREETING.test(trimmed) && content.length <= 4) || FILLER.test(trimmed)) return "greeting";
  if (content.length === 0) return "no_content";
  return undefined;
}

const COORDINATORS = new Set(["and", "but", "so", "yet", "or"]);
const VERBAL = new Set(["VERB", "AUX"]);
const SUBJECTS = new Set(["NOUN", "PROPN", "PRON", "NUM"]);

const RELATIVES = new Set(["who", "whom", "whose", "which", "that"]);

/** For each index k, the first index ≥ k whose token passes `test` (tokens.length when none). */
function nextWhere(tokens: readonly Token[], test: (t: Token) => boolean): Int32Array {
  const next = new Int32Array(tokens.length + 1);
  next[tokens.length] = tokens.length;
  for (let k = tokens.length - 1; k >= 0; k--) {
    const t = tokens[k];
    next[k] = t && test(t) ? k : (next[k + 1] ?? tokens.length);
  }
  return next;
}

/**
 * Cut points (token indices of the conjunction or semicolon) where a sentence joins
 * two independent clauses: "X rose, and Y fell" or "X rose; Y fell".
 *
 * A clause is independent when a subject precedes its first verb. A relative
 * pronoun before that verb ("cars and trucks that run on hydrogen") means the verb
 * belongs to a noun phrase's relative clause, so cutting there would strand a
 * fragment; keeping the sentence whole is the safer error.
 *
 * Each candidate is judged in constant time from prefix counts and next-index tables,
 * so a 500 KB "a and b and c …" costs one pass, not one pass per conjunction.
 */
function clauseCuts(tokens: readonly Token[]): number[] {
  const n = tokens.length;
  const content = new Int32Array(n + 1);
  tokens.forEach((t, k) => {
    content[k + 1] = (content[k] ?? 0) + (isContentToken(t) ? 1 : 0);
  });
  const nextVerb = nextWhere(tokens, (t) => VERBAL.has(t.pos));
  const nextSubject = nextWhere(tokens, (t) => SUBJECTS.has(t.pos));
  const nextRelative = nextWhere(tokens, (t) => RELATIVES.has(t.lower));
  const contentIn = (a: number, b: number): number => (content[b] ?? 0) - (content[a] ?? 0);
  // Scanning [a, b): a subject comes first, then the first verb, with no relative pronoun after the subject up to that verb.
  const hasSubjectAndVerb = (a: number, b: number): boolean => {
    const verb = nextVerb[a] ?? n;
    const subject = nextSubject[a] ?? n;
    return verb < b && subject < verb && (nextRelative[subject + 1] ?? n) > verb;
  };
  const cuts: number[] = [];
  let from = 0;
  for (let i = 1; i < n - 1; i++) {
    const t = tokens[i];
    if (!t) continue;
    const isSemicolon = t.text === ";";
    const isConj = COORDINATORS.has(t.lower) && (t.pos === "CCONJ" || tokens[i - 1]?.text === ",");
    if (!isSemicolon && !isConj) continue;
    const leftEnd = isConj && tokens[i - 1]?.text === "," ? i - 1 : i;
    if (contentIn(from, leftEnd) < 2 || contentIn(i + 1, n) < 2) continue;
    if (!hasSubjectAndVerb(from, leftEnd) || !hasSubjectAndVerb(i + 1, n)) continue;
    cuts.push(i);
    from = i + 1;
  }
  return cuts;
}

function trimSpan(text: string, start: number, end: number): { start: number; end: number } {
  while (start < end && /[\s,;]/.test(text[start] ?? "")) start++;
  while (end > start && /[\s,;]/.test(text[end - 1] ?? "")) end--;
  return { start, end };
}

/**
 * Splits an answer into claims with character offsets. Sentences that are not
 * claims (questions, greetings, meta lines, refusals) come back as `skipped` with
 * a reason, in answer order.
 */
export function splitClaims(answer: string, analyzer: TextAnalyzer): AnswerSegment[] {
  const segments: AnswerSegment[] = [];
  let index = 0;
  for (const block of splitBlocks(answer)) {
    const blockText = answer.slice(block.start, block.end);
    const doc = analyzer.analyze(blockText);
    for (const whole of sentenceSpans(doc)) {
      let sentence = whole;
      let tokens = doc.tokens.slice(sentence.tokenStart, sentence.tokenEnd);
      // "Here is a summary: the fee is $5." — the lead-in is meta, what follows is a claim.
      const colon = tokens.findIndex((t) => t.text === ":");
      if (colon > 0 && colon < tokens.length - 1) {
        const lead = trimSpan(answer, block.start + sentence.start, block.start + (tokens[colon]?.end ?? sentence.end));
        const leadText = answer.slice(lead.start, lead.end);
        if (META.test(leadText) && lead.end > lead.start) {
          segments.push({ kind: "skipped", text: leadText, start: lead.start, end: lead.end, reason: "meta" });
          const rest = sentence.tokenStart + colon + 1;
          sentence = { ...sentence, tokenStart: rest, start: doc.tokens[rest]?.start ?? sentence.end };
          tokens = tokens.slice(colon + 1);
        }
      }
      const span = trimSpan(answer, block.start + sentence.start, block.start + sentence.end);
      if (span.end <= span.start) continue;
      const text = answer.slice(span.start, span.end);
      const reason = classify(text, tokens);
      if (reason) {
        segments.push({ kind: "skipped", text, start: span.start, end: span.end, reason });
        continue;
      }
      const cuts = clauseCuts(tokens);
      let partStart = 0;
      for (const cut of [...cuts, tokens.length]) {
        const first = tokens[partStart];
        const boundary = tokens[cut];
        const from = block.start + (first?.start ?? sentence.start);
        const to = block.start + (cut < tokens.length ? (boundary?.start ?? sentence.end) : sentence.end);
        const part = trimSpan(answer, from, to);
        if (part.end > part.start) {
          segments.push({ kind: "claim", index: index++, text: answer.slice(part.start, part.end), start: part.start, end: part.end });
        }
        partStart = cut + 1;
      }
    }
  }
  return segments;
}
