/**
 * A recipe says how one detector family is fed and read: what text the model sees for a
 * (premise, hypothesis) pair, what is cut or chunked to fit, where the answer is read, which
 * output means "supported", and how that becomes groundwatch's entailment/neutral/contradiction.
 * The recipes themselves are in onnx.ts (local graphs) and judge.ts (chat models); this file only
 * names their parts.
 */

/** Where the premise and hypothesis go in the text a model reads. */
export type RecipeInput =
  /** The tokenizer's own pair template (tokenizer.json's post-processor): [CLS] premise [SEP] hypothesis [SEP]. */
  | { readonly kind: "pair" }
  /**
   * One text built from `template` ({premise}, {hypothesis} and {eos} slots; {eos} is the tokenizer's
   * eos_token, e.g. `</s>` for RoBERTa and T5, `[SEP]` for DeBERTa-v3), tokenised whole with the
   * tokenizer's single-text template (its special tokens around it); token type ids all 0.
   */
  | { readonly kind: "text"; readonly template: string };

/** How a premise too long for the model is split; each chunk is scored with the whole hypothesis. */
export interface RecipeChunking {
  /**
   * What `size` counts in a sentence: `words`, its whitespace-separated words; `tokens`, the model
   * tokenizer's ids for it without special tokens; `word-tokens`, its words and punctuation marks
   * counted apart (runs of letters, digits and "_", and each other non-space character: groundwatch's
   * approximation of nltk.word_tokenize).
   */
  readonly unit: "words" | "tokens" | "word-tokens";
  /** Most units of the premise in one chunk. */
  readonly size: number;
  /** What a chunk's sentences are joined with: " " (MiniCheck) or "\n" (FactCG). */
  readonly joiner: string;
  /** How the chunks' results become one: the reference code's rule (max of the supported probability). */
  readonly combine: "max";
}

/** Where the model's answer is read. */
export type RecipeOutput =
  /** A sequence classifier's logits, [batch, labels]. */
  | { readonly kind: "pooled" }
  /** A token classifier's logits, [batch, sequence, labels], read at position 0 (HHEM). */
  | { readonly kind: "token0" }
  /**
   * A seq2seq model run for one decoder step from `decoderStartId`; softmax over the two label
   * tokens' logits (their vocabulary ids, as the reference code reads them) (MiniCheck-Flan-T5).
   */
  | { readonly kind: "decoder-step"; readonly decoderStartId: number; readonly supportedId: number; readonly unsupportedId: number };

/** Which output means what. */
export type RecipeLabels =
  /** An NLI model: columns mapped by their names in config.json (entailment, neutral, contradiction; or entailment, not_entailment). */
  | { readonly kind: "nli" }
  /**
   * A binary detector: column `supported` is "supported", the other "not supported". Label names
   * in config.json, when they are not generic LABEL_n, must be among `aliases` (checked, never
   * ignored). Its "not supported" mass is neutral: a binary detector cannot see a contradiction.
   * For a `decoder-step` output the columns are [unsupportedId, supportedId]'s logits, in that order.
   */
  | { readonly kind: "binary"; readonly supported: number; readonly aliases: { readonly supported: readonly string[]; readonly unsupported: readonly string[] } }
  /** A relevance cross-encoder: one logit per pair, read as its sigmoid (not an NLI answer). */
  | { readonly kind: "relevance" };

/** How a recipe is recognised without the user naming it. */
export interface RecipeRecognition {
  /** Repository names (owner/name, or the name alone) the recipe belongs to, as lower-case patterns. */
  readonly repos: readonly RegExp[];
  /** config.json `architectures` entries, any of which marks the family. */
  readonly architectures?: readonly string[];
  /** config.json `model_type` values the family has (checked, not sufficient alone). */
  readonly modelTypes?: readonly string[];
}

/** A detector family on the ONNX tier. */
export interface OnnxRecipe {
  /** The name users give with --recipe, GROUNDWATCH_RECIPE or `recipe` in the config file. */
  readonly name: string;
  /** The family in words, for `model info` and docs/models.md. */
  readonly description: string;
  readonly input: RecipeInput;
  /** When the input does not fit: the premise is cut (the hypothesis never is), or the longer of the two first (NLI pairs). */
  readonly cut: "premise" | "longest-first";
  /**
   * The maximum length in tokens the reference code uses. It replaces config.json's and the
   * tokenizer's for encoders with relative positions (DeBERTa-v2/v3, T5); a model with absolute
   * positions never reads past them (RoBERTa: max_position_embeddings − 2).
   */
  readonly maxLength?: number;
  /** Premise chunking, as the reference code chunks documents; absent: one pass, cut to fit. */
  readonly chunking?: RecipeChunking;
  readonly output: RecipeOutput;
  readonly labels: RecipeLabels;
  /** A repository whose tokenizer files the model uses when its own repository ships none (HHEM: google/flan-t5-base). */
  readonly tokenizerFrom?: string;
  readonly recognise: RecipeRecognition;
  /** Where the template, label order and chunking were read: file and line of the reference code. */
  readonly reference: string;
}

/**
 * How a judge recipe's reply is read. Every mode is strict: a reply it cannot read is an error
 * (JudgeReplyError), never a guess.
 */
export type JudgeReplyMode =
  /** Exactly one label word: ENTAILMENT, NEUTRAL or CONTRADICTION (groundwatch's own prompt). */
  | "nli-label"
  /**
   * One generated token, "Yes" or "No"; P(supported) = the sum of exp(logprob) over that token's
   * top logprobs whose text, trimmed and lower-cased, is "yes" (Bespoke-MiniCheck). The reply is
   * one token by design, so finish_reason "length" is expected, not a truncation.
   */
  | "yes-no-logprobs"
  /**
   * `<score> yes </score>` (a risk: not grounded) or `<score> no </score>` (grounded), after an
   * optional `<think>…</think>`; a probability from the score token's top logprobs when the
   * server sent them, else 1 or 0 (Granite Guardian).
   */
  | "score-tag"
  /** A JSON object whose "SCORE" is "PASS" (supported) or "FAIL", possibly inside a ``` fence (Lynx). */
  | "pass-fail-json";

/** A detector family on the judge tier: a chat model served behind an OpenAI-compatible endpoint (vLLM, Ollama). */
export interface JudgeRecipe {
  /** The name users give with --recipe, GROUNDWATCH_RECIPE or `recipe` in the config file. */
  readonly name: string;
  /** The family in words, for docs/models.md and error messages. */
  readonly description: string;
  /** The system message; absent: none is sent. */
  readonly system?: string;
  /** The one message the pair fills: its role, and its text with {premise} and {hypothesis} slots. */
  readonly message: { readonly role: "user" | "assistant"; readonly template: string };
  /**
   * How the slots are filled: "fenced" defuses any fence inside the texts (the template fences them
   * as data); "verbatim" puts them in as they are, because the model was trained on this exact prompt.
   */
  readonly slots: "fenced" | "verbatim";
  /**
   * "documents": the premise is also sent as the request's top-level `documents` field,
   * `[{ doc_id: "0", text: premise }]`, which vLLM hands to the chat template (Granite Guardian).
   */
  readonly premiseAs?: "documents";
  /** Sent as the request's `chat_template_kwargs` (vLLM passes them to the chat template; Ollama ignores the field). */
  readonly chatTemplateKwargs?: Readonly<Record<string, unknown>>;
  /** The reply's token limit (`max_tokens`). */
  readonly maxTokens: number;
  /** Sent as `top_logprobs`, with `logprobs: true`; absent: no logprobs are asked for. */
  readonly topLogprobs?: number;
  /** How the reply is read. */
  readonly reply: JudgeReplyMode;
  /** Where the prompt and the reading were taken from: file and line of the reference code. */
  readonly reference: string;
}
