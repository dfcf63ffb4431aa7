import { JUDGE_API_KEY_ENV_NAME, SCORE_ENV_NAMES } from "./env.ts";
import { DEFAULT_NLI_CACHE_BYTES } from "../core/nli-cache.ts";
import type { TriageThresholds } from "../core/result.ts";
import { DEFAULT_CASCADE_THRESHOLDS, DEFAULT_LIMITS, DEFAULT_SETTINGS } from "./defaults.ts";
import { ConfigError } from "./errors.ts";
import { numberIn, oneOf, parseBoolean, parseNonEmpty } from "./parse.ts";
import type { FieldReader, ValueSource } from "./resolve.ts";
import { fieldReader } from "./resolve.ts";
import { checkVariant } from "./variant.ts";

/** Entailment backends: embedded heuristic, local ONNX model, LLM judge, or the best available. */
export const BACKEND_CHOICES = ["auto", "offline", "onnx", "judge", "spans"] as const;

/** The prompt languages a span detector reads (LettuceDetect's prompt files). */
export const SPAN_LANGUAGES = ["en", "de", "fr", "es", "it", "pl", "cn", "hu"] as const;
export type SpanLanguage = (typeof SPAN_LANGUAGES)[number];
export type BackendChoice = (typeof BACKEND_CHOICES)[number];

/** How answers are scored. Every field is optional; see `resolveScoreOptions` for the order. */
export interface ScoreOptions {
  /**
   * auto (default: onnx when a model is configured or cached, else offline), offline, onnx, judge, or spans (the span
   * detector `spanModel` alone). Env GROUNDWATCH_BACKEND.
   * onnx needs the optional peer onnxruntime-node (`npm install onnxruntime-node`); without it, auto with only the
   * default model cached falls back to offline with a warning, and onnx (or a configured model) is a ConfigError.
   */
  readonly backend?: string;
  /** ONNX model: a directory, or a Hugging Face repo id already pulled into the cache. Env GROUNDWATCH_MODEL. */
  readonly model?: string;
  /**
   * ONNX graph to load: auto (default: the int8 graph for this CPU, else a generic int8 graph, else fp32), fp32, int8,
   * quantized (the generic int8 graph), or a graph's file name; fp16 and q4 are refused on the CPU unless named by file.
   * Env GROUNDWATCH_MODEL_VARIANT.
   */
  readonly variant?: string;
  /**
   * How the model is fed and read, by recipe name: for the onnx backend nli, factcg, minicheck-roberta, minicheck-deberta,
   * minicheck-flan-t5 or hhem (default: recognised from the model's repository name and config.json); for the judge,
   * its judge recipes. Checked by the backend that reads it (an unknown name is an error on recipe). Env GROUNDWATCH_RECIPE.
   */
  readonly recipe?: string;
  /**
   * ONNX relevance cross-encoder (one logit per (question, passage) pair, e.g. cross-encoder/ms-marco-MiniLM-L-6-v2 or
   * BAAI/bge-reranker-base): a directory, or a repo id already pulled; its graph is chosen by `variant` when that names a kind.
   * Used by the onnx backend; without it, onnx measures relevance with the offline backend's lexical relevance. Env GROUNDWATCH_RELEVANCE_MODEL.
   */
  readonly relevanceModel?: string;
  /**
   * Span detector (an ONNX token-classification model such as LettuceDetect or TinyLettuce): a directory, or a repo id
   * already pulled. With backend `spans` it is the only detector (alone); with any other backend it runs once per answer
   * and marks the words to distrust in the claim detector's claims (refine). Env GROUNDWATCH_SPAN_MODEL.
   */
  readonly spanModel?: string;
  /**
   * Probability in [0, 1] at or above which a token is unsupported. Refine mode: default the detector's fitted one,
   * else a calibration's, else 0.5. Backend `spans`: it is 1 − the answer threshold (setting it sets the answer
   * threshold when none is set). Env GROUNDWATCH_SPAN_THRESHOLD.
   */
  readonly spanThreshold?: number;
  /** The span detector's prompt language: en (default), de, fr, es, it, pl, cn or hu. Env GROUNDWATCH_SPAN_LANGUAGE. */
  readonly spanLanguage?: string;
  /** Refuse to start on a triage-tier backend. Env GROUNDWATCH_REQUIRE_PRODUCTION=1. */
  readonly requireProduction?: boolean;
  /** Answer threshold in [0, 1]; default: the backend's fitted threshold, else 0.5. Env GROUNDWATCH_THRESHOLD. */
  readonly threshold?: number;
  /** Context windows checked per claim, 1–50. Default 3. Env GROUNDWATCH_TOP_K. */
  readonly topK?: number;
  /** Largest context window in estimated model tokens, 16–8192. Default 400. Env GROUNDWATCH_TOKEN_BUDGET. */
  readonly tokenBudget?: number;
  /** onnxruntime intra-op threads per worker, 1–64. Env GROUNDWATCH_ONNX_THREADS. */
  readonly onnxThreads?: number;
  /** Inference worker threads, 1–16. Default 1. Env GROUNDWATCH_ONNX_WORKERS. */
  readonly onnxWorkers?: number;
  /** Most pairs in one ONNX inference call, gathered from every observation in flight, 1–256. Default 32. Env GROUNDWATCH_ONNX_MAX_BATCH. */
  readonly onnxMaxBatch?: number;
  /**
   * The wait bound, 0–1000 ms: the longest a pair waits for other observations' pairs to fill its batch while an
   * inference worker is idle. 0 = never wait (what queues while the workers are busy is still batched together).
   * Default 5. Env GROUNDWATCH_ONNX_BATCH_WAIT_MS.
   */
  readonly onnxBatchWaitMs?: number;
  /** Judge: OpenAI-compatible base URL, e.g. https://api.openai.com/v1. Env GROUNDWATCH_JUDGE_URL. */
  readonly judgeUrl?: string;
  /** Judge: chat model name. Env GROUNDWATCH_JUDGE_MODEL. */
  readonly judgeModel?: string;
  /** Judge: most calls per run, 1–10 000 000. Default 1000. Env GROUNDWATCH_JUDGE_BUDGET. */
  readonly judgeBudget?: number;
  /** Judge: calls in flight, 1–64. Default 4. Env GROUNDWATCH_JUDGE_CONCURRENCY. */
  readonly judgeConcurrency?: number;
  /** Normalised semantic entropy at or above which an answer with resamples fails, in [0, 1]. Default 0.5. Env GROUNDWATCH_ENTROPY_THRESHOLD. */
  readonly entropyThreshold?: number;
  /** "either" (default: fail when ungrounded or uncertain) or "groundedness-only". Env GROUNDWATCH_COMBINED_POLICY. */
  readonly combinedPolicy?: string;
  /**
   * With resamples, a claim of the answer entailed by fewer than this share of them is unstable (listed in
   * `unstableClaims`), in [0, 1]; 0 flags none. Default 0.5. Env GROUNDWATCH_UNSTABLE_SHARE.
   */
  readonly unstableShare?: number;
  /**
   * Make the combined verdict fail when a claim is unstable, and be unscorable when claim stability could not be
   * measured (identical or too few resamples, claims past the entailment budget). Default false: unstable claims
   * are reported, not gated on. Env GROUNDWATCH_FAIL_ON_UNSTABLE_CLAIMS.
   */
  readonly failOnUnstableClaims?: boolean;
  /** Most entailment pairs one entropy measurement may send, 1–1 000 000; over it, entropy is unreliable and nothing is sent. Default 500. Env GROUNDWATCH_ENTROPY_MAX_CALLS. */
  readonly entropyMaxCalls?: number;
  /** GroundednessSettings.maxClaims (core/result.ts), 1–10 000. Default 100. Env GROUNDWATCH_MAX_CLAIMS. */
  readonly maxClaims?: number;
  /** GroundednessSettings.maxAnswerChars (core/result.ts), 100–10 000 000 characters; resamples and the question are cut the same way. Default 20 000. Env GROUNDWATCH_MAX_ANSWER_CHARS. */
  readonly maxAnswerChars?: number;
  /** GroundednessSettings.maxContextChars (core/result.ts), 1000–100 000 000. Default 200 000. Env GROUNDWATCH_MAX_CONTEXT_CHARS. */
  readonly maxContextChars?: number;
  /** GroundednessSettings.maxDocuments (core/result.ts), 1–100 000. Default 200. Env GROUNDWATCH_MAX_DOCUMENTS. */
  readonly maxDocuments?: number;
  /** GroundednessSettings.maxTokenChars (core/result.ts), 16–10 000. Default 100. Env GROUNDWATCH_MAX_TOKEN_CHARS. */
  readonly maxTokenChars?: number;
  /** Most resamples measured for semantic entropy, 2–1000; later ones are ignored (limit "samples"). Default 20. Env GROUNDWATCH_MAX_SAMPLES. */
  readonly maxSamples?: number;
  /** GroundednessSettings.maxEntailmentCalls (core/result.ts), per observation: groundedness, entropy and claim consistency together, 1–1 000 000; entropy without enough left is unreliable. Default 1000. Env GROUNDWATCH_MAX_ENTAILMENT_CALLS. */
  readonly maxEntailmentCalls?: number;
  /** Estimated bytes of text analyses and document windows a scorer keeps for reuse (recurring documents and claims are read once), 0–4 294 967 296, half each; 0 turns caching off. Default 33 554 432 (32 MiB) per scorer: per SDK worker, per collector, per CLI run. Env GROUNDWATCH_CACHE_BYTES. */
  readonly cacheBytes?: number;
  /** Estimated bytes of entailment judgements a scorer keeps for reuse across observations (groundedness, semantic entropy and claim consistency share them; keyed by the backend's version), 0–1 073 741 824; 0 turns it off. Default 16 777 216 (16 MiB) per scorer. Env GROUNDWATCH_NLI_CACHE_BYTES. */
  readonly nliCacheBytes?: number;
  /** Measure context and answer relevance and name the cause of each ungrounded answer (retrieval, generation, citation, mixed). Default true. Env GROUNDWATCH_RELEVANCE. */
  readonly relevance?: boolean;
  /** Context relevance in [0, 1] below which the retrieved documents do not address the question (or claim): the cause is retrieval. Default: the backend's fitted one. Env GROUNDWATCH_CONTEXT_RELEVANCE_THRESHOLD. */
  readonly contextRelevanceThreshold?: number;
  /** Answer relevance in [0, 1] below which an answer is off-topic (reported, not part of the verdict). Default: the backend's fitted one. Env GROUNDWATCH_ANSWER_RELEVANCE_THRESHOLD. */
  readonly answerRelevanceThreshold?: number;
  /**
   * The cascade: with a model backend (onnx or judge), the offline tier scores every claim first and a claim it is
   * sure of is decided without a model call (cited and likely contradicted claims always go to the model). Default
   * false. Ignored on the offline backend. Env GROUNDWATCH_CASCADE.
   */
  readonly cascade?: boolean;
  /** With the cascade: a claim the offline tier scores at or above this, in [0, 1], is supported without a model call. 1 turns this side off. Default: a calibration's, else 1. Env GROUNDWATCH_CASCADE_SUPPORT_ABOVE. */
  readonly cascadeSupportAbove?: number;
  /** With the cascade: a claim the offline tier scores at or below this, in [0, 1] and below cascadeSupportAbove, is unsupported without a model call. 0 turns this side off. Default: a calibration's, else 0. Env GROUNDWATCH_CASCADE_UNSUPPORT_BELOW. */
  readonly cascadeUnsupportBelow?: number;
}

export interface ResolvedScoreOptions {
  readonly backend: BackendChoice;
  readonly model: string | undefined;
  readonly variant: string | undefined;
  /** The recipe named, or undefined: the backend recognises one. */
  readonly recipe: string | undefined;
  readonly relevanceModel: string | undefined;
  readonly spanModel: string | undefined;
  /** Undefined means "the detector's fitted one, else a calibration's, else 0.5" (refine), "1 − the answer threshold" (spans). */
  readonly spanThreshold: number | undefined;
  readonly spanLanguage: SpanLanguage;
  readonly requireProduction: boolean;
  /** Undefined means "use the backend's recommended threshold". */
  readonly threshold: number | undefined;
  readonly topK: number;
  readonly tokenBudget: number;
  readonly onnxThreads: number | undefined;
  readonly onnxWorkers: number;
  readonly onnxMaxBatch: number;
  readonly onnxBatchWaitMs: number;
  readonly judgeUrl: string | undefined;
  readonly judgeModel: string | undefined;
  readonly judgeBudget: number;
  readonly judgeConcurrency: number;
  readonly entropyThreshold: number;
  readonly combinedPolicy: "either" | "groundedness-only";
  readonly unstableShare: number;
  readonly failOnUnstableClaims: boolean;
  readonly entropyMaxCalls: number;
  readonly maxClaims: number;
  readonly maxAnswerChars: number;
  readonly maxContextChars: number;
  readonly maxDocuments: number;
  readonly maxTokenChars: number;
  readonly maxSamples: number;
  readonly maxEntailmentCalls: number;
  readonly cacheBytes: number;
  readonly nliCacheBytes: number;
  readonly relevance: boolean;
  /** Undefined means "use the backend's recommended relevance thresholds". */
  readonly contextRelevanceThreshold: number | undefined;
  readonly answerRelevanceThreshold: number | undefined;
  readonly cascade: boolean;
  /** Undefined means "a calibration's, else DEFAULT_CASCADE_THRESHOLDS" (cascadeThresholds). */
  readonly cascadeSupportAbove: number | undefined;
  readonly cascadeUnsupportBelow: number | undefined;
}

/** Environment variable for each option (config/env.ts SCORE_ENV_NAMES). The judge's API key is read from env only (JUDGE_API_KEY_ENV). */
export const SCORE_ENV = SCORE_ENV_NAMES satisfies Record<keyof ScoreOptions, string>;

export const JUDGE_API_KEY_ENV = JUDGE_API_KEY_ENV_NAME;

/** Option keys a config file's "scoring" section may hold. */
export const SCORE_OPTION_KEYS: ReadonlySet<string> = new Set(Object.keys(SCORE_ENV));

/** Resolved scoring options, and where each came from. */
export interface ScoreResolution {
  readonly values: ResolvedScoreOptions;
  /** For each option: a code option (or CLI flag), the environment, the config file's scoring section, or the default. */
  readonly sources: Readonly<Record<keyof ScoreOptions, ValueSource>>;
}

/** Where resolveScoreOptions reads: the environment and the config file's scoring section. */
export interface ScoreSources {
  /** The environment (SCORE_ENV names). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The config file's "scoring" section. */
  readonly file?: ScoreOptions;
}

/**
 * Resolves scoring options in one order: code option > environment variable > config file
 * section > default, and says where each value came from. Throws a ConfigError naming the field
 * and value.
 */
export function resolveScoreSources(options: ScoreOptions = {}, from: ScoreSources = {}): ScoreResolution {
  const sources = {} as Record<keyof ScoreOptions, ValueSource>;
  const read = fieldReader<keyof ScoreOptions>({ options, env: from.env, envNames: SCORE_ENV, file: from.file as Readonly<Record<string, unknown>> | undefined, section: "scoring", sources });
  const num = (key: keyof ScoreOptions, min: number, max: number, integer: boolean): number | undefined => read(key, numberIn({ min, max, integer }));
  const str = (key: keyof ScoreOptions): string | undefined => read(key, parseNonEmpty);
  const bool = (key: keyof ScoreOptions): boolean | undefined => read(key, parseBoolean);
  const variant = read.field("variant", parseNonEmpty);
  const values: ResolvedScoreOptions = {
    backend: read("backend", oneOf(BACKEND_CHOICES), "auto"),
    model: str("model"),
    variant: variant.value === undefined ? undefined : checkVariant(variant.value, variant.field),
    recipe: str("recipe"),
    relevanceModel: str("relevanceModel"),
    spanModel: str("spanModel"),
    spanThreshold: num("spanThreshold", 0, 1, false),
    spanLanguage: read("spanLanguage", oneOf(SPAN_LANGUAGES), "en"),
    requireProduction: bool("requireProduction") ?? false,
    threshold: num("threshold", 0, 1, false),
    topK: num("topK", 1, 50, true) ?? DEFAULT_SETTINGS.topK,
    tokenBudget: num("tokenBudget", 16, 8192, true) ?? DEFAULT_SETTINGS.tokenBudget,
    onnxThreads: num("onnxThreads", 1, 64, true),
    onnxWorkers: num("onnxWorkers", 1, 16, true) ?? 1,
    onnxMaxBatch: num("onnxMaxBatch", 1, 256, true) ?? 32,
    onnxBatchWaitMs: num("onnxBatchWaitMs", 0, 1000, false) ?? 5,
    judgeUrl: str("judgeUrl"),
    judgeModel: str("judgeModel"),
    judgeBudget: num("judgeBudget", 1, 10_000_000, true) ?? 1000,
    judgeConcurrency: num("judgeConcurrency", 1, 64, true) ?? 4,
    entropyThreshold: num("entropyThreshold", 0, 1, false) ?? 0.5,
    combinedPolicy: read("combinedPolicy", oneOf(["either", "groundedness-only"] as const), "either"),
    unstableShare: num("unstableShare", 0, 1, false) ?? DEFAULT_SETTINGS.unstableShare,
    failOnUnstableClaims: bool("failOnUnstableClaims") ?? false,
    entropyMaxCalls: num("entropyMaxCalls", 1, 1_000_000, true) ?? DEFAULT_LIMITS.entropyMaxCalls,
    maxClaims: num("maxClaims", 1, 10_000, true) ?? DEFAULT_LIMITS.maxClaims,
    maxAnswerChars: num("maxAnswerChars", 100, 10_000_000, true) ?? DEFAULT_LIMITS.maxAnswerChars,
    maxContextChars: num("maxContextChars", 1000, 100_000_000, true) ?? DEFAULT_LIMITS.maxContextChars,
    maxDocuments: num("maxDocuments", 1, 100_000, true) ?? DEFAULT_LIMITS.maxDocuments,
    maxTokenChars: num("maxTokenChars", 16, 10_000, true) ?? DEFAULT_LIMITS.maxTokenChars,
    maxSamples: num("maxSamples", 2, 1000, true) ?? DEFAULT_LIMITS.maxSamples,
    maxEntailmentCalls: num("maxEntailmentCalls", 1, 1_000_000, true) ?? DEFAULT_LIMITS.maxEntailmentCalls,
    cacheBytes: num("cacheBytes", 0, 4 * 1024 ** 3, true) ?? DEFAULT_LIMITS.cacheBytes,
    nliCacheBytes: num("nliCacheBytes", 0, 1024 ** 3, true) ?? DEFAULT_NLI_CACHE_BYTES,
    relevance: bool("relevance") ?? true,
    contextRelevanceThreshold: num("contextRelevanceThreshold", 0, 1, false),
    answerRelevanceThreshold: num("answerRelevanceThreshold", 0, 1, false),
    ...resolveCascade(read),
  };
  if (values.backend === "spans" && values.spanModel === undefined) {
    throw new ConfigError("spanModel", undefined, `the spans backend needs a span detector: --span-model DIR|REPO (or ${SCORE_ENV.spanModel}, or the config's scoring.spanModel)`);
  }
  return { values, sources };
}

/** The cascade's options; thresholds set together must keep supportAbove above unsupportBelow (a ConfigError naming the field). */
function resolveCascade(read: FieldReader<keyof ScoreOptions>): Pick<ResolvedScoreOptions, "cascade" | "cascadeSupportAbove" | "cascadeUnsupportBelow"> {
  const above = read.field("cascadeSupportAbove", numberIn({ min: 0, max: 1 }));
  const below = read.field("cascadeUnsupportBelow", numberIn({ min: 0, max: 1 }));
  const thresholds = { cascadeSupportAbove: above.value, cascadeUnsupportBelow: below.value };
  // The error names the threshold that was set (the above one when both were).
  cascadeThresholds(thresholds, above.value !== undefined ? { field: above.field, value: above.value } : { field: below.field, value: below.value });
  return { cascade: read("cascade", parseBoolean) ?? false, ...thresholds };
}

/**
 * The cascade's thresholds in force: each as set, else DEFAULT_CASCADE_THRESHOLDS'. A ConfigError
 * naming `named` (default: cascadeSupportAbove) unless supportAbove is above unsupportBelow.
 */
export function cascadeThresholds(values: Pick<ResolvedScoreOptions, "cascadeSupportAbove" | "cascadeUnsupportBelow">, named?: { readonly field: string; readonly value: unknown }): TriageThresholds {
  const supportAbove = values.cascadeSupportAbove ?? DEFAULT_CASCADE_THRESHOLDS.supportAbove;
  const unsupportBelow = values.cascadeUnsupportBelow ?? DEFAULT_CASCADE_THRESHOLDS.unsupportBelow;
  if (!(supportAbove > unsupportBelow)) {
    const { field, value } = named ?? { field: "cascadeSupportAbove", value: supportAbove };
    throw new ConfigError(field, value, `the cascade's support threshold (${supportAbove}) must be above its unsupport threshold (${unsupportBelow})`);
  }
  return { supportAbove, unsupportBelow };
}

/**
 * Resolves scoring options in one order: code option > environment variable > config file
 * section > default. Throws a ConfigError naming the field and value.
 */
export function resolveScoreOptions(options: ScoreOptions = {}, from: ScoreSources = {}): ResolvedScoreOptions {
  return resolveScoreSources(options, from).values;
}
