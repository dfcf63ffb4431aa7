import type { AnalyzedText, TextAnalyzer, Token } from "./text.ts";
import { isRefusalSentence, plainApostrophes } from "./refusal.ts";
import { NEGATION_WORDS, isContentToken } from "./text.ts";

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
/** A line that ends a sentence (then the next line starts a new block): also 。！？ and the brackets that close a CJK quotation. */
const TERMINAL = /[.!?:;"'”’)\]。｡．！？」』）]\s*$/;

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
const LETTER = /\p{L}/u;
const MARK = /\p{M}/u;

/**
 * True for a token that is a word: it has a letter in any script (so Cyrillic or Chinese prose
 * counts) and its letters are not buried under stacked combining marks ("a\u0301\u0302\u0303", Zalgo
 * text). Writing systems that use marks put at most two on a letter (Vietnamese, Thai, Hebrew
 * points); digits, symbols, emoji, joiners and lone marks are not words.
 */
function isWord(t: Token): boolean {
  let letters = 0;
  let marks = 0;
  for (const c of t.text) {
    if (LETTER.test(c)) letters++;
    else if (MARK.test(c)) marks++;
  }
  return letters > 0 && marks <= 2 * letters;
}

/** A number written in digits ("1990", "294,000", "5.5"); other scripts' digits and numeric symbols are not read as numbers. */
function isNumber(t: Token): boolean {
  return t.type === "number" && /^[0-9][0-9.,:]*$/.test(t.text);
}

function classify(text: string, tokens: readonly Token[]): SkipReason | undefined {
  const trimmed = plainApostrophes(text.trim());
  if (/[?？]["'”)」』）]*$/.test(trimmed)) return "question";
  if (isRefusalSentence(trimmed)) return "refusal";
  // Symbols, emoji or marks with no word and no number ("😀😀😀", "\u0301\u0301") state nothing
  // checkable. A sentence of numbers is checked: a bare "1990" answers "when?", and numbers the
  // evidence lacks ("14085 73274") make it unsupported.
  if (!tokens.some((t) => isWord(t) || isNumber(t))) return "no_content";
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

const RELATIVES = new Set(["who", "whom", "whose", "which", "that", "where"]);
/** Tags that go on inside a noun phrase: a noun after a preposition ("in [the old] town") is its object, not a subject. */
const NOUN_PHRASE = new Set(["DET", "ADJ", "NUM", "NOUN", "PROPN", "PRON", "ADV"]);
/** Pronouns that can only start a new noun phrase, so they end a prepositional phrase ("in 2019 it was …"). */
const SUBJECT_PRONOUNS = new Set(["i", "i'm", "i’m", "you", "he", "she", "it", "we", "they", "there"]);
/** Verbs ending in "-ing" that are not participles. */
const ING_VERBS = new Set(["bring", "sing", "ring", "cling", "fling", "sling", "spring", "sting", "string", "swing", "wring"]);
/** Past participles that are never a past tense: after a noun they begin a reduced relative ("a city known for …"). */
const PARTICIPLES = new Set([
  "been", "known", "born", "borne", "written", "taken", "given", "seen", "done", "shown", "grown", "driven", "eaten", "broken",
  "chosen", "spoken", "stolen", "frozen", "forgotten", "gotten", "hidden", "ridden", "risen", "fallen", "beaten", "bitten",
  "blown", "drawn", "flown", "thrown", "worn", "torn", "sworn", "begun", "sung", "swum", "sunk", "drunk", "gone", "proven",
  "woken", "shaken", "mistaken", "forbidden", "forgiven", "undertaken", "overtaken", "withdrawn", "arisen", "awoken", "sewn",
  "sown", "mown", "rung", "sprung",
]);

/** Tags a noun phrase with no determiner starts with ("bags", "old bags"). */
const BARE_NOUN_START = new Set(["NOUN", "PROPN", "ADJ"]);
/** Irregular verbs whose past tense is also their participle ("bags made in Italy" or "they made in Italy"). */
const IRREGULAR_PAST = new Set([
  "made", "built", "sold", "held", "kept", "left", "paid", "sent", "set", "put", "cut", "found", "bought", "brought", "taught",
  "caught", "told", "led", "fed", "spent", "lost", "shot", "struck", "hung", "laid", "lit", "meant", "read", "said", "shut",
  "spread", "heard", "felt", "dealt", "won", "bound", "wound", "ground",
]);

/** For each index k, the first index ≥ k whose token passes `test` (tokens.length when none). */
function nextWhere(tokens: readonly Token[], test: (t: Token, k: number) => boolean): Int32Array {
  const next = new Int32Array(tokens.length + 1);
  next[tokens.length] = tokens.length;
  for (let k = tokens.length - 1; k >= 0; k--) {
    const t = tokens[k];
    next[k] = t && test(t, k) ? k : (next[k + 1] ?? tokens.length);
  }
  return next;
}

const isSubject = (t: Token | undefined): boolean => t !== undefined && (SUBJECTS.has(t.pos) || t.lower === "there");

/** A verb that can head a clause on its own: not a gerund or participle ("sculptures dating …", "a city known …"). */
function canHeadClause(t: Token): boolean {
  if (PARTICIPLES.has(t.lower)) return false;
  return !(t.lower.endsWith("ing") && !ING_VERBS.has(t.lower));
}

/**
 * Cut points (token indices of the conjunction or semicolon) where a sentence joins
 * two independent clauses: "X rose, and Y fell" or "X rose; Y fell".
 *
 * The left side is a clause when a subject precedes its first verb. The right side must
 * start a clause with its own explicit subject: a noun or pronoun that is not the object of
 * a preposition, then — with no coordinator, comma or relative word in between — a finite
 * verb right after that noun phrase. So a coordinated predicate or object stays with its
 * sentence: "The hotel is close to the beach and has a pool" (no subject), "The restaurant
 * serves lunch and dinner and is closed on Mondays" (the verb follows "and"), "She was born
 * in 1970 and in 1990 moved to Paris" (the noun is a preposition's object), "paintings and
 * sculptures dating from …" (a participle), "law and economics in Paris, where she met him"
 * (a relative word). Keeping a sentence whole is the safer error: a fragment is not a
 * checkable claim, while a whole sentence is still checked, only less finely.
 *
 * Each candidate is judged in constant time from prefix counts and next-index tables,
 * so a 500 KB "a and b and c …" costs one pass, not one pass per conjunction.
 */
function clauseCuts(tokens: readonly Token[]): number[] {
  const n = tokens.length;
  const content = new Int32Array(n + 1);
  // free[k]: token k could be a subject, i.e. it is a noun or pronoun that is not inside a prepositional phrase.
  const free = new Uint8Array(n);
  // before[k]: the last index < k that is not an adverb or "not" ("profits [also] fell"), −1 when none.
  const before = new Int32Array(n + 1);
  before[0] = -1;
  let inPrepositional = false;
  tokens.forEach((t, k) => {
    content[k + 1] = (content[k] ?? 0) + (isContentToken(t) ? 1 : 0);
    if (t.pos === "ADP") inPrepositional = true;
    else if (SUBJECT_PRONOUNS.has(t.lower) || !(NOUN_PHRASE.has(t.pos) || t.lower === "'s" || t.lower === "’s")) inPrepositional = false;
    free[k] = isSubject(t) && !inPrepositional ? 1 : 0;
    const skipped = t.pos === "ADV" || (t.pos === "PART" && NEGATION_WORDS.has(t.lower));
    before[k + 1] = skipped ? (before[k] ?? -1) : k;
  });
  // "9 am" is a time, though wink-nlp tags "am" a verb.
  const isVerb = (t: Token, k: number): boolean => VERBAL.has(t.pos) && !((t.lower === "am" || t.lower === "pm") && tokens[k - 1]?.pos === "NUM");
  const nextVerb = nextWhere(tokens, isVerb);
  const nextSubject = nextWhere(tokens, (t) => SUBJECTS.has(t.pos));
  const nextFree = nextWhere(tokens, (_, k) => free[k] === 1);
  const nextRelative = nextWhere(tokens, (t) => RELATIVES.has(t.lower));
  const nextComma = nextWhere(tokens, (t) => t.text === "," || t.text === ";");
  const isCoordinator = (t: Token | undefined): boolean => t !== undefined && COORDINATORS.has(t.lower) && t.pos === "CCONJ";
  const nextCoordinator = nextWhere(tokens, isCoordinator);
  // lastCoordinator[k]: the last coordinator index < k (−1 when none); verbs[k]: verbs among tokens [0, k).
  const lastCoordinator = new Int32Array(n + 1);
  const verbs = new Int32Array(n + 1);
  lastCoordinator[0] = -1;
  tokens.forEach((t, k) => {
    lastCoordinator[k + 1] = isCoordinator(t) ? k : (lastCoordinator[k] ?? -1);
    verbs[k + 1] = (verbs[k] ?? 0) + (isVerb(t, k) ? 1 : 0);
  });
  const contentIn = (a: number, b: number): number => (content[b] ?? 0) - (content[a] ?? 0);
  // Scanning [a, b): a subject comes first, then the first verb, with no relative pronoun after the subject up to that verb.
  const hasSubjectAndVerb = (a: number, b: number): boolean => {
    const verb = nextVerb[a] ?? n;
    const subject = nextSubject[a] ?? n;
    return verb < b && subject < verb && (nextRelative[subject + 1] ?? n) > verb;
  };
  /**
   * From a to the end: a free subject, then — with no relative word, comma, semicolon or
   * coordinator between — a finite verb right after a noun phrase. `leftLast` is the last token of the
   * left side: a bare noun after a noun ("shoes and bags made in …") with a past participle
   * and a preposition is that noun's reduced relative clause, not a new clause.
   */
  const startsClause = (a: number, leftLast: Token | undefined): boolean => {
    const verb = nextVerb[a] ?? n;
    const subject = nextFree[a] ?? n;
    if (verb >= n || subject >= verb) return false;
    if ((nextRelative[subject + 1] ?? n) < verb || (nextComma[subject + 1] ?? n) < verb || (nextCoordinator[a] ?? n) < verb) return false;
    const previous = before[verb] ?? -1;
    const head = tokens[verb];
    if (previous < subject || !isSubject(tokens[previous]) || head === undefined || !canHeadClause(head)) return false;
    const bare = BARE_NOUN_START.has(tokens[a]?.pos ?? "") && (leftLast?.pos === "NOUN" || leftLast?.pos === "PROPN");
    const participle = head.pos === "VERB" && (head.lower.endsWith("ed") || IRREGULAR_PAST.has(head.lower)) && previous === verb - 1;
    return !(bare && participle && tokens[verb + 1]?.pos === "ADP");
  };
  // The left side ends in a noun coordinated after its verb ("sells bread and milk and …"): whether
  // that noun is an object or starts the next subject ("costs fell and sales and profits rose") is not
  // decidable from tags, unless a comma or semicolon marks the boundary ("…bread and milk, and the cafe …").
  const endsInCoordinatedNoun = (from: number, leftEnd: number, marked: boolean): boolean => {
    const coordinator = lastCoordinator[leftEnd] ?? -1;
    return !marked && coordinator >= from && (verbs[leftEnd] ?? 0) - (verbs[coordinator + 1] ?? 0) === 0;
  };
  const cuts: number[] = [];
  let from = 0;
  for (let i = 1; i < n - 1; i++) {
    const t = tokens[i];
    if (!t) continue;
    const isSemicolon = t.text === ";";
    const isConj = COORDINATORS.has(t.lower) && (t.pos === "CCONJ" || tokens[i - 1]?.text === ",");
    if (!isSemicolon && !isConj) continue;
    const comma = tokens[i - 1]?.text === ",";
    const leftEnd = isConj && comma ? i - 1 : i;
    if (contentIn(from, leftEnd) < 2 || contentIn(i + 1, n) < 2) continue;
    if (!hasSubjectAndVerb(from, leftEnd) || endsInCoordinatedNoun(from, leftEnd, comma || isSemicolon) || !startsClause(i + 1, tokens[leftEnd - 1])) continue;
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
        if (META.test(plainApostrophes(leadText)) && lead.end > lead.start) {
          segments.push({ kind: "skipped", text: leadText, start: lead.start, end: lead.end, reason: "meta" });
          const rest = sentence.tokenStart + colon + 1;
          sentence = { ...sentence, tokenStart: rest, start: doc.tokens[rest]?.start ?? sentence.end };
          tokens = tokens.slice(colon + 1);
        }
      }
      // "I don't know much about him, but he won two Grammys." — the refusal is skipped, and what
      // follows "but" is a claim: a statement behind a refusal must not go unchecked.
      const but = tokens.findIndex((t, k) => k > 0 && t.lower === "but");
      if (but > 0 && tokens.slice(but + 1).filter(isContentToken).length >= 2) {
        const lead = trimSpan(answer, block.start + sentence.start, block.start + (tokens[but - 1]?.end ?? sentence.end));
        const leadText = answer.slice(lead.start, lead.end);
        const whole = plainApostrophes(answer.slice(block.start + sentence.start, block.start + sentence.end).trim());
        const restText = plainApostrophes(answer.slice(block.start + (tokens[but + 1]?.start ?? sentence.end), block.start + sentence.end).trim());
        if (lead.end > lead.start && isRefusalSentence(whole) && isRefusalSentence(plainApostrophes(leadText)) && !isRefusalSentence(restText)) {
          segments.push({ kind: "skipped", text: leadText, start: lead.start, end: lead.end, reason: "refusal" });
          const rest = sentence.tokenStart + but + 1;
          sentence = { ...sentence, tokenStart: rest, start: doc.tokens[rest]?.start ?? sentence.end };
          tokens = tokens.slice(but + 1);
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
