/** Clause splitting: where a sentence joins two independent clauses, each a claim of its own. */
import type { Token } from "../text.ts";
import { NEGATION_WORDS, isContentToken } from "../text.ts";

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
export function clauseCuts(tokens: readonly Token[]): number[] {
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
