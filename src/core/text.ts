import winkNLP from "wink-nlp";
import type { WinkMethods } from "wink-nlp";
import { DEFAULT_MAX_TOKEN_CHARS, capTokens } from "./limits.ts";
import { englishModel } from "./wink-model.ts";

/**
 * One token of analysed text, with character offsets into the analysed string. A token the
 * analyser cut (longer than its `maxTokenChars`) has the kept characters as `text`, and a
 * "…" token covers the characters it dropped.
 */
export interface Token {
  readonly text: string;
  /** Lowercased surface form. */
  readonly lower: string;
  readonly lemma: string;
  /** wink-nlp token type: word, number, punctuation, currency, tabCRLF, … */
  readonly type: string;
  /** Universal POS tag. */
  readonly pos: string;
  readonly stop: boolean;
  readonly start: number;
  readonly end: number;
}

export interface SentenceSpan {
  /** Index of the first token and one past the last token. */
  readonly tokenStart: number;
  readonly tokenEnd: number;
  readonly start: number;
  readonly end: number;
}

export interface AnalyzedText {
  readonly text: string;
  readonly tokens: readonly Token[];
  readonly sentences: readonly SentenceSpan[];
}

/** Turns text into tokens and sentences. Stateless once created. */
export interface TextAnalyzer {
  analyze(text: string): AnalyzedText;
}

export interface TextAnalyzerOptions {
  readonly model?: Parameters<typeof winkNLP>[0];
  /**
   * Longest token handed to wink-nlp, whose tokenizer is quadratic in the length of one
   * token; longer runs of non-space characters are cut (offsets still point into the
   * analysed text). Default 100. The scorer cuts and reports them before analysis; this is
   * the backstop for every other caller.
   */
  readonly maxTokenChars?: number;
}

/** Creates the wink-nlp based analyser (loading the model takes ~150 ms; share one instance). */
export function createTextAnalyzer(options: TextAnalyzerOptions = {}): TextAnalyzer {
  const maxTokenChars = options.maxTokenChars ?? DEFAULT_MAX_TOKEN_CHARS;
  // Only sentence boundaries and POS (which lemmas need): quantities and negation are
  // read by our own code, and skipping wink's NER and negation pipes halves the cost.
  const nlp: WinkMethods = winkNLP(options.model ?? englishModel(), ["sbd", "pos"]);
  const its = nlp.its;
  return {
    analyze(original: string): AnalyzedText {
      const capped = capTokens(original, maxTokenChars);
      const text = capped.text;
      const doc = nlp.readDoc(text);
      const tokensColl = doc.tokens();
      const values = tokensColl.out(its.value) as string[];
      const types = tokensColl.out(its.type) as string[];
      const pos = tokensColl.out(its.pos) as string[];
      // wink-nlp's typings declare `its.lemma` with an addons parameter that `out` does not accept.
      const lemmas = tokensColl.out(its.lemma as unknown as typeof its.value) as string[];
      const stops = tokensColl.out(its.stopWordFlag) as unknown as boolean[];
      const tokens: Token[] = [];
      let cursor = 0;
      for (let i = 0; i < values.length; i++) {
        const value = values[i] ?? "";
        // wink-nlp keeps token values verbatim, so a forward search recovers offsets.
        const found = text.indexOf(value, cursor);
        const start = found >= 0 ? found : cursor;
        const end = found >= 0 ? start + value.length : cursor;
        cursor = end;
        tokens.push({
          text: value,
          lower: value.toLowerCase(),
          lemma: (lemmas[i] ?? value).toLowerCase(),
          type: types[i] ?? "word",
          pos: pos[i] ?? "X",
          stop: stops[i] ?? false,
          start: capped.cut > 0 ? capped.toOriginal(start) : start,
          end: capped.cut > 0 ? capped.toOriginal(end) : end,
        });
      }
      const sentenceSpans = doc.sentences().out(its.span) as unknown as Array<[number, number]>;
      const sentences: SentenceSpan[] = [];
      for (const [a, b] of sentenceSpans) {
        const first = tokens[a];
        const last = tokens[b];
        if (!first || !last) continue;
        sentences.push({ tokenStart: a, tokenEnd: b + 1, start: first.start, end: last.end });
      }
      return { text: original, tokens, sentences };
    },
  };
}

/** Words that reverse the polarity of a clause. */
export const NEGATION_WORDS: ReadonlySet<string> = new Set([
  "not", "n't", "no", "never", "none", "nobody", "nothing", "neither", "nor", "nowhere", "without", "cannot",
]);

/** True for tokens that carry content: words that are not stop words, and numbers. */
export function isContentToken(t: Token): boolean {
  if (t.type === "number" || t.pos === "NUM") return true;
  if (t.type !== "word") return false;
  if (t.stop || NEGATION_WORDS.has(t.lower)) return false;
  if (t.pos === "PUNCT" || t.pos === "SYM" || t.pos === "SPACE") return false;
  return /[a-z0-9]/i.test(t.text);
}
