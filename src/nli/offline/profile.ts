/** What the offline backend knows about one text (computed once per text by `profileText`), and the word indexes in it. */
import type { Quantity } from "../../core/quantities.ts";
import type { Token } from "../../core/text.ts";
import type { MentionClause } from "./mentions.ts";
import type { Paraphrases } from "./paraphrase.ts";
import type { SwapMemo } from "./subject-swap.ts";

/**
 * Which ordered pairs of content words a text has at most three words apart, as lemmas and as
 * stems. Words are numbered per text and a pair is one number, so building it allocates no
 * string per pair (a window of 400 words has ~1,200 pairs of each).
 */
export interface WordPairs {
  readonly lemmaIds: ReadonlyMap<string, number>;
  readonly stemIds: ReadonlyMap<string, number>;
  readonly lemmaPairs: ReadonlySet<number>;
  readonly stemPairs: ReadonlySet<number>;
  /** Ids of the paraphrase groups (after the stem ids), and the pairs with a word in a group, a word counted by its group. */
  readonly senseIds: ReadonlyMap<string, number>;
  readonly sensePairs: ReadonlySet<number>;
}

/** A text's words (lowercased, stop words too) and which of them are written one after the other, separated by one space. */
export interface WordAdjacency {
  readonly ids: ReadonlyMap<string, number>;
  readonly adjacent: ReadonlySet<number>;
}

/** What the feature extractor needs to know about one text, computed once per text. */
export interface TextProfile {
  readonly words: readonly Token[];
  readonly lemmas: ReadonlySet<string>;
  readonly lowers: ReadonlySet<string>;
  /** Ordered pairs of content lemmas, and of their stems, at most three content words apart (see `hasPair`). */
  readonly pairs: WordPairs;
  /** Derivational stems of the content words ("certif" for certified and certification). */
  readonly stems: ReadonlySet<string>;
  /** The paraphrase group of each word in one, and the groups the text states ("weekdays" for "Monday to Friday"). */
  readonly paraphrases: Paraphrases;
  /** Lemmas of the words used as verbs ("refund" in "refunded"): a support verb's noun stated as a verb. */
  readonly verbs: ReadonlySet<string>;
  /**
   * Every word (stop words too) and which words are written next to each other, so a joined form
   * ("anytime") matches a split one ("any time") and the reverse (see `compoundOf`).
   */
  readonly compounds: WordAdjacency;
  readonly quantities: readonly Quantity[];
  /** Content lemmas outside every quantity (not "day" in "30 days"): what a quantity is aligned by. */
  readonly otherLemmas: ReadonlySet<string>;
  /**
   * Per quantity (in the order of `quantities`): the content lemmas of its clause, when its
   * sentence holds two or more quantities (see `quantityClauses`); undefined otherwise.
   */
  readonly quantityClauses: ReadonlyArray<ReadonlySet<string> | undefined>;
  /**
   * Per sentence: content lemmas and surface forms, the lemmas a negation covers, its
   * quantities and, where it holds two or more, each one's clause lemmas, and its subject.
   */
  readonly sentences: ReadonlyArray<{
    lemmas: ReadonlySet<string>;
    lowers: ReadonlySet<string>;
    negated: ReadonlySet<string>;
    quantities: readonly Quantity[];
    quantityClauses?: ReadonlyArray<ReadonlySet<string>>;
    /** Content lemmas of its subject, what its numbers are about (see `sentenceSubject`). */
    subject?: ReadonlySet<string>;
  }>;
  /** Its clauses, each with the names and plan, tier or version mentions it is about (see `mentionClauses`). */
  readonly mentionClauses: readonly MentionClause[];
  /** Content lemmas in the scope of a negation anywhere in the text. */
  readonly negated: ReadonlySet<string>;
  /** Distinct content lemmas with a vector, for soft matching. */
  readonly vocab: readonly string[];
  /**
   * Soft-match scores of words already compared with this text (a word against every vocab
   * entry is the costliest feature; texts recur as windows across claims and rows). Bounded.
   */
  readonly softMemo: Map<string, number>;
  /** Its clauses' mentions resolved, once, when it is the evidence of a claim that names something (see `subjectSwap`). */
  readonly swapMemo: SwapMemo;
}
