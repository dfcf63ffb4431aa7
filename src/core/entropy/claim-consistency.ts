import type { EntailmentBackend, NliPair, NliResult } from "../backend.ts";
import type { ContextWindow } from "../context.ts";
import { backendFailure, checkedBackend } from "../checked-backend.ts";
import { buildWindows, contentTerms, estimateTokens } from "../context.ts";
import type { NliCache } from "../nli-cache.ts";
import { asNliCache, withQuestion } from "../nli-cache.ts";
import { nliPairKey } from "../pair-key.ts";
import { isRefusalAnswer } from "../refusal.ts";
import { isContradicted } from "../verdict.ts";
import { indexWindows } from "../window-index.ts";
import type { ClaimResult, ResampleSupport } from "../result.ts";
import type { TextAnalyzer } from "../text.ts";
import type { Sample } from "./semantic-entropy.ts";
import { describeResampleProblem, normaliseAnswer, resampleSetProblems, textOf } from "./semantic-entropy.ts";

/** A claim of the answer, as the groundedness check saw it: its index, text and offsets into the answer. */
export type ClaimRef = Pick<ClaimResult, "index" | "text" | "start" | "end">;

/** A claim the resamples support less often than `unstableShare`: the model would not say it again. */
export interface UnstableClaim extends ClaimRef {
  readonly resampleSupport: ResampleSupport;
}

/** Claim-level consistency of one answer with its resamples, as counts and reasons. */
export interface ClaimConsistency {
  /** A claim supported by fewer than this share of the samples is unstable. */
  readonly unstableShare: number;
  /** Claims to check (the answer's checked claims). */
  readonly claims: number;
  /** Claims given a `resampleSupport`; the rest went past the entailment budget or the backend failed. */
  readonly measured: number;
  /** Measured claims that are unstable. */
  readonly unstable: number;
  /** Non-empty samples each claim was checked against (every `resampleSupport.of`). */
  readonly samples: number;
  /** Distinct answers among them (after normalising case, punctuation and spacing), refusals left out: what was sent. */
  readonly distinct: number;
  /**
   * True when the resample set cannot show disagreement (identical samples, a short batch, empty
   * samples, fewer than two): support counts on it mean nothing, so no claim is called stable.
   */
  readonly degenerate: boolean;
  /** False when the set is degenerate or some claims were not measured; `reasons` says why. */
  readonly reliable: boolean;
  readonly reasons: readonly string[];
  /** Entailment pairs sent to the backend (cached judgements and refusals cost nothing). */
  readonly entailmentCalls: number;
  /** claims × samples × 2: what checking every claim against every sample in both directions would send. */
  readonly naiveCalls: number;
  /** True when the budget stopped the measurement before the last claim. */
  readonly overBudget: boolean;
}

export interface ClaimConsistencyOptions {
  /** Entailment probability at or above which a sample supports a claim (the answer threshold). */
  readonly threshold: number;
  /** Share of samples below which a claim is unstable, in [0, 1]. */
  readonly unstableShare: number;
  /** Largest window of a sample, in estimated model tokens; a longer sample is cut into windows. */
  readonly tokenBudget: number;
  /** Windows of one long sample checked per claim (preselected by shared words). Default 3. */
  readonly topK?: number;
  readonly countTokens?: (text: string) => number;
  /** Most entailment pairs to send; claims whose pairs would go past it get no support. Default: no limit. */
  readonly maxEntailmentCalls?: number;
  /** Judgements to reuse (createNliCache; a Map is keyed by nliPairKey), shared with semantic entropy. Default: a fresh cache for this measurement. */
  readonly cache?: NliCache | Map<string, NliResult>;
  /** How many samples were asked for; fewer makes the result unreliable. Default: the number given. */
  readonly requested?: number;
}

export interface ClaimConsistencyInput {
  readonly question: string;
  readonly claims: readonly ClaimRef[];
  readonly samples: readonly Sample[];
  readonly backend: EntailmentBackend;
  readonly analyzer: TextAnalyzer;
  readonly options: ClaimConsistencyOptions;
}

export interface ClaimConsistencyResult {
  /** Per input claim, in order: its support, or undefined when it was not measured. */
  readonly support: ReadonlyArray<ResampleSupport | undefined>;
  /** The measured claims supported by fewer than `unstableShare` of the samples, in answer order. */
  readonly unstableClaims: readonly UnstableClaim[];
  readonly summary: ClaimConsistency;
}

/** Whether a claim with this support is unstable (never for an unmeasured claim). */
export function isUnstable(support: ResampleSupport | undefined, unstableShare: number): boolean {
  return support !== undefined && support.of > 0 && support.supported / support.of < unstableShare;
}

/**
 * Claim-level consistency: is each claim of the answer something the model says again when
 * resampled? Each distinct sample is the premise and each claim the hypothesis (one direction,
 * not the two semantic entropy needs), with the question prepended to the premise as entropy
 * does. Identical and normalised-equal samples are judged once, refusals not at all, and long
 * samples are cut into windows like context documents, up to `topK` per claim. All pairs go to
 * the backend in one batch, after a budget check: claims past the budget get no support, and a
 * measurement that is partial or made on a degenerate sample set is `reliable: false`.
 */
export async function claimConsistency({ question, claims, samples, backend: given, analyzer, options }: ClaimConsistencyInput): Promise<ClaimConsistencyResult> {
  const backend = checkedBackend(given);
  const texts = samples.map(textOf);
  const usable = texts.filter((t) => t.trim() !== "");
  const reasons = resampleSetProblems(texts, options.requested ?? texts.length).map(describeResampleProblem);
  const degenerate = reasons.length > 0;
  const cache = asNliCache(options.cache);
  const topK = options.topK ?? 3;
  const count = options.countTokens ?? estimateTokens;

  // Distinct answers to judge, with how many samples each stands for; refusals stand for none.
  const groups = new Map<string, { text: string; weight: number }>();
  for (const t of usable) {
    if (isRefusalAnswer(t)) continue;
    const key = normaliseAnswer(t);
    const g = groups.get(key);
    if (g) g.weight++;
    else groups.set(key, { text: t, weight: 1 });
  }
  const answers = [...groups.values()].map((g) => {
    // A sample that fits the budget is one window, without analysing it.
    const windows: ContextWindow[] =
      count(g.text) <= options.tokenBudget
        ? [{ id: 0, doc: 0, start: 0, end: g.text.length, text: g.text, tokens: count(g.text), terms: [], sentences: [] }]
        : buildWindows(g.text, analyzer, options.countTokens ? { tokenBudget: options.tokenBudget, countTokens: options.countTokens } : { tokenBudget: options.tokenBudget });
    return { ...g, windows, index: windows.length > topK ? indexWindows(windows) : undefined };
  });

  // Per claim and answer, the pairs to judge; the budget counts only pairs not judged before.
  // Judgements are copied out of the shared cache now: another measurement may clear it meanwhile.
  const budget = options.maxEntailmentCalls ?? Infinity;
  const known = new Map<string, NliResult>();
  const fresh = new Map<string, NliPair>();
  const plans: Array<Array<readonly string[]>> = [];
  let overBudget = false;
  for (const claim of claims) {
    let terms: string[] | undefined;
    const added = new Map<string, NliPair>();
    const hits = new Map<string, NliResult>();
    const perAnswer = answers.map((a) => {
      let chosen = a.windows;
      if (a.index) {
        terms ??= contentTerms(analyzer.analyze(claim.text).tokens);
        const top = a.index.top(terms, topK);
        // No shared word: the leading windows, so the cost stays bounded by topK.
        chosen = top.length > 0 ? top : a.windows.slice(0, topK);
      }
      return chosen.map((w) => {
        const pair = { premise: withQuestion(question, w.text), hypothesis: claim.text };
        const key = nliPairKey(pair);
        const cached = known.get(key) ?? cache.get(pair, backend.version);
        if (cached) hits.set(key, cached);
        else if (!fresh.has(key)) added.set(key, pair);
        return key;
      });
    });
    if (fresh.size + added.size > budget) {
      overBudget = true;
      break;
    }
    for (const [k, p] of added) fresh.set(k, p);
    for (const [k, r] of hits) known.set(k, r);
    plans.push(perAnswer);
  }

  const pairs = [...fresh.values()];
  let failure: string | undefined;
  if (pairs.length > 0) {
    try {
      // One result per pair, each valid: checkedBackend.
      const results = await backend.classify(pairs);
      pairs.forEach((p, i) => {
        const r = results[i] as NliResult;
        known.set(nliPairKey(p), r);
        cache.set(p, backend.version, r);
      });
    } catch (error) {
      failure = backendFailure(backend.name, error);
    }
  }

  const support: Array<ResampleSupport | undefined> = claims.map((_, ci) => {
    const perAnswer = plans[ci];
    if (failure !== undefined || !perAnswer || usable.length === 0) return undefined;
    let supported = 0;
    let contradicted = 0;
    perAnswer.forEach((keys, ai) => {
      let score = 0;
      let contradiction = 0;
      for (const key of keys) {
        const r = known.get(key);
        if (!r) continue;
        score = Math.max(score, r.entailment);
        contradiction = Math.max(contradiction, r.contradiction);
      }
      const weight = answers[ai]?.weight ?? 0;
      // The same rule as a claim against its context: contradiction first, then the threshold.
      if (isContradicted(score, contradiction)) contradicted += weight;
      else if (score >= options.threshold) supported += weight;
    });
    return { supported, contradicted, of: usable.length };
  });

  const measured = support.filter((s) => s !== undefined).length;
  if (usable.length === 0) reasons.push("no non-empty samples to check the claims against");
  if (failure !== undefined) reasons.push(failure);
  else if (overBudget) reasons.push(`entailment budget ${budget} reached: ${claims.length - measured} of ${claims.length} claims not checked against the resamples, so their stability is unknown`);
  const unstableClaims = claims.flatMap((c, ci): UnstableClaim[] => {
    const s = support[ci];
    return s && isUnstable(s, options.unstableShare) ? [{ index: c.index, text: c.text, start: c.start, end: c.end, resampleSupport: s }] : [];
  });
  return {
    support,
    unstableClaims,
    summary: {
      unstableShare: options.unstableShare,
      claims: claims.length,
      measured,
      unstable: unstableClaims.length,
      samples: usable.length,
      distinct: answers.length,
      degenerate,
      reliable: reasons.length === 0,
      reasons,
      entailmentCalls: pairs.length,
      naiveCalls: claims.length * texts.length * 2,
      overBudget,
    },
  };
}
