/**
 * Whether an answer and its documents are written in the same script. Words are what the
 * preselection and the offline backend compare: an answer in Chinese checked against documents in
 * English shares no word with them, and would be called ungrounded for its language, not for what
 * it says. Decided cheaply from character classes, in one pass over each text.
 */

/** Writing systems told apart; Han and kana are one (Chinese and Japanese share Han characters). */
export type Script =
  | "Latin" | "Greek" | "Cyrillic" | "Armenian" | "Hebrew" | "Arabic" | "Devanagari" | "Bengali" | "Gurmukhi" | "Gujarati"
  | "Oriya" | "Tamil" | "Telugu" | "Kannada" | "Malayalam" | "Sinhala" | "Thai" | "Lao" | "Tibetan" | "Myanmar" | "Georgian"
  | "Ethiopic" | "Khmer" | "Hangul" | "Han/kana";

/** Code point ranges of letters by script, in ascending order (non-overlapping). */
const RANGES: ReadonlyArray<readonly [number, number, Script]> = [
  [0x00c0, 0x024f, "Latin"], [0x0370, 0x03ff, "Greek"], [0x0400, 0x052f, "Cyrillic"], [0x0530, 0x058f, "Armenian"],
  [0x0590, 0x05ff, "Hebrew"], [0x0600, 0x06ff, "Arabic"], [0x0750, 0x077f, "Arabic"], [0x08a0, 0x08ff, "Arabic"],
  [0x0900, 0x097f, "Devanagari"], [0x0980, 0x09ff, "Bengali"], [0x0a00, 0x0a7f, "Gurmukhi"], [0x0a80, 0x0aff, "Gujarati"],
  [0x0b00, 0x0b7f, "Oriya"], [0x0b80, 0x0bff, "Tamil"], [0x0c00, 0x0c7f, "Telugu"], [0x0c80, 0x0cff, "Kannada"],
  [0x0d00, 0x0d7f, "Malayalam"], [0x0d80, 0x0dff, "Sinhala"], [0x0e00, 0x0e7f, "Thai"], [0x0e80, 0x0eff, "Lao"],
  [0x0f00, 0x0fff, "Tibetan"], [0x1000, 0x109f, "Myanmar"], [0x10a0, 0x10ff, "Georgian"], [0x1100, 0x11ff, "Hangul"],
  [0x1200, 0x139f, "Ethiopic"], [0x1780, 0x17ff, "Khmer"], [0x1e00, 0x1eff, "Latin"], [0x1f00, 0x1fff, "Greek"],
  [0x3040, 0x30ff, "Han/kana"], [0x3130, 0x318f, "Hangul"], [0x31f0, 0x31ff, "Han/kana"], [0x3400, 0x4dbf, "Han/kana"],
  [0x4e00, 0x9fff, "Han/kana"], [0xac00, 0xd7af, "Hangul"], [0xf900, 0xfaff, "Han/kana"], [0xfb1d, 0xfb4f, "Hebrew"],
  [0xfb50, 0xfdff, "Arabic"], [0xfe70, 0xfeff, "Arabic"], [0xff21, 0xff3a, "Latin"], [0xff41, 0xff5a, "Latin"],
  [0xff66, 0xff9f, "Han/kana"], [0xffa0, 0xffdc, "Hangul"], [0x20000, 0x3ffff, "Han/kana"],
];

/** Letters and marks only: digits, punctuation and symbols inside a script's block say nothing of the language. */
const NOT_LETTER = /[\p{N}\p{P}\p{S}\p{Z}\p{C}]/u;

function scriptOf(cp: number): Script | undefined {
  if ((cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a)) return "Latin";
  if (cp < 0xc0) return undefined;
  let lo = 0;
  let hi = RANGES.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [from, to, script] = RANGES[mid] as readonly [number, number, Script];
    if (cp < from) hi = mid - 1;
    else if (cp > to) lo = mid + 1;
    else return NOT_LETTER.test(String.fromCodePoint(cp)) ? undefined : script;
  }
  return undefined;
}

/** Letters of each script in a text. Linear: one pass, a binary search over a fixed table per character. */
export function scriptCounts(text: string, into: Map<Script, number> = new Map(), enough?: { readonly script: Script; readonly letters: number }): Map<Script, number> {
  for (let i = 0; i < text.length; i++) {
    let cp = text.charCodeAt(i);
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < text.length) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
        i++;
      }
    }
    const script = scriptOf(cp);
    if (!script) continue;
    const n = (into.get(script) ?? 0) + 1;
    into.set(script, n);
    // Counting further cannot change the answer the caller needs.
    if (enough && script === enough.script && n >= enough.letters) return into;
  }
  return into;
}

/** The script with the most letters, and its count; undefined when there are no letters. */
function dominant(counts: ReadonlyMap<Script, number>): { script: Script; letters: number } | undefined {
  let best: { script: Script; letters: number } | undefined;
  for (const [script, letters] of counts) if (!best || letters > best.letters) best = { script, letters };
  return best;
}

/** Fewest letters of its script an answer needs before its script is judged ("OK", "是的" are not). */
export const MIN_ANSWER_LETTERS = 4;
/** Letters of the answer's script that make a context readable in it, however many other letters it has. */
export const MIN_SHARED_LETTERS = 20;

/** An answer written in a script that its documents are not. */
export interface ScriptMismatch {
  /** The script most of the answer's letters are in. */
  readonly answer: Script;
  /** The script most of the documents' letters are in. */
  readonly documents: Script;
}

/**
 * The answer's script when the documents are not written in it, else undefined. The answer's
 * script is the one most of its letters are in; the documents are in it when, all together, they
 * have at least MIN_SHARED_LETTERS letters of it or a quarter of their letters are in it. So a
 * Chinese name in an English document, or a brand name in a Chinese one, does not make the
 * other language checkable, while a bilingual document does; documents without letters (numbers,
 * a table of codes) never make a mismatch. Chinese and Japanese are not told apart.
 */
export function scriptMismatch(answer: string, documents: readonly string[]): ScriptMismatch | undefined {
  const ours = dominant(scriptCounts(answer));
  if (!ours || ours.letters < MIN_ANSWER_LETTERS) return undefined;
  const theirs = new Map<Script, number>();
  // Stops as soon as the documents hold MIN_SHARED_LETTERS of the answer's script: no mismatch then,
  // whatever else they hold (the usual case, decided in the first sentence instead of every document).
  const enough = { script: ours.script, letters: MIN_SHARED_LETTERS };
  for (const d of documents) {
    scriptCounts(d, theirs, enough);
    if ((theirs.get(ours.script) ?? 0) >= MIN_SHARED_LETTERS) return undefined;
  }
  let total = 0;
  for (const n of theirs.values()) total += n;
  const shared = theirs.get(ours.script) ?? 0;
  if (total === 0 || shared >= MIN_SHARED_LETTERS || shared * 4 >= total) return undefined;
  const main = dominant(theirs);
  return main ? { answer: ours.script, documents: main.script } : undefined;
}
