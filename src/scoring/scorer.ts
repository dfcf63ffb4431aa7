import type { BackendSettings } from "../config/hub.ts";
import type { ResolvedScoreOptions } from "../config/score-options.ts";
import type { CombinedPolicy, CombinedVerdict } from "../core/combined.ts";
import { combineVerdicts } from "../core/combined.ts";
import type { ClaimConsistency, UnstableClaim } from "../core/entropy/claim-consistency.ts";
import { claimConsistency } from "../core/entropy/claim-consistency.ts";
import type { EntropyResult, Sample } from "../core/entropy/semantic-entropy.ts";
import { semanticEntropy } from "../core/entropy/semantic-entropy.ts";
import type { AnswerInput, GroundednessResult, RelevanceThresholds } from "../core/result.ts";
import { createGroundednessScorer } from "../core/groundedness.ts";
import type { LimitName } from "../core/limits.ts";
import { limitText, orderLimits } from "../core/limits.ts";
import { createNliCache } from "../core/nli-cache.ts";
import { applyResampleShortfall } from "./resample-shortfall.ts";
import type { TextAnalyzer } from "../core/text.ts";
import { createTextAnalyzer } from "../core/text.ts";
import type { BackendInfo, CallOptions, EntailmentBackend, SpanDetector } from "../core/backend.ts";
import { backendInfo, scopedBackend } from "../core/backend.ts";
import { checkedBackend } from "../core/checked-backend.ts";
import type { OnnxImporter } from "../nli/onnx/runtime.ts";
import { createBackend, createSpanDetector, spansOnlyBackend } from "../nli/registry.ts";
import { createOfflineBackend } from "../nli/offline/backend.ts";
import { cascadeThresholds } from "../config/score-options.ts";
import { DEFAULT_RELEVANCE_THRESHOLDS, DEFAULT_SETTINGS } from "../config/defaults.ts";

/** An answer to score, optionally with resamples of the same question for semantic entropy. */
export interface Observation extends AnswerInput {
  readonly question?: string;
  /** Other generations for the same question (temperature > 0); enables semantic entropy and claim-level consistency. */
  readonly samples?: readonly Sample[];
  /**
   * How many resamples were asked for: fewer arriving makes entropy and claim consistency
   * unreliable (a cut at maxSamples does not), and with none at all entropy is unmeasured. Default: as many as given.
   */
  readonly requested?: number;
  /** Why the request for resamples failed (fixed text, never the host's), with `requested`: the first reason of an unreliable entropy. */
  readonly resampleFailure?: string;
}

/**
 * Groundedness, plus semantic entropy, claim-level consistency and the combined verdict when
 * resamples were given. `limits` names every input limit the observation was cut by (answer,
 * context, documents, tokens, claims, samples, entailment calls); empty when it was scored whole.
 */
export type Evaluation = GroundednessResult & {
  readonly entropy?: EntropyResult;
  /**
   * With resamples and at least one checked claim: the claims entailed by fewer than
   * `unstableShare` of the resamples (the model would not say them again), in answer order.
   * Each claim then carries `resampleSupport` (absent for claims past the entailment budget).
   */
  readonly unstableClaims?: readonly UnstableClaim[];
  /** Counts, reliability and cost of the claim-level consistency check; present with `unstableClaims`. */
  readonly claimConsistency?: ClaimConsistency;
  readonly combined?: CombinedVerdict;
};

/** A ready-to-use scorer: resolved options, a loaded backend, and the pipeline. */
export interface Scorer {
  /**
   * Scores one observation. `options.signal` gives it up: its queued inference is withdrawn and the
   * promise rejects with the signal's reason (a scoring worker aborts a job past its time limit);
   * `options.rank` is where its inference queues (CallOptions).
   */
  score(input: Observation, options?: CallOptions): Promise<Evaluation>;
  /** The combination policy in force. */
  readonly policy: CombinedPolicy;
  readonly backend: BackendInfo;
  /** The backend itself, for backend-specific reporting (e.g. judge token usage). */
  readonly entailment: EntailmentBackend;
  /** The answer threshold in force (explicit, else the backend's fitted one). */
  readonly threshold: number;
  /**
   * The span detector's part, when one is configured (spanModel): `alone` (backend spans) or `refine`,
   * and the token probability at or above which a word is marked (alone: 1 − `threshold`).
   */
  readonly spans: { readonly mode: "alone" | "refine"; readonly threshold: number; readonly detector: BackendInfo } | undefined;
  /** The relevance thresholds in force (explicit, else the backend's fitted ones); undefined when relevance is off. */
  readonly relevanceThresholds: RelevanceThresholds | undefined;
  /** Warnings the caller must show the user (e.g. falling back to a triage backend). */
  readonly warnings: readonly string[];
  close(): Promise<void>;
}

/**
 * What createResolvedScorer needs besides the options: values resolved at the caller's edge (the
 * package's createScorer, createMonitor for its workers, a CLI command). Scoring never reads the environment.
 */
export interface ResolvedScorerDeps {
  /** The model cache and the judge's API key (config/hub.ts resolveBackendSettings, at the edge). */
  readonly settings: BackendSettings;
  /** Use this backend instead of creating one from the options. */
  readonly backend?: EntailmentBackend;
  /** Use this span detector instead of loading `spanModel` (alone with backend `spans`, else refining the backend). */
  readonly spanDetector?: SpanDetector;
  readonly analyzer?: TextAnalyzer;
  /** Imports onnxruntime-node for the onnx backend (default: the real import); injected in tests. */
  readonly importOnnxRuntime?: OnnxImporter;
}

/** Loads the backend the resolved options name (unless one is given) and builds the pipeline. */
export async function createResolvedScorer(resolved: ResolvedScoreOptions, deps: ResolvedScorerDeps): Promise<Scorer> {
  const analyzer = deps.analyzer ?? createTextAnalyzer({ maxTokenChars: resolved.maxTokenChars, cacheBytes: Math.floor(resolved.cacheBytes / 2) });
  const created = await createdBackends(resolved, deps, analyzer);
  const shared = created.backend;
  const spans = created.spans;
  const alone = spans?.mode === "alone";
  // Alone, the answer threshold and the span threshold are one number: τ = 1 − the span threshold.
  const threshold = resolved.threshold ?? (alone && resolved.spanThreshold !== undefined ? 1 - resolved.spanThreshold : undefined) ?? shared.recommendedThreshold ?? DEFAULT_SETTINGS.threshold;
  const spanThreshold = spans ? (alone ? 1 - threshold : (resolved.spanThreshold ?? spans.detector.recommendedSpanThreshold ?? DEFAULT_SETTINGS.threshold)) : undefined;
  const fitted = shared.recommendedRelevanceThresholds ?? DEFAULT_RELEVANCE_THRESHOLDS;
  const relevanceThresholds: RelevanceThresholds = { context: resolved.contextRelevanceThreshold ?? fitted.context, answer: resolved.answerRelevanceThreshold ?? fitted.answer };
  // Judgements of (premise, hypothesis) pairs by this backend's version, shared by groundedness, entropy and
  // claim consistency across observations: a pair judged once costs no second call while it stays.
  // Bounded by bytes (least recently used out first); nliCacheBytes 0: none kept across observations.
  const nliCache = resolved.nliCacheBytes === 0 ? undefined : createNliCache(resolved.nliCacheBytes);
  const cacheOption = nliCache ? { cache: nliCache } : {};
  // Every reply checked once, here where the backend enters scoring (core/checked-backend.ts).
  const checked = checkedBackend(shared);
  // The cascade: the offline tier in front of a model backend (core/triage.ts); nothing in front of the offline one itself.
  const cheap = resolved.cascade && shared.tier === "production" && !alone ? createOfflineBackend({ analyzer }) : undefined;
  const triage = cheap ? { backend: cheap, ...cascadeThresholds(resolved) } : undefined;
  const warnings = [...created.warnings, ...spanWarnings(resolved, alone, threshold)];
  if (resolved.cascade && !cheap) warnings.push(alone ? "cascade ignored: the spans backend sends no entailment pair to put a cheap tier in front of" : `cascade ignored: the ${shared.name} backend is the cheap tier itself (the cascade puts the offline tier in front of an onnx or judge backend)`);
  const pipeline = createGroundednessScorer(checked, analyzer, {
    threshold,
    topK: resolved.topK,
    tokenBudget: resolved.tokenBudget,
    maxClaims: resolved.maxClaims,
    maxAnswerChars: resolved.maxAnswerChars,
    maxContextChars: resolved.maxContextChars,
    maxDocuments: resolved.maxDocuments,
    maxTokenChars: resolved.maxTokenChars,
    maxEntailmentCalls: resolved.maxEntailmentCalls,
    windowCacheBytes: Math.floor(resolved.cacheBytes / 2),
    ...(nliCache ? { nliCache } : {}),
    ...(resolved.relevance ? { relevance: { thresholds: relevanceThresholds, topK: Math.min(resolved.topK, shared.relevanceTopK ?? resolved.topK), maxPairs: resolved.maxEntailmentCalls } } : {}),
    ...(triage ? { triage } : {}),
    ...(spans && spanThreshold !== undefined ? { spans: { detector: spans.detector, mode: spans.mode, threshold: spanThreshold } } : {}),
  });
  const policy: CombinedPolicy = { entropyThreshold: resolved.entropyThreshold, mode: resolved.combinedPolicy, failOnUnstableClaims: resolved.failOnUnstableClaims };
  return {
    policy,
    async score(input: Observation, options?: CallOptions): Promise<Evaluation> {
      const backend = scopedBackend(checked, options);
      // A job given up (its signal aborted) ends between stages too, not only inside a backend call.
      const given = (): void => options?.signal?.throwIfAborted();
      const groundedness = await pipeline.score(input, options);
      given();
      const received = input.samples?.length ?? 0;
      // Without samples, and none asked for, there is nothing to measure besides groundedness.
      if (received === 0 && input.requested === undefined) return groundedness;
      const limits = new Set<LimitName>(groundedness.limits);
      if (received > resolved.maxSamples) limits.add("samples");
      const cut = (text: string): string => {
        const limited = limitText(text, resolved.maxAnswerChars, resolved.maxTokenChars);
        for (const l of limited.limits) limits.add(l);
        return limited.text;
      };
      const samples = (input.samples ?? []).slice(0, resolved.maxSamples).map((s): Sample => (typeof s === "string" ? cut(s) : { ...s, text: cut(s.text) }));
      // Entropy gets what groundedness left of the observation's budget, and at most its own.
      const budget = Math.min(resolved.entropyMaxCalls, Math.max(0, resolved.maxEntailmentCalls - groundedness.entailmentCalls));
      const question = cut(input.question ?? "");
      // Whether the set is short is decided below, against what was received before the cut at
      // maxSamples (the cut is the "samples" limit): core measures the set it is given.
      const measured = await semanticEntropy({ question, samples, backend, options: { ...cacheOption, maxEntailmentCalls: budget } });
      given();
      if (measured.overBudget) limits.add("entailment_calls");
      let scored: Evaluation = { ...groundedness, entropy: measured };
      // No samples came: no claim is checked against them.
      if (groundedness.claims.length > 0 && samples.length > 0) {
        // Claim consistency gets what groundedness and entropy left: claims × distinct samples pairs, in one batch.
        const left = Math.max(0, resolved.maxEntailmentCalls - groundedness.entailmentCalls - measured.entailmentCalls);
        const consistency = await claimConsistency({
          question,
          claims: groundedness.claims,
          samples,
          backend,
          analyzer,
          options: { threshold, unstableShare: resolved.unstableShare, tokenBudget: resolved.tokenBudget, topK: resolved.topK, maxEntailmentCalls: left, ...cacheOption },
        });
        given();
        if (consistency.summary.overBudget) limits.add("entailment_calls");
        const claims = groundedness.claims.map((c, i) => {
          const support = consistency.support[i];
          return support ? { ...c, resampleSupport: support } : c;
        });
        scored = { ...scored, claims, unstableClaims: consistency.unstableClaims, claimConsistency: consistency.summary };
      }
      const asked = input.requested !== undefined ? { requested: input.requested, received, ...(input.resampleFailure !== undefined ? { failure: input.resampleFailure } : {}) } : undefined;
      const { entropy, consistency } = asked ? applyResampleShortfall(measured, scored.claimConsistency, asked) : { entropy: measured, consistency: scored.claimConsistency };
      scored = { ...scored, entropy, ...(consistency ? { claimConsistency: consistency } : {}) };
      const claims = consistency && scored.unstableClaims ? { summary: consistency, unstableClaims: scored.unstableClaims } : undefined;
      return { ...scored, limits: orderLimits(limits), combined: combineVerdicts(groundedness, entropy, policy, claims) };
    },
    backend: backendInfo(shared),
    entailment: shared,
    threshold,
    relevanceThresholds: resolved.relevance ? relevanceThresholds : undefined,
    spans: spans && spanThreshold !== undefined ? { mode: spans.mode, threshold: spanThreshold, detector: backendInfo(spans.detector) } : undefined,
    warnings,
    close: async () => {
      await cheap?.close();
      await shared.close();
      // Alone, the backend's port closes the detector; refining, it is closed here.
      if (spans?.mode === "refine") await spans.detector.close();
    },
  };
}

/** The claim detector and the span detector the options name, or the ones given (deps.backend, deps.spanDetector). */
async function createdBackends(resolved: ResolvedScoreOptions, deps: ResolvedScorerDeps, analyzer: TextAnalyzer): Promise<{ backend: EntailmentBackend; spans?: { detector: SpanDetector; mode: "alone" | "refine" }; warnings: readonly string[] }> {
  const loadDeps = { settings: deps.settings, ...(deps.importOnnxRuntime ? { importOnnxRuntime: deps.importOnnxRuntime } : {}) };
  if (!deps.backend && !deps.spanDetector) return createBackend(resolved, { analyzer, ...loadDeps });
  const detector = deps.spanDetector ?? (await createSpanDetector(resolved, loadDeps));
  if (resolved.backend === "spans") {
    if (!detector) throw new Error("the spans backend needs a span detector");
    return { backend: spansOnlyBackend(detector), spans: { detector, mode: "alone" }, warnings: [] };
  }
  const claims = deps.backend ?? (await createBackend({ ...resolved, spanModel: undefined }, { analyzer, ...loadDeps })).backend;
  return { backend: claims, ...(detector ? { spans: { detector, mode: "refine" as const } } : {}), warnings: [] };
}

/** What the user must be told about the span detector's settings. */
function spanWarnings(resolved: ResolvedScoreOptions, alone: boolean, threshold: number): string[] {
  if (!alone) return [];
  const out = ["the spans backend judges no entailment pair: semantic entropy and claim consistency cannot be measured with it, and relevance is unmeasured (no relevance scorer)"];
  if (resolved.threshold !== undefined && resolved.spanThreshold !== undefined && Math.abs(1 - resolved.spanThreshold - threshold) > 1e-9) {
    out.push(`spanThreshold ${resolved.spanThreshold} ignored: with the spans backend the span threshold is 1 − the answer threshold (${threshold}), so it is ${1 - threshold}`);
  }
  return out;
}
