/**
 * Input limits that keep scoring bounded: every cap applied to an observation is
 * reported by name, so a truncated measurement is never mistaken for a whole one.
 */
export const LIMIT_NAMES = ["answer_chars", "context_chars", "documents", "token_chars", "claims", "samples", "entailment_calls"] as const;

/**
 * A limit applied while scoring one observation:
 * - `answer_chars`: the answer (or a resample, or the question) was cut at maxAnswerChars;
 * - `context_chars`: documents past maxContextChars characters in all were cut or ignored;
 * - `documents`: documents past maxDocuments were ignored;
 * - `token_chars`: a run of non-space characters longer than maxTokenChars (a base64 or hex
 *   blob, a minified line) was cut to its first characters and "…";
 * - `claims`: claims past maxClaims were skipped ("over_limit");
 * - `samples`: resamples past maxSamples were ignored;
 * - `entailment_calls`: the per-observation entailment budget skipped claims or left semantic
 *   entropy unmeasured.
 */
export type LimitName = (typeof LIMIT_NAMES)[number];

/** The limits in their canonical order, without repeats. */
export function orderLimits(limits: Iterable<LimitName>): LimitName[] {
  const set = new Set(limits);
  return LIMIT_NAMES.filter((name) => set.has(name));
}

/** Longest token passed to the tokenizer when nothing else is configured. */
export const DEFAULT_MAX_TOKEN_CHARS = 100;

/** What an over-long token ends with once cut. */
export const TOKEN_CUT_MARK = "…";

/**
 * The characters wink-nlp splits tokens at (its tokenizer's `splitter`); every other
 * character, Unicode spaces such as U+3000 included, is part of a token to it.
 */
function isTokenSeparator(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9 || c === 0xa0 || (c >= 0x2002 && c <= 0x2005) || c === 0x2009 || c === 0x200a || c === 0x202f || c === 0x205f;
}

/**
 * Whether most of text[start, end) is in a script written without spaces between words (CJK
 * ideographs, kana, Hangul, Thai, Lao, Khmer, Myanmar, full-width forms): such a run is prose.
 */
function isSpacelessScript(text: string, start: number, end: number): boolean {
  let spaceless = 0;
  // A sample of the run is enough to tell prose from a blob; the run may be megabytes long.
  const stride = Math.max(1, Math.floor((end - start) / 512));
  let seen = 0;
  for (let i = start; i < end; i += stride) {
    const c = text.charCodeAt(i);
    seen++;
    if ((c >= 0x0e00 && c <= 0x0eff) || (c >= 0x1000 && c <= 0x109f) || (c >= 0x1780 && c <= 0x17ff) || (c >= 0x3000 && c <= 0x30ff) || (c >= 0x3400 && c <= 0x4dbf) || (c >= 0x4e00 && c <= 0x9fff) || (c >= 0xac00 && c <= 0xd7af) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0xff00 && c <= 0xffef)) spaceless++;
  }
  return spaceless * 2 >= seen;
}

/** Text with its over-long tokens cut, and the way back to offsets of the original. */
export interface CappedText {
  readonly text: string;
  /** How many tokens were cut (runs of spaceless-script prose are split, not cut, and not counted). */
  readonly cut: number;
  /** Maps an offset into `text` to the offset of the same place in the original. */
  toOriginal(offset: number): number;
}

const identity = (offset: number): number => offset;

/**
 * Cuts every run of token characters longer than `maxTokenChars` to its first
 * `maxTokenChars − 1` characters followed by "…", so the result holds no token longer
 * than `maxTokenChars` (and cutting again changes nothing). Runs mostly in a script written
 * without spaces (Chinese, Japanese, Korean, Thai…) are prose, not blobs: they are kept whole,
 * split by a space every `maxTokenChars − 1` characters. Linear in the text: wink-nlp's
 * tokenizer is quadratic in the length of one token (a 100,000-character token took 42 s).
 */
export function capTokens(text: string, maxTokenChars: number): CappedText {
  if (text.length <= maxTokenChars) return { text, cut: 0, toOriginal: identity };
  const parts: string[] = [];
  // After the i-th cut, offsets at or past `at[i]` in the result are `shift[i]` behind the original.
  const at: number[] = [];
  const shift: number[] = [];
  let last = 0;
  let removed = 0;
  let cut = 0;
  // A plain scan: a regular expression over a megabyte-long run can exhaust the stack.
  let i = 0;
  while (i < text.length) {
    while (i < text.length && isTokenSeparator(text.charCodeAt(i))) i++;
    const start = i;
    while (i < text.length && !isTokenSeparator(text.charCodeAt(i))) i++;
    if (i - start <= maxTokenChars) continue;
    const end = i;
    if (isSpacelessScript(text, start, end)) {
      // Chinese, Japanese, Korean or Thai text has no spaces between words: the run is prose, not
      // a blob. Keep all of it, with a space every maxTokenChars − 1 characters for the tokenizer.
      const step = Math.max(2, maxTokenChars - 1);
      let p = start + step;
      while (p < end) {
        const before = text.charCodeAt(p - 1);
        const at0 = before >= 0xd800 && before <= 0xdbff ? p - 1 : p; // never split a surrogate pair
        parts.push(text.slice(last, at0), " ");
        last = at0;
        // The inserted space sits at result offset at0 − removed; what follows it is one further on.
        at.push(at0 - removed + 1);
        removed -= 1;
        shift.push(removed);
        p = at0 + step;
      }
      continue;
    }
    let keep = maxTokenChars - 1;
    // Never split a surrogate pair.
    const lastKept = text.charCodeAt(start + keep - 1);
    if (keep > 0 && lastKept >= 0xd800 && lastKept <= 0xdbff) keep--;
    parts.push(text.slice(last, start + keep), TOKEN_CUT_MARK);
    at.push(start + keep + TOKEN_CUT_MARK.length - removed);
    removed += end - start - keep - TOKEN_CUT_MARK.length;
    shift.push(removed);
    cut++;
    last = end;
  }
  if (at.length === 0) return { text, cut: 0, toOriginal: identity };
  parts.push(text.slice(last));
  return {
    text: parts.join(""),
    cut,
    toOriginal(offset: number): number {
      // The last cut at or before the offset (binary search: cuts are in text order).
      let lo = 0;
      let hi = at.length - 1;
      let found = -1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if ((at[mid] ?? Infinity) <= offset) {
          found = mid;
          lo = mid + 1;
        } else hi = mid - 1;
      }
      return found < 0 ? offset : offset + (shift[found] ?? 0);
    },
  };
}

/**
 * Where to cut `text` so that at most `max` characters remain: after the last line break
 * or sentence end in the second half of the allowance, else at the last whitespace there,
 * else at `max` (never inside a surrogate pair). Returns `text.length` when it fits.
 */
export function cutPoint(text: string, max: number): number {
  if (text.length <= max) return text.length;
  const floor = Math.floor(max / 2);
  let space = -1;
  for (let i = max; i > floor; i--) {
    const c = text.charCodeAt(i);
    // A whitespace character at i: cut before it, keeping text[0, i).
    if (c === 10 || c === 13) return i;
    if (c === 32 || c === 9 || c === 0xa0) {
      const before = text[i - 1] ?? "";
      if (/[.!?;]/.test(before) || (/["'”’)\]]/.test(before) && /[.!?]/.test(text[i - 2] ?? ""))) return i;
      if (space < 0) space = i;
    }
  }
  if (space >= 0) return space;
  const c = text.charCodeAt(max - 1);
  return c >= 0xd800 && c <= 0xdbff ? max - 1 : max;
}

/** The text after `from` without its leading and trailing whitespace, as offsets. */
export function restSpan(text: string, from: number): { start: number; end: number } {
  const tail = text.slice(from);
  const lead = tail.search(/\S/);
  if (lead < 0) return { start: text.length, end: text.length };
  return { start: from + lead, end: from + tail.trimEnd().length };
}

/**
 * Cuts the over-long tokens of one text, then the text at `maxChars` (on a boundary, as
 * `cutPoint`), for texts whose offsets nobody reads back (resamples, the question); says
 * which limits applied.
 */
export function limitText(text: string, maxChars: number, maxTokenChars: number): { text: string; limits: LimitName[] } {
  const limits: LimitName[] = [];
  const capped = capTokens(text, maxTokenChars);
  if (capped.cut > 0) limits.push("token_chars");
  let kept = capped.text;
  if (kept.length > maxChars) {
    const cut = cutPoint(kept, maxChars);
    if (/\S/.test(kept.slice(cut))) limits.push("answer_chars");
    kept = kept.slice(0, cut);
  }
  return { text: kept, limits };
}
