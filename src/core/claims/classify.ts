/** Which sentences are not claims: questions, refusals, greetings and filler, meta lines, sentences with no content. */
import { isRefusalSentence, plainApostrophes } from "../refusal.ts";
import type { Token } from "../text.ts";
import { isContentToken } from "../text.ts";
import type { SkipReason } from "./types.ts";

const GREETING = /^(?:hi|hello|hey|greetings|good (?:morning|afternoon|evening)|thanks?(?: you)?|thank you|you'?re welcome|sure|certainly|of course|absolutely|great question|happy to help|i hope (?:this|that) helps|let me know|feel free|glad to help|no problem)\b/i;
/** A bare yes or no: an answer to a question, but nothing checkable without it. */
const BARE_YES_NO = /^(?:(?:oh|well),?\s+)?(?:yes|no|yeah|yep|nope|right|true|false|correct|incorrect)[\s,.!]*$/i;
/** A whole sentence of conversational filler: agrees or reacts, states nothing. */
const FILLER = /^(?:(?:oh|well|so|and|but),?\s+)?(?:i (?:agree|disagree|see|think so|guess so|love (?:it|that)|like (?:it|that))|me too|me neither|ok(?:ay)?|wow|cool|interesting|nice|great|indeed|exactly|that'?s (?:true|right|cool|great|interesting|nice|awesome))(?:\s+(?:indeed|too|really|then))?[\s,.!]*$/i;
/** A lead-in about the answer itself ("Here is a summary", "Based on the context"), not about the world. */
export const META = /^(?:here(?:'s| is| are)|below (?:is|are)|the following|in summary|to summari[sz]e|in short|to sum up|overall|based on the (?:provided |given )?(?:context|documents?|information|sources?|text)|according to the (?:provided |given )?(?:context|documents?|sources?))\b/i;
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

/** Why a sentence is not a claim, or undefined when it is one. */
export function classify(text: string, tokens: readonly Token[]): SkipReason | undefined {
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
