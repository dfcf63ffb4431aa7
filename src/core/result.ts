import type { BackendInfo, CallOptions, EntailmentBackend, SpanDetector } from "./backend.ts";
import type { SkippedSentence } from "./claims/types.ts";
import type { ContextInput } from "./context.ts";
import type { LimitName } from "./limits.ts";
import type { NliCache } from "./nli-cache.ts";

/**
 * What the groundedness check returns and is configured by: claim and answer results, their
 * evidence and citations, and the settings. Types only, so every part of core (the scorer, the
 * verdict rules, claim consistency) and every layer above reads them from here.
 */

/**
 * How the resamples treat one claim of the answer: in how many of `of` non-empty samples the
 * claim is entailed (supported) and in how many contradicted. A sample that declines to answer
 * counts in `of` and neither supports nor contradicts.
 */
export interface ResampleSupport {
  readonly supported: number;
  readonly contradicted: number;
  readonly of: number;
}

/**
 * Where in the retrieved context a verdict's evidence lies: the sentence that bears on the claim
 * (the one that supports it best; for contradicting evidence, the one that states otherwise), and
 * the window around it that the backend judged.
 */
export interface Evidence {
  /** Index of the document in the context array (0 for a string context). */
  readonly doc: number;
  /** Character offsets of the sentence into that document. */
  readonly start: number;
  readonly end: number;
  /** The sentence, as it was checked (an over-long token cut to its first characters and "…"). */
  readonly text: string;
  /** Character offsets into the same document of the window the backend judged: the sentence's context. */
  readonly window: { readonly start: number; readonly end: number };
  /**
   * The second sentence, when the claim was judged against two sentences of two windows read
   * together (a claim joining two facts, each stated in its own sentence): its document, offsets,
   * text and window, as above. This sentence comes first in reading order.
   */
  readonly also?: Omit<Evidence, "also">;
}

/**
 * supported: the evidence (the cited source, when the claim cites one) entails it; contradicted:
 * the evidence states otherwise; unsupported: nothing retrieved entails it (or it cites a source
 * that was not retrieved); misattributed: it cites a source that does not support it, while
 * another retrieved document does.
 */
export type ClaimVerdict = "supported" | "contradicted" | "unsupported" | "misattributed";

/**
 * Why a claim is not supported: `retrieval` (no retrieved document addresses it: the index or the
 * retriever failed), `generation` (a document addresses it but does not support it, or contradicts
 * it: the model or the prompt failed), `citation` (it cites a source that was not retrieved, or
 * one that does not support it while another retrieved document does), `unknown` (the evidence
 * does not clear its margin, or relevance could not be measured: see CauseUnknownReason).
 */
export type ClaimCause = "retrieval" | "generation" | "citation" | "unknown";

/** Why an answer is not grounded: the cause its failing claims name, or `mixed` when they name different ones. */
export type AnswerCause = ClaimCause | "mixed";

/**
 * Why a cause is `unknown` (core/cause.ts): `weak_failure` (the claim scores within the claim margin
 * below the threshold: too near it to call it a retrieval or generation failure), `borderline_relevance`
 * (the documents' relevance lies within the relevance margin of its threshold: retrieval cannot be
 * told from generation), `relevance_unmeasured` (no relevance scorer, it failed, or the claim was
 * past the relevance pair budget).
 */
export type CauseUnknownReason = "weak_failure" | "borderline_relevance" | "relevance_unmeasured";

/**
 * How one citation of a claim checks out: supported by a document it names; misattributed
 * (its documents do not support the claim, another retrieved one does); unsupported (nothing
 * retrieved does); contradicted; not_retrieved (it names a document that is not in the context,
 * decided without any model call).
 */
export type CitationStatus = "supported" | "misattributed" | "unsupported" | "contradicted" | "not_retrieved";

/** One citation marker of a claim, resolved and checked. */
export interface ClaimCitation {
  /** The marker as written ("[2]", "(source: policy.md)"). */
  readonly marker: string;
  /** Offsets of the marker in the answer. */
  readonly start: number;
  readonly end: number;
  /** The retrieved documents it names (indexes into the context). */
  readonly docs: readonly number[];
  /** What it names that was not retrieved ("7", "pricing.md"). */
  readonly missing: readonly string[];
  readonly status: CitationStatus;
  /** Best entailment of the claim by the documents it names (0 when none was retrieved). */
  readonly score: number;
  /** The sentence of its documents that supports the claim best, in the window judged best. */
  readonly evidence: Evidence | null;
}

/** Citations in one answer. Every marker counts once, attached to a claim or not. */
export interface CitationSummary {
  /** Markers found in the answer. */
  readonly found: number;
  /** Markers whose every target is a retrieved document. */
  readonly valid: number;
  /** Markers naming a document that was not retrieved. */
  readonly invalid: number;
  /** Valid markers whose documents do not support their claim while another retrieved one does. */
  readonly misattributed: number;
}

export interface ClaimResult {
  readonly index: number;
  readonly text: string;
  /** Character offsets into the answer. */
  readonly start: number;
  readonly end: number;
  readonly verdict: ClaimVerdict;
  /** Best entailment probability over the windows checked. */
  readonly score: number;
  /** Strongest contradiction probability over the windows checked. */
  readonly contradiction: number;
  /** The sentence that supports the claim best, in the window judged best (its nearest evidence when unsupported). */
  readonly evidence: Evidence | null;
  /** The sentence that states otherwise, in the window that contradicts it most, when the verdict is contradicted. */
  readonly contradictingEvidence?: Evidence;
  /** The backend's reasons for the best window's score. */
  readonly notes: readonly string[];
  /**
   * With resamples: in how many of them the claim is entailed or contradicted (claim-level
   * consistency). Absent without resamples, and for claims past the entailment budget.
   */
  readonly resampleSupport?: ResampleSupport;
  /** The citation markers attached to this claim, each checked against the documents it names. Absent when it cites nothing. */
  readonly citations?: readonly ClaimCitation[];
  /**
   * Why an unsupported claim was decided as it was: `citation_not_retrieved` (decided without the
   * backend: it cites a document that was not retrieved), `unsupported_span` (a span detector marked
   * words of it: `spans` names them; core/spans.ts).
   */
  readonly reason?: "citation_not_retrieved" | "unsupported_span";
  /** Indexes into the answer's `spans` of the spans that fall in this claim; absent when none does (or no span detector ran). */
  readonly spans?: readonly number[];
  /** "triage": the cascade decided this claim on the cheap tier's score alone, without a model call (core/triage.ts); absent when the backend judged it. */
  readonly decidedBy?: "triage";
  /** Why a claim an ungrounded answer fails on is not supported (core/cause.ts); absent on the others. */
  readonly cause?: ClaimCause;
  /** Without a question: the retrieved documents' best relevance to this failing claim, in [0, 1], when measured. */
  readonly relevance?: number;
}

/** The thresholds relevance is read against. */
export interface RelevanceThresholds {
  /** A context whose best relevance is below this does not address the question (or claim): its failures are `retrieval`. */
  readonly context: number;
  /** An answer whose relevance to the question is below this is off-topic. */
  readonly answer: number;
}

/** How relevance is measured. */
export interface RelevanceSettings {
  readonly thresholds: RelevanceThresholds;
  /** Windows of each document scored per query (the groundedness top-k). */
  readonly topK: number;
  /** Most (query, window) pairs sent per answer without a question; failing claims past it keep cause `unknown`. Default: no limit. */
  readonly maxPairs?: number;
}

/**
 * Relevance of one answer's retrieved context and of the answer itself, as the backend's relevance
 * scorer measured them. Never guessed: `unmeasured` says why a number is missing.
 */
export interface RelevanceReport {
  readonly thresholds: RelevanceThresholds;
  /** With a question: each document's relevance to it, the best, and whether the best reaches the context threshold. */
  readonly context?: { readonly perDocument: readonly number[]; readonly best: number; readonly addressed: boolean };
  /** With a question: whether the answer addresses it (a refusal counts as relevant, score 1). Not part of the verdict. */
  readonly answer?: { readonly score: number; readonly refusal: boolean; readonly onTopic: boolean };
  /** (query, passage) pairs sent to the backend's relevance scorer. */
  readonly calls: number;
  /** Why relevance was not measured: the backend has no relevance scorer, or it failed. */
  readonly unmeasured?: { readonly reason: "no_relevance_scorer" | "backend_error"; readonly detail: string };
}

/**
 * Why an answer was not scored: `empty_answer`; `empty_context` (no document, or none with a
 * sentence); `no_checkable_claims` (every sentence was skipped); `language_mismatch` (the answer is
 * written in a script its documents are not, e.g. Chinese against English: words cannot be
 * compared across them, core/language.ts); `backend_error`.
 */
export type UnscorableReason = "empty_answer" | "empty_context" | "no_checkable_claims" | "language_mismatch" | "backend_error";

/**
 * Entailment pairs of one answer decided without a model call (core/pair-lookup.ts), by why.
 */
export interface CallsSaved {
  /** Pairs whose window states the claim as one of its whole sentences (core/verbatim.ts): entailment 1. */
  readonly verbatim: number;
  /** Pairs judged before by the same backend version: kept in the scorer's judgement cache, or repeated within the answer. */
  readonly cache: number;
  /** Pairs of claims the cheap tier decided with confidence (the cascade, core/triage.ts): no model call was made for them. */
  readonly triage: number;
}

/**
 * Words of the answer a span detector marked as unsupported (core/spans.ts): a run of answer tokens
 * each at or above the span threshold, merged across sub-word pieces.
 */
export interface AnswerSpan {
  /** Character offsets into the answer. */
  readonly start: number;
  readonly end: number;
  /** The highest token probability of being unsupported in the run. */
  readonly probability: number;
  /** The index of the claim the span falls in (the first it overlaps); null when it lies outside every checked claim. */
  readonly claim: number | null;
  /** The marked words, as the answer has them. */
  readonly text: string;
}

/** What one answer cost, by engine: pairs the claim detector judged, and model inputs the span detector ran. */
export interface CallsByEngine {
  readonly claims: number;
  readonly spans: number;
}

/** What every answer result carries besides its verdict. */
interface AnswerResultBase {
  readonly claims: readonly ClaimResult[];
  readonly skipped: readonly SkippedSentence[];
  readonly backend: BackendInfo;
  /**
   * The input limits this result was cut by, in LIMIT_NAMES order; empty when the whole
   * observation was scored. Where `token_chars` is listed, `text` fields show each cut token
   * as its first characters and "…", while `start`/`end` still point into the original.
   */
  readonly limits: readonly LimitName[];
  /** Entailment pairs sent to the backend for this answer (model calls made; pairs decided without one are in `callsSaved`). */
  readonly entailmentCalls: number;
  /** With a span detector: the words it marked unsupported (empty when none); absent when no span detector ran. */
  readonly spans?: readonly AnswerSpan[];
  /** With a span detector: model work by engine (`entailmentCalls` stays the claim detector's pairs). */
  readonly callsByEngine?: CallsByEngine;
  /**
   * `refine` mode only: the span detector failed on this answer, so no span was measured (`spans` is
   * absent) while the claim detector's verdicts stand. Absent whenever spans were measured.
   */
  readonly spansUnmeasured?: { readonly reason: "backend_error"; readonly detail: string };
  /** Pairs decided without a model call, by why; present when either count is above 0. */
  readonly callsSaved?: CallsSaved;
  /** Citation markers found in the answer and how they checked out; absent when it cites nothing. */
  readonly citations?: CitationSummary;
  /** Context and answer relevance, when relevance is measured (settings.relevance) and there is something to measure. */
  readonly relevance?: RelevanceReport;
}

/**
 * An answer's verdict: grounded (every checked claim supported and the score at or above the
 * threshold), ungrounded, or unscorable (no real measurement could be made; see UnscorableReason).
 */
export type AnswerVerdict = "grounded" | "ungrounded" | "unscorable";

/** The groundedness of one answer: its verdict, score and claims (the first part of an Evaluation). */
export type GroundednessResult =
  | (AnswerResultBase & {
      readonly verdict: Exclude<AnswerVerdict, "unscorable">;
      /** Minimum claim score: an answer is as grounded as its least supported claim. */
      readonly score: number;
      readonly threshold: number;
      /** Why an ungrounded answer is not grounded (core/cause.ts), when relevance is measured; absent on grounded answers. */
      readonly cause?: AnswerCause;
      /** Why `cause` is `unknown`; only then. */
      readonly causeReason?: CauseUnknownReason;
    })
  | (AnswerResultBase & {
      readonly verdict: Extract<AnswerVerdict, "unscorable">;
      readonly score: null;
      readonly reason: UnscorableReason;
      readonly detail: string;
    });

/** @deprecated use GroundednessResult */
export type AnswerResult = GroundednessResult;

export interface GroundednessSettings {
  /** Claims scoring at or above this are supported; the answer is grounded when all are. */
  readonly threshold: number;
  /** Context windows checked per claim. */
  readonly topK: number;
  /** Largest context window, in estimated model tokens. */
  readonly tokenBudget: number;
  /** Token counter for windows; a subword estimate by default. */
  readonly countTokens?: (text: string) => number;
  /** Most claims checked per answer; the rest are returned as skipped with reason "over_limit" (limit "claims"). */
  readonly maxClaims?: number;
  /** Longest answer checked, in characters; the text past the cut is one skipped "over_limit" segment (limit "answer_chars"). */
  readonly maxAnswerChars?: number;
  /** Most context characters read, all documents together; later characters and documents are ignored (limit "context_chars"). */
  readonly maxContextChars?: number;
  /** Most documents read; later documents are ignored (limit "documents"). */
  readonly maxDocuments?: number;
  /** Longest run of non-space characters kept whole; longer ones (base64, hex) are cut to their first characters and "…" before analysis (limit "token_chars"). */
  readonly maxTokenChars?: number;
  /** Most entailment pairs sent per answer; claims that would go past it are skipped with reason "over_limit" (limit "entailment_calls"). */
  readonly maxEntailmentCalls?: number;
  /** Estimated bytes of documents' windows kept for reuse across answers (default 16 MiB; 0: none). */
  readonly windowCacheBytes?: number;
  /**
   * Judgements kept across answers (core/nli-cache.ts), keyed by the backend's version: a pair found
   * there is not sent again. The scorer shares one with semantic entropy and claim consistency.
   * Absent: none is kept (identical pairs of one answer are still sent once).
   */
  readonly nliCache?: NliCache;
  /** Measure context and answer relevance and name the cause of ungrounded answers; absent: neither is done. */
  readonly relevance?: RelevanceSettings;
  /** A span detector (core/spans.ts): alone, or refining a claim detector's claims; absent: none runs. */
  readonly spans?: SpanSettings;
  /** The cascade: a cheap tier scores every claim first and decides the ones it is sure of without the backend (core/triage.ts); absent: every claim goes to the backend. */
  readonly triage?: TriageSettings;
}

/**
 * A span detector's part in scoring (core/spans.ts). `alone`: it is the only detector — a claim a
 * span falls in is unsupported (reason `unsupported_span`), every other checked claim supported; a
 * claim's score is 1 − its highest token probability, so the answer threshold τ and the span
 * threshold are one number (a token is unsupported at probability ≥ 1 − τ). `refine`: a claim
 * detector judges the claims and the spans, from one run per answer, name the words to distrust in
 * them; verdicts stay the claim detector's.
 */
export interface SpanSettings {
  readonly detector: SpanDetector;
  readonly mode: "alone" | "refine";
  /** `refine` only: the probability at or above which a token is unsupported (`alone` reads 1 − threshold). */
  readonly threshold: number;
}

/** Offline scores at which the cascade decides a claim without a model call (core/triage.ts). */
export interface TriageThresholds {
  /** A claim the cheap tier scores at or above this is supported. */
  readonly supportAbove: number;
  /** A claim the cheap tier scores at or below this is unsupported. */
  readonly unsupportBelow: number;
}

/** The cascade's cheap tier (the offline backend) and its thresholds. */
export interface TriageSettings extends TriageThresholds {
  readonly backend: EntailmentBackend;
}

export interface AnswerInput {
  readonly answer: string;
  /** The user's question: context and answer relevance are measured against it (without one, against the failing claims). */
  readonly question?: string;
  /** One string, or the retrieved documents: strings, or `{ id?, title?, url?, text }` so citations can name them. */
  readonly context: ContextInput;
}

export interface GroundednessScorer {
  /** Scores one answer; `options` (an abort signal, a queue rank) go with every backend call it makes. */
  score(input: AnswerInput, options?: CallOptions): Promise<GroundednessResult>;
}
