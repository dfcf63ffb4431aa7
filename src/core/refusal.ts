/**
 * The one refusal detector: whether a sentence, or a whole sample, declines to answer instead of
 * stating anything. Claims skip refusal sentences; semantic entropy and claim consistency set
 * refusing samples aside. The sentence patterns are anchored at the start of a sentence; a sample
 * of more than 25 words is an answer, decided before any pattern runs.
 */

/** The text with the apostrophes an answer may type ("I’m", "don´t") as ', which the patterns below are written with. */
export function plainApostrophes(text: string): string {
  return text.replace(/[\u2018\u2019\u02bc\u2032\u0060\u00b4]/g, "'");
}

/** What an answer may call the retrieved context ("the provided documents", "the search results"). */
const SOURCE = String.raw`(?:(?:provided|given|available|retrieved|supplied|attached|above|following|shared|current|reference|source|relevant) )?(?:context|documents?|docs|sources?|texts?|passages?|excerpts?|materials?|information|knowledge base|search results|snippets?|articles?|content|documentation)\b`;
/** An optional determiner before SOURCE. */
const THE = String.raw`(?:the |this |that |these |those |your |my |any (?:of the )?|all (?:of )?the )?`;
/** "information", but not "information technology", "information desk", … */
const INFO = String.raw`info(?:rmation)?\b(?! (?:technology|technologies|security|desks?|systems?|officers?|services?|theory|architecture|retrieval|booths?|cent(?:er|re)s?|sessions?|packs?|packets?|sheets?)\b)`;
const I_AM = String.raw`(?:i'?m|i am|i was|i've been|i have been)`;
const NOT = String.raw`(?:do not|don'?t|does not|doesn'?t|did not|didn'?t|cannot|can'?t|can not|could not|couldn'?t|will not|won'?t|would not|wouldn'?t)`;
const BE_NOT = String.raw`(?:is not|isn'?t|are not|aren'?t|was not|wasn'?t|were not|weren'?t|has not been|hasn'?t been|have not been|haven'?t been|cannot be|can'?t be|could not be|couldn'?t be)`;
/** What a refusal says it cannot do: "I cannot [answer]", "I couldn't [find]". */
const CANNOT_DO = String.raw`(?:know|answer|find|help|say|determine|provide|tell|see|locate|identify|confirm|verify|access|give|offer|share|comment|speak|assist|respond|address|discuss|retrieve|infer|ascertain|specify|have|spot|pinpoint|recall|guarantee|predict|advise|support|be (?:sure|certain))\b`;
/** What the context fails to do: "the documents do not [mention]". */
const SOURCE_DOES = String.raw`(?:contain|mention|say|provide|include|specify|state|cover|give|indicate|address|discuss|offer|list|describe|explain|answer|detail|have|reference|tell|show|clarify|define|identify|support|make|touch|refer|talk|note|confirm|disclose|reveal|speak|go into)`;
/** Where a piece of information is missing from: "in the context", "part of the documents". */
const MISSING_FROM = String.raw`(?:in|part of|among|within|anywhere in|contained in|included in|mentioned in|provided in|given in|found in|stated in|specified in|covered in|addressed in|available in|present in) ${THE}${SOURCE}`;
/** What follows a bare "not mentioned" / "not available" when it is about the context: the end, or "in …", "here". */
const ABOUT_CONTEXT_END = String.raw`(?=[\s.!…]*$| (?:in|by|within|from|among|anywhere|here|there|to me|at all|at (?:this|the moment|present))\b)`;

/**
 * A whole sentence of apology or uncertainty, or a bare non-answer: "I'm sorry.", "I'm sorry
 * to hear that.", "I'm not sure whether it applies.", "No idea.", "Unknown."
 */
const BARE_REFUSAL = new RegExp(String.raw`^(?:(?:i'?m|i am) (?:so |very |really |truly |terribly )?sorry|(?:so |very |really )?sorry|i (?:do )?apologi[sz]e|(?:my )?apologies|(?:(?:i'?m|i am) )?(?:not (?:sure|certain)|unsure|uncertain)|no idea|unknown|n/a|(?:i )?(?:don'?t|do not|cannot|can'?t) (?:know|say|tell)|hard to say|no comment|not (?:known|specified|mentioned|stated))(?:\s+(?:for|about|to hear|if|of|what|whether|how|when|where|which|who|why)\b[\s\S]*)?[\s.!…]*$`, "i");

/**
 * Openers that may lead into a refusal — or into a claim ("Unfortunately, shares fell 5%.",
 * "I'm sorry, but the store is closed on Sundays."): they are set aside and what follows is judged.
 */
const LEAD = new RegExp(String.raw`^(?:unfortunately|regrettably|sadly|alas|however|but|well|hmm+|ok(?:ay)?|(?:i'?m|i am) (?:so |very |really |truly |terribly )?sorry|(?:so |very |really )?sorry|i (?:do )?apologi[sz]e|(?:my )?apologies|(?:i'?m|i am) afraid(?: that)?|(?:i'?m|i am) not (?:sure|certain)|(?:i'?m|i am) (?:unsure|uncertain))(?:\s*[,;:\u2013\u2014-]\s*|\s+)(?:(?:but|though|however|that),?\s+)?`, "i");

/** "Based on the provided context, " and the like, ahead of a refusal ("…, I cannot tell"). */
const SOURCE_LEAD = new RegExp(String.raw`^(?:based on|according to|from|given|in|within|looking at|after reviewing|upon reviewing|having reviewed|reviewing|with) ${THE}${SOURCE}(?: (?:provided|given|available|above|you (?:provided|shared|gave)|i (?:have|was given|received)|at hand))?\s*,?\s*`, "i");

/**
 * Refusals and non-answers, once openers are set aside: each says the answer is not there, not what
 * it is. Each is [opening, rest], one pattern when joined; it is tried only on a sentence that starts
 * with its opening (every branch of the "i … only" one starts with "i"). So the long patterns, ~150 ms
 * of compilation together at first use, are compiled only once a sentence could match them.
 */
export const REFUSALS: ReadonlyArray<readonly [opening: string, rest: string]> = [
  // "I cannot answer that", "I don't know", "I couldn't find any information", "I don't have access"
  [String.raw`i ${NOT} `, String.raw`(?:\w+ )?${CANNOT_DO}`],
  // "I'm not able to answer", "I was unable to find", "I'm not aware of any fee"
  [String.raw`${I_AM} `, String.raw`(?:\w+ )?(?:unable|not able|not in a position|not aware|unaware|not familiar|unfamiliar|not allowed|not permitted|not authori[sz]ed)\b`],
  [String.raw`i ${NOT} `, String.raw`(?:think|believe|see) (?:that )?(?:${THE}${SOURCE}|there(?:'s| is| are| was))`],
  // "I have no information about…"
  [String.raw`i have no `, String.raw`(?:\w+ )?(?:information|data|details|knowledge|access|way|records?|context|idea|means|visibility|insight)\b`],
  [String.raw`i(?: would| will|'d|'ll) need `, String.raw`(?:more|additional|further|some|extra|the|to know|access)\b`],
  [String.raw`i`, String.raw`(?: can| am able to|'m able to) only\b|i only (?:have|know|see|found)\b`],
  [String.raw`(?:i'?m|i am) `, String.raw`(?:just |only )?(?:an ai|an? (?:language model|assistant|bot|chatbot|virtual assistant))\b`],
  [String.raw`as an? `, String.raw`(?:ai|artificial intelligence|(?:large )?language model|llm|virtual assistant)\b`],
  [String.raw`i (?:searched|looked|checked|reviewed|went through|scanned)\b`, String.raw`[\s\S]*\b(?:but|and) (?:found no|found nothing|could not|couldn'?t|did not|didn'?t|was unable|there (?:is|was|are|were) no)\b`],
  // "The provided context does not mention…", "The documents don't say"
  [String.raw`${THE}${SOURCE}`, String.raw`(?: (?:you (?:provided|shared|gave)|provided|given|available|above|i (?:have|was given|received)))?,? (?:${NOT}|fails? to|(?:${NOT} )?(?:seem|appear)s? (?:not )?to) (?:\w+ ){0,2}${SOURCE_DOES}`],
  [String.raw`(?:none|neither) of `, String.raw`${THE}${SOURCE} (?:\w+ ){0,2}(?:mentions?|says?|contains?|provides?|includes?|specif(?:y|ies)|states?|covers?|address(?:es)?|discuss(?:es)?|answers?|has|have|gives?|indicates?|refers?|talks?|describes?|explains?|lists?)\b`],
  [String.raw`${THE}${SOURCE}`, String.raw` (?:is|are|was|were|seems?|appears?)(?: to be)? (?:insufficient|inconclusive|unclear|ambiguous|incomplete|silent|not (?:sufficient|enough|clear|specific))\b`],
  [String.raw`${THE}${SOURCE}`, String.raw` (?:only )?(?:makes?|made|contains?|has|have|had|gives?|provides?|includes?|offers?) no (?:\w+ )?(?:mention|reference|information|details?|data|indication|answer|specifics)\b`],
  [String.raw`${THE}${SOURCE}`, String.raw` (?:only|just|merely) (?:\w+ )?(?:mentions?|discuss(?:es)?|covers?|contains?|talks? about|describes?|refers? to|includes?|address(?:es)?|provides?|has|have|deals? with|focus(?:es)? on)\b`],
  // "That information is not available (in the context)", "The answer is not in the context"
  [String.raw`${THE}(?:(?:specific|requested|relevant|exact|precise|detailed|further|additional|such) )?(?:${INFO}|answer|details?|specifics)`, String.raw`(?: (?:about|on|regarding|for|concerning|to (?:your|this|that|the) question|you(?:'re| are) (?:looking|asking) for|requested|needed)(?: [^.;!?]{0,80}?)?)? ${BE_NOT} (?:\w+ )?(?:${MISSING_FROM}|(?:available|provided|mentioned|included|specified|stated|given|present|found|contained|listed|known|determined|covered|addressed|discussed|disclosed|answered|clear|there)${ABOUT_CONTEXT_END})`],
  // "It is not mentioned in the documents", "That's not in the context", "This isn't specified."
  [String.raw`(?:it|this|that)(?:'s not| is not|'s never| is never| isn'?t| was not| wasn'?t| has not been| hasn'?t been) `, String.raw`(?:\w+ )?(?:${MISSING_FROM}|(?:mentioned|stated|specified|indicated|explained|discussed|addressed|described|clarified|detailed|said|noted|documented|known|clear)${ABOUT_CONTEXT_END})`],
  [String.raw`it(?:'s| is| was) `, String.raw`(?:not (?:clear|known)|unclear|unknown|(?:not possible|impossible|difficult|hard) to (?:say|determine|tell|know|answer|confirm|verify|infer|specify|find|ascertain|provide|identify|establish))\b`],
  [String.raw`(?:that|this|it)(?:'s| is) `, String.raw`(?:not something (?:i|that i)\b|outside (?:the scope|of (?:the|my|what)|my)|beyond (?:the scope|my|what)|(?:a question|something) (?:i|that i) ${NOT})`],
  // "There's no information about…", "There is not enough information", "There is nothing in the context"
  [String.raw`there(?:'s| is| are| was| were| seems to be| appears to be) `, String.raw`(?:(?:no|not (?:enough|any|sufficient|much)|insufficient|little) (?:\w+ )?(?:${INFO}|mention\b|details? (?:about|on|regarding|of|in|available|provided|given)\b|reference to\b|indication\b|specifics\b|answer (?:to|in|available)\b|context (?:about|on|for|to|regarding|provided)\b|data (?:on|about|regarding|available|provided|in)\b)|nothing (?:in|within) ${THE}${SOURCE})`],
  // "Not enough information.", "Insufficient context.", "No relevant information was found."
  [String.raw`(?:not enough |insufficient |no (?:\w+ )?)`, String.raw`(?:${INFO}|context(?=[\s.!…]*$| (?:is|was|provided|given|available|about|on|for|to|regarding)\b)|details (?:are|were|is|provided|given|available|about|on|regarding)\b|mention\b|relevant (?:information|details|data|documents?|context|sources?)\b|data (?:is|are|was|were) (?:available|provided|given|found|mentioned)\b|answer (?:is|was|could|can)\b)`],
];

/** One refusal pattern, anchored, and its opening on its own. */
interface RefusalPattern {
  readonly opening: RegExp;
  readonly whole: RegExp;
}

/** REFUSALS compiled (lazily, by the engine, at first use); patterns with the same opening share its RegExp. */
function refusalPatterns(parts: typeof REFUSALS): RefusalPattern[] {
  const openings = new Map<string, RegExp>();
  return parts.map(([opening, rest]) => {
    const gate = openings.get(opening) ?? new RegExp(`^(?:${opening})`, "i");
    openings.set(opening, gate);
    return { opening: gate, whole: new RegExp(`^(?:${opening}${rest})`, "i") };
  });
}

const REFUSAL_PATTERNS = refusalPatterns(REFUSALS);

/**
 * The text a refusal pattern matches at the start of `text`, or undefined. Patterns are tried in
 * order and the first that matches wins, as the branches of one alternation would.
 */
export function matchRefusal(text: string): string | undefined {
  for (const pattern of REFUSAL_PATTERNS) {
    if (!pattern.opening.test(text)) continue;
    const match = pattern.whole.exec(text);
    if (match) return match[0];
  }
  return undefined;
}

/**
 * What follows the refusal in a sentence ("" when the refusal is the whole sentence), or
 * undefined when the sentence is not a refusal. `sentence` is trimmed, with plain apostrophes.
 */
function refusalTail(sentence: string): string | undefined {
  if (BARE_REFUSAL.test(sentence)) return "";
  let rest = sentence;
  // At most a few openers ("Unfortunately, based on the context, I …"); each one shortens the rest.
  for (let k = 0; k < 4; k++) {
    const lead = LEAD.exec(rest) ?? SOURCE_LEAD.exec(rest);
    if (!lead || lead[0].length === 0) break;
    rest = rest.slice(lead[0].length);
  }
  if (rest === "") return "";
  const refusal = matchRefusal(rest);
  return refusal === undefined ? undefined : rest.slice(refusal.length);
}

/** True when a sentence refuses or declines to answer instead of stating anything ("I’m not able to answer that."). */
export function isRefusalSentence(sentence: string): boolean {
  return refusalTail(plainApostrophes(sentence.trim())) !== undefined;
}

/**
 * Words that show a hedged reply still commits to an answer ("I don't know, maybe 1998."). "About"
 * and "around" count only before a number: "no information about the fee" names a topic, not an estimate.
 */
const ANSWER_MARKERS =
  /\b(?:but|however|though|believe|think|guess|probably|likely|possibly|maybe|perhaps|might\s+be|could\s+be|it\s+is|it's|it\s+was|would\s+be|approximately)\b|\b(?:around|about)\s+(?:a\s+)?(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion|dozen|half)\b|\d/i;

/** A sample longer than this many words is an answer: refusals are short, and the check stays cheap on long samples. */
const MAX_REFUSAL_WORDS = 25;

/** True when `text` has more than `max` whitespace-separated words; stops counting there. */
function moreWordsThan(text: string, max: number): boolean {
  let words = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const space = /\s/.test(text[i] ?? "");
    if (!space && !inWord && ++words > max) return true;
    inWord = !space;
  }
  return false;
}

/** Sentences of a short sample: cut after . ! ? or … followed by whitespace. */
const SENTENCE_END = /(?<=[.!?…])\s+/;

/**
 * True when a whole sample declines to answer: its first sentence is a refusal, and nothing after
 * that refusal asserts — every later sentence refuses too, or says nothing that commits to an answer.
 * Errs toward "answer": a hedge that still names something ("I'm not sure, but I believe it is
 * Canberra.", "I don't know, maybe 1998.") is an answer, and so is any sample over 25 words.
 */
export function isRefusalAnswer(text: string): boolean {
  const t = plainApostrophes(text.trim());
  if (t === "" || moreWordsThan(t, MAX_REFUSAL_WORDS)) return false;
  const [first = "", ...later] = t.split(SENTENCE_END);
  const opening = refusalTail(first);
  if (opening === undefined || ANSWER_MARKERS.test(opening)) return false;
  return later.every((sentence) => !ANSWER_MARKERS.test(refusalTail(sentence) ?? sentence));
}
