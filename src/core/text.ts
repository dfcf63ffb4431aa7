import { createRequire } from "node:module";
import winkNLP from "wink-nlp";
import type { WinkMethods } from "wink-nlp";
import { createByteLru } from "./byte-lru.ts";
import { elidedWord, isFunctionWord, latinLanguage } from "./function-words.ts";
import { DEFAULT_MAX_TOKEN_CHARS, capTokens } from "./limits.ts";
import { asciiDigits, segmentSpaceless } from "./spaceless-scripts.ts";
import { englishModel } from "./wink-model.ts";
import type { AnalyzedText, SentenceSpan, TextAnalyzer, Token } from "./tokens.ts";

export type { AnalyzedText, SentenceSpan, TextAnalyzer, Token } from "./tokens.ts";

export interface TextAnalyzerOptions {
  readonly model?: Parameters<typeof winkNLP>[0];
  /**
   * Longest token handed to wink-nlp, whose tokenizer is quadratic in the length of one
   * token; longer runs of non-space characters are cut (offsets still point into the
   * analysed text). Default 100. The scorer cuts and reports them before analysis; this is
   * the backstop for every other caller.
   */
  readonly maxTokenChars?: number;
  /**
   * Bytes (estimated) of analyses kept for reuse, least recently used out first. Contexts
   * recur across requests and a claim is read by the splitter, the preselector and the backend,
   * so each distinct text is analysed once while it stays in the cache. Default 16 MiB; 0 turns
   * it off. Texts whose analysis alone exceeds the bound are never kept.
   */
  readonly cacheBytes?: number;
}

/** Default byte bound of an analyser's cache of analyses. */
export const DEFAULT_ANALYSIS_CACHE_BYTES = 16 * 1024 * 1024;

/** Estimated bytes an analysis keeps alive: the text (UTF-16) and each token object with its strings. */
function analysisBytes(text: string, tokens: number): number {
  return 2 * text.length + 200 * tokens + 64;
}

/** Title case: one capital, then lower-case letters ("Refunds", not "NASA" or "McDonald"). */
const TITLE_CASE = /^\p{Lu}\p{Ll}+$/u;

/** Cardinal number words, for lemmas: "thirty" is read as "30" wherever it is a number. */
const NUMBER_WORDS: Readonly<Record<string, number>> = {
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18,
  nineteen: 19, twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90,
};

/** The digits a cardinal number word stands for ("thirty-five" → "35"), or undefined. */
export function numberWordLemma(lower: string): string | undefined {
  const v = NUMBER_WORDS[lower];
  if (v !== undefined) return String(v);
  const m = /^([a-z]+)-([a-z]+)$/.exec(lower);
  const tens = m?.[1] !== undefined ? NUMBER_WORDS[m[1]] : undefined;
  const units = m?.[2] !== undefined ? NUMBER_WORDS[m[2]] : undefined;
  if (tens !== undefined && units !== undefined && tens >= 20 && tens % 10 === 0 && units >= 1 && units <= 9) return String(tens + units);
  return undefined;
}

/** The Porter2 English stemmer: wink-porter2-stemmer is one CommonJS function and ships no types. */
const porter2 = createRequire(import.meta.url)("wink-porter2-stemmer") as (word: string) => string;

/** Distinct words whose stem one analyser remembers. */
const MAX_REMEMBERED_STEMS = 32_768;

/** Longest word given to the stemmer (tokens are capped at 100 characters anyway). */
const MAX_STEMMED_CHARS = 40;

/**
 * The Porter2 stem of a lowercase English word, folded further where Porter2 leaves two forms
 * of one word apart: "certifi" (certified, certify) and "certif" (certification), "store" and
 * "storag" (storage), "percent" and "percentag" (percentage). Anything but plain ASCII letters
 * is returned as it is.
 */
export function wordStem(lower: string): string {
  if (lower.length > MAX_STEMMED_CHARS || !/^[a-z]+$/.test(lower)) return lower;
  const s = porter2(lower);
  if (s.endsWith("fi")) return s.slice(0, -1);
  if (s.endsWith("ag") && s.length >= 6) return s.slice(0, -2);
  if (s.endsWith("e") && s.length >= 5) return s.slice(0, -1);
  return s;
}

/** Creates the wink-nlp based analyser (loading the model takes ~150 ms; share one instance). */
export function createTextAnalyzer(options: TextAnalyzerOptions = {}): TextAnalyzer {
  const maxTokenChars = options.maxTokenChars ?? DEFAULT_MAX_TOKEN_CHARS;
  // Only sentence boundaries and POS (which lemmas need): quantities and negation are
  // read by our own code, and skipping wink's NER and negation pipes halves the cost.
  const nlp: WinkMethods = winkNLP(options.model ?? englishModel(), ["sbd", "pos"]);
  const its = nlp.its;
  const cacheBytes = options.cacheBytes ?? DEFAULT_ANALYSIS_CACHE_BYTES;
  const cache = createByteLru<AnalyzedText>(cacheBytes);
  // Words of Chinese, Japanese, Thai…: ICU's word breaking does not depend on the locale named here.
  const segmenter = new Intl.Segmenter("und", { granularity: "word" });
  // Lemmas of lower-cased sentence-initial words (a small, closed set in practice; bounded anyway).
  const initialLemmas = new Map<string, string>();
  /**
   * wink-nlp tags a capitalised sentence-initial word as a proper noun and keeps its surface
   * form as the lemma ("Refunds" → "refunds"), so it never matches the same word inside a
   * sentence ("refund"). Its lemma is taken from the lower-cased word read on its own; a name
   * keeps its own form ("Jones" → "jones", "Paris" → "paris").
   */
  const lemmaOfInitial = (lower: string): string => {
    const known = initialLemmas.get(lower);
    if (known !== undefined) return known;
    const lemma = ((nlp.readDoc(lower).tokens().out(its.lemma as unknown as typeof its.value) as string[])[0] ?? lower).toLowerCase();
    if (initialLemmas.size >= 4096) initialLemmas.delete(initialLemmas.keys().next().value as string);
    initialLemmas.set(lower, lemma);
    return lemma;
  };
  // Stems of words already seen (word frequencies are skewed: most lookups hit; bounded anyway).
  // Keyed by the token as wink-nlp hands it out: a known word is the same string object each
  // time, whose hash is already computed, unlike a freshly lower-cased copy.
  const stems = new Map<string, string>();
  const stemOf = (value: string, lower: string): string => {
    const known = stems.get(value);
    if (known !== undefined) return known;
    const s = wordStem(lower);
    if (stems.size >= MAX_REMEMBERED_STEMS) stems.clear();
    stems.set(value, s);
    return s;
  };
  const analyzeUncached = (original: string): AnalyzedText => {
    // Full-width digits are read as ASCII ones (token texts show them so; offsets are unchanged).
    const read = asciiDigits(original);
    const capped = capTokens(read, maxTokenChars);
    const text = capped.text;
    const doc = nlp.readDoc(text);
    const tokensColl = doc.tokens();
    const values = tokensColl.out(its.value) as string[];
    const types = tokensColl.out(its.type) as string[];
    const pos = tokensColl.out(its.pos) as string[];
    // wink-nlp's typings declare `its.lemma` with an addons parameter that `out` does not accept.
    const lemmas = tokensColl.out(its.lemma as unknown as typeof its.value) as string[];
    const englishStops = tokensColl.out(its.stopWordFlag) as unknown as boolean[];
    // wink-nlp flags English stop words; other languages' function words are flagged too, the
    // Latin-script ones by the language the text's words say it is in (function-words.ts).
    const language = latinLanguage(values);
    const tokens: Token[] = [];
    const sentenceSpans = doc.sentences().out(its.span) as unknown as Array<[number, number]>;
    // The first word of each sentence, past any opening quotes, brackets or list marks.
    const initial = new Set<number>();
    for (const [a, b] of sentenceSpans) {
      for (let k = a; k <= b; k++) {
        const type = types[k];
        if (type === "word") initial.add(k);
        if (type !== "punctuation" && type !== "symbol") break;
      }
    }
    let cursor = 0;
    for (let i = 0; i < values.length; i++) {
      const value = values[i] ?? "";
      // wink-nlp keeps token values verbatim, so a forward search recovers offsets.
      const found = text.indexOf(value, cursor);
      const start = found >= 0 ? found : cursor;
      const end = found >= 0 ? start + value.length : cursor;
      cursor = end;
      const lower = value.toLowerCase();
      // A French word after an elided article is read as the word ("l'envoi" as "envoi").
      const elided = elidedWord(language, lower);
      const stop = (englishStops[i] ?? false) || isFunctionWord(language, elided ?? lower);
      const tag = pos[i] ?? "X";
      let lemma = (lemmas[i] ?? value).toLowerCase();
      if (elided !== undefined) lemma = elided;
      else if (tag === "NUM") lemma = numberWordLemma(lower) ?? lemma;
      else if (tag === "PROPN" && initial.has(i) && TITLE_CASE.test(value)) lemma = lemmaOfInitial(lower);
      tokens.push({
        text: value,
        lower,
        lemma,
        // Stop words are never compared by stem: they keep their lemma (half the stemmer's lookups).
        stem: (types[i] ?? "word") === "word" && !stop && elided === undefined ? stemOf(value, lower) : lemma,
        type: types[i] ?? "word",
        pos: tag,
        stop,
        // Mapped even when nothing was cut: a run of spaceless script split with spaces moves offsets too.
        start: capped.toOriginal(start),
        end: capped.toOriginal(end),
      });
    }
    const sentences: SentenceSpan[] = [];
    for (const [a, b] of sentenceSpans) {
      const first = tokens[a];
      const last = tokens[b];
      if (!first || !last) continue;
      sentences.push({ tokenStart: a, tokenEnd: b + 1, start: first.start, end: last.end });
    }
    // Runs of scripts written without spaces are cut into words, and their sentences at 。！？.
    return { text: original, ...segmentSpaceless(read, tokens, sentences, segmenter) };
  };
  return {
    analyze(original: string): AnalyzedText {
      const hit = cache.get(original);
      if (hit) return hit;
      const doc = analyzeUncached(original);
      cache.set(original, doc, analysisBytes(original, doc.tokens.length));
      return doc;
    },
  };
}

/** Words that reverse the polarity of a clause. */
export const NEGATION_WORDS: ReadonlySet<string> = new Set([
  "not", "n't", "no", "never", "none", "nobody", "nothing", "neither", "nor", "nowhere", "without", "cannot",
]);

/** True for tokens that carry content: words (in any script) that are not stop words, and numbers. */
export function isContentToken(t: Token): boolean {
  if (t.type === "number" || t.pos === "NUM") return true;
  // wink-nlp types words of other scripts (Cyrillic, Greek, CJK…) "unk": they carry content too.
  if (t.type !== "word" && t.type !== "unk") return false;
  if (t.stop || NEGATION_WORDS.has(t.lower)) return false;
  if (t.pos === "PUNCT" || t.pos === "SYM" || t.pos === "SPACE") return false;
  return startsAlnum(t.text) || LETTER_OR_DIGIT.test(t.text);
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** An ASCII letter or digit first: most words are decided without the Unicode pattern. */
function startsAlnum(text: string): boolean {
  const c = text.charCodeAt(0) | 0x20;
  return (c >= 97 && c <= 122) || (text.charCodeAt(0) >= 48 && text.charCodeAt(0) <= 57);
}

/** The first index in [0, n) whose value is ≥ `at`, for values ascending in the index (binary search). */
function firstAtOrAfter(n: number, valueAt: (i: number) => number, at: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (valueAt(mid) < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The part of an analysis inside [start, end) of its text: the tokens that lie wholly inside,
 * and the sentences cut to them. Tokens are shared, not copied, and keep their offsets into the
 * whole text (which `text` still is), so a window of a document is read without analysing it
 * again. Logarithmic in the document's tokens, linear in the part's.
 */
export function sliceAnalysis(doc: AnalyzedText, start: number, end: number): AnalyzedText {
  const { tokens } = doc;
  const from = firstAtOrAfter(tokens.length, (i) => tokens[i]?.start ?? 0, start);
  let to = from;
  while (to < tokens.length && (tokens[to]?.end ?? Infinity) <= end) to++;
  const sentences: SentenceSpan[] = [];
  let s = firstAtOrAfter(doc.sentences.length, (i) => doc.sentences[i]?.tokenEnd ?? 0, from + 1);
  for (; s < doc.sentences.length; s++) {
    const span = doc.sentences[s];
    if (!span || span.tokenStart >= to) break;
    const a = Math.max(span.tokenStart, from);
    const b = Math.min(span.tokenEnd, to);
    const first = tokens[a];
    const last = tokens[b - 1];
    if (first && last && b > a) sentences.push({ tokenStart: a - from, tokenEnd: b - from, start: first.start, end: last.end });
  }
  return { text: doc.text, tokens: tokens.slice(from, to), sentences };
}
