import { SPACELESS_FUNCTION_WORDS } from "./function-words.ts";
import type { SentenceSpan, Token } from "./tokens.ts";

/**
 * Words and sentences of scripts written without spaces between words: Chinese (Han), Japanese
 * (Han, Hiragana, Katakana), Thai, Lao, Khmer and Myanmar. wink-nlp reads a whole run of such text
 * as one "word" (a Chinese sentence is one token), so nothing in it can match a word of the
 * evidence. Those runs are cut into words with ICU's dictionaries (Intl.Segmenter, word
 * granularity, built into Node), and sentences end at their own punctuation (。！？). Hangul is
 * written with spaces and stays with wink-nlp, as do all other scripts.
 */

/** True for a UTF-16 code unit of a script written without spaces, or of CJK punctuation and full-width forms. */
export function isSpacelessCode(c: number): boolean {
  return (
    (c >= 0x0e00 && c <= 0x0eff) || // Thai, Lao
    (c >= 0x1000 && c <= 0x109f) || // Myanmar
    (c >= 0x1780 && c <= 0x17ff) || // Khmer
    (c >= 0x3000 && c <= 0x30ff) || // CJK punctuation, Hiragana, Katakana
    (c >= 0x31f0 && c <= 0x31ff) || // Katakana phonetic extensions
    (c >= 0x3400 && c <= 0x4dbf) || // CJK extension A
    (c >= 0x4e00 && c <= 0x9fff) || // CJK unified ideographs
    (c >= 0xf900 && c <= 0xfaff) || // CJK compatibility ideographs
    (c >= 0xff00 && c <= 0xffef) // full-width and half-width forms
  );
}

/**
 * The text with full-width digits (０–９, common in Japanese and Chinese text) as ASCII digits, so
 * "４５６元" is read as the number 456 as "456元" is. One code unit for one: every offset stays.
 */
export function asciiDigits(text: string): string {
  return /[\uff10-\uff19]/.test(text) ? text.replace(/[\uff10-\uff19]/g, (d) => String.fromCharCode(d.charCodeAt(0) - 0xfee0)) : text;
}

/** Any character isSpacelessCode accepts (the same ranges, as one character class). */
const SPACELESS = /[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3000-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]/;

/** True when some character of text[start, end) is in a spaceless script. */
function hasSpaceless(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (isSpacelessCode(text.charCodeAt(i))) return true;
  return false;
}

/** Marks that end a sentence of a spaceless script: 。！？ and their half- and full-width forms, Myanmar ။ and Khmer ។. */
const SENTENCE_END = /^[。｡．！？!?‼⁇⁈⁉။។]+$/u;
/** Closing quotes and brackets that stay with the sentence they close (「…。」). */
const CLOSER = /^[」』】〕〉》）"”’)\]]+$/u;

/**
 * Code units handed to the segmenter at once. ICU's word breaking grows faster than linearly in
 * the length of one string (20,000 Chinese characters took 0.3 s at once, 80,000 took 28 s), so a
 * run is segmented in chunks: linear in the run, at about a microsecond a character.
 */
export const SEGMENT_CHUNK_CHARS = 512;

/** A word (or punctuation) of a spaceless run, as offsets into the text. */
interface Piece {
  readonly start: number;
  readonly end: number;
  readonly wordLike: boolean;
}

/**
 * The words and punctuation of text[start, end), whitespace left out. Chunked: the last piece
 * of a chunk may be a word cut by the chunk's end, so the next chunk starts again from it.
 */
function pieces(segmenter: Intl.Segmenter, text: string, start: number, end: number): Piece[] {
  const out: Piece[] = [];
  let from = start;
  while (from < end) {
    let to = Math.min(end, from + SEGMENT_CHUNK_CHARS);
    const last = text.charCodeAt(to - 1);
    if (to < end && to - 1 > from && last >= 0xd800 && last <= 0xdbff) to--; // never split a surrogate pair
    const chunk: Piece[] = [];
    for (const s of segmenter.segment(text.slice(from, to))) {
      chunk.push({ start: from + s.index, end: from + s.index + s.segment.length, wordLike: s.isWordLike === true });
    }
    // Keep the chunk's last piece only at the run's end, or when it is the chunk's only piece.
    const tail = to < end && chunk.length > 1 ? chunk.pop() : undefined;
    for (const p of chunk) if (/\S/u.test(text.slice(p.start, p.end))) out.push(p);
    from = tail ? tail.start : to;
  }
  return out;
}

const NUMBER = /^\p{Nd}+(?:[.,:]\p{Nd}+)*$/u;

/** The token of one piece: a word, a number or punctuation, as wink-nlp would type it (no stemmer for these scripts: the stem is the word). */
function tokenOf(text: string, p: Piece): Token {
  const value = text.slice(p.start, p.end);
  const lower = value.toLowerCase();
  if (p.wordLike && NUMBER.test(value)) return { text: value, lower, lemma: lower, stem: lower, type: "number", pos: "NUM", stop: false, start: p.start, end: p.end };
  if (p.wordLike) return { text: value, lower, lemma: lower, stem: lower, type: "word", pos: "X", stop: SPACELESS_FUNCTION_WORDS.has(value), start: p.start, end: p.end };
  const punctuation = /^\p{P}+$/u.test(value);
  return { text: value, lower, lemma: lower, stem: lower, type: punctuation ? "punctuation" : "symbol", pos: punctuation ? "PUNCT" : "SYM", stop: false, start: p.start, end: p.end };
}

/** Tokens and sentences of an analysed text. */
export interface Segmented {
  readonly tokens: readonly Token[];
  readonly sentences: readonly SentenceSpan[];
}

/**
 * Cuts wink-nlp's tokens of spaceless scripts into words, and its sentences at the sentence ends
 * of those scripts. `tokens` have offsets into `text`; a run of adjacent tokens holding spaceless
 * characters (the limits may have split one long run with spaces) is segmented as one run of
 * `text`. Every other token, and every sentence boundary wink-nlp found, is kept; a text with no
 * spaceless character comes back as it was. Linear in the text.
 */
export function segmentSpaceless(text: string, tokens: readonly Token[], sentences: readonly SentenceSpan[], segmenter: Intl.Segmenter): Segmented {
  // A token counts only when it is the text it covers (not one the limits cut to "…").
  // Most text has no character of these scripts: one scan of the text says so (the per-token test below cannot then hold).
  if (!SPACELESS.test(text)) return { tokens, sentences };
  const spaceless = (t: Token): boolean => t.end - t.start === t.text.length && hasSpaceless(text, t.start, t.end) && text.startsWith(t.text, t.start);
  if (!tokens.some(spaceless)) return { tokens, sentences };
  const out: Token[] = [];
  // Tokens made from segmenting, whose "!" and "?" end a sentence as 。 does.
  const segmented = new Set<Token>();
  let i = 0;
  while (i < tokens.length) {
    const t = tokens[i] as Token;
    if (!spaceless(t)) {
      out.push(t);
      i++;
      continue;
    }
    let end = t.end;
    let j = i + 1;
    for (; j < tokens.length; j++) {
      const next = tokens[j] as Token;
      if (next.start !== end || !spaceless(next)) break;
      end = next.end;
    }
    for (const p of pieces(segmenter, text, t.start, end)) {
      const token = tokenOf(text, p);
      segmented.add(token);
      out.push(token);
    }
    i = j;
  }
  // Sentences: wink-nlp's starts (as offsets), plus the token after each sentence end of a spaceless script.
  const starts = sentences.map((s) => s.start);
  const spans: SentenceSpan[] = [];
  let next = 0;
  let from = 0;
  let ended = false;
  for (let k = 0; k < out.length; k++) {
    const t = out[k] as Token;
    let begins = false;
    while (next < starts.length && (starts[next] ?? Infinity) <= t.start) {
      next++;
      begins = true;
    }
    if (ended && !SENTENCE_END.test(t.text) && !CLOSER.test(t.text)) begins = true;
    if (begins && k > from) {
      spans.push({ tokenStart: from, tokenEnd: k, start: (out[from] as Token).start, end: (out[k - 1] as Token).end });
      from = k;
      ended = false;
    }
    if (/^[!?]+$/.test(t.text) ? segmented.has(t) : SENTENCE_END.test(t.text)) ended = true;
  }
  if (out.length > from) spans.push({ tokenStart: from, tokenEnd: out.length, start: (out[from] as Token).start, end: (out[out.length - 1] as Token).end });
  return { tokens: out, sentences: spans };
}
