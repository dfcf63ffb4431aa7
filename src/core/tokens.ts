/** The shapes of analysed text: tokens, sentences, and the analyser that makes them (core/text.ts). */

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
  /**
   * Derivational stem of an English word (see `wordStem`): "certified" and "certification",
   * "store" and "storage" share one. Other tokens, and stop words, keep their lemma.
   */
  readonly stem: string;
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

/** Turns text into tokens and sentences. Deterministic: the same text always gets the same analysis (cached or not). */
export interface TextAnalyzer {
  analyze(text: string): AnalyzedText;
}
