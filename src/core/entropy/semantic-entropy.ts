import type { BackendInfo, EntailmentBackend, NliResult } from "../backend.ts";
import { backendInfo } from "../backend.ts";
import { backendFailure, checkedBackend } from "../checked-backend.ts";
import type { NliCache } from "../nli-cache.ts";
import { asNliCache, withQuestion } from "../nli-cache.ts";
import { chao1, entropyOf, millerMadow, raoBlackwellMasses } from "./estimators.ts";
import { isRefusalAnswer } from "../refusal.ts";

/** One generation: its text, and optionally per-token log-probabilities. */
export type Sample = string | { readonly text: string; readonly logprobs?: readonly number[] | number };

export interface SemanticEntropyOptions {
  /** How many samples were asked for; fewer arriving makes the result unreliable. Default: the number given. */
  readonly requested?: number;
  /** Most entailment pairs this measurement may send; checked against the worst case before any call. Default: no limit. */
  readonly maxEntailmentCalls?: number;
  /** Judgements to reuse across measurements (createNliCache; a Map is keyed by nliPairKey). Default: a fresh cache for this measurement. */
  readonly cache?: NliCache | Map<string, NliResult>;
}

export interface EntropyInput {
  readonly question: string;
  readonly samples: readonly Sample[];
  readonly backend: EntailmentBackend;
  readonly options?: SemanticEntropyOptions;
}

export interface Cluster {
  readonly id: number;
  /** Indexes into the samples. */
  readonly members: readonly number[];
  /** Probability mass under the estimator in use. */
  readonly mass: number;
  /** The first member's text. */
  readonly representative: string;
  /** The cluster that holds every refusal. */
  readonly refusal: boolean;
}

/** One equivalence decision between two samples, both directions when the backend was asked. */
export interface Judgement {
  readonly a: number;
  readonly b: number;
  /** How it was decided: identical strings, identical after normalisation, the backend, or the cache. */
  readonly source: "exact" | "normalised" | "backend" | "cache";
  readonly equivalent: boolean;
  readonly forward?: NliResult;
  readonly backward?: NliResult;
}

export interface EntropyResult {
  readonly question: string;
  readonly samples: readonly string[];
  readonly clusters: readonly Cluster[];
  /** Cluster id of each sample; -1 for an empty sample, which joins no cluster. */
  readonly assignments: readonly number[];
  readonly judgements: readonly Judgement[];
  /** Semantic entropy in nats; null when no measurement could be made. */
  readonly entropy: number | null;
  /** entropy ÷ ln N, in [0, 1]. */
  readonly normalizedEntropy: number | null;
  /** Entropy over exact strings, and its part that is only phrasing (naive − semantic). */
  readonly naiveEntropy: number | null;
  readonly lexicalEntropy: number | null;
  /** Mass of the largest cluster. */
  readonly agreement: number | null;
  readonly estimator: "discrete" | "rao-blackwell";
  readonly diagnostics: {
    readonly samples: number;
    readonly clusters: number;
    readonly singletons: number;
    readonly doubletons: number;
    /** Chao1 estimate of the number of meanings. */
    readonly chao1: number;
    /** Miller–Madow corrected discrete entropy. */
    readonly millerMadow: number;
  };
  /** False when the measurement could not detect disagreement; `reasons` says why. */
  readonly reliable: boolean;
  /** True when every sample declined to answer (the model abstained; `reasons` says so). */
  readonly abstained: boolean;
  /** Plain-language reasons for `reliable = false` and for `abstained`. */
  readonly reasons: readonly string[];
  readonly entailmentCalls: number;
  /** True when the worst case was over `maxEntailmentCalls`, so nothing was sent and nothing measured. */
  readonly overBudget: boolean;
  /** N(N − 1): the pairs a brute-force clustering would send. */
  readonly worstCaseCalls: number;
  readonly backend: BackendInfo;
}

/**
 * Why a set of resamples cannot show disagreement, coded: a short batch (fewer received than
 * requested), empty samples, fewer than two non-empty ones, or identical ones (sampling is not on).
 * describeResampleProblem gives the reason text users see.
 */
export type ResampleProblem =
  | { readonly code: "short_batch"; readonly requested: number; readonly received: number }
  | { readonly code: "empty_samples"; readonly empty: number; readonly of: number }
  | { readonly code: "too_few_samples" }
  | { readonly code: "identical_samples"; readonly count: number };

/** The reason text of a resample problem, as entropy and claim consistency report it. */
export function describeResampleProblem(p: ResampleProblem): string {
  switch (p.code) {
    case "short_batch":
      return `received ${p.received} of ${p.requested} requested samples: a short batch hides disagreement`;
    case "empty_samples":
      return `${p.empty} of ${p.of} samples are empty`;
    case "too_few_samples":
      return "fewer than two non-empty samples: nothing to disagree with";
    case "identical_samples":
      return `all ${p.count} samples are identical: sampling is not on (temperature 0, a cache, or a fixed seed upstream), so agreement means nothing`;
  }
}

/**
 * Why a set of resamples cannot show disagreement, whatever is measured on it (see ResampleProblem).
 * Shared by semantic entropy and claim-level consistency, so both fail closed on the same sets.
 */
export function resampleSetProblems(texts: readonly string[], requested: number = texts.length): ResampleProblem[] {
  const n = texts.length;
  const usable = texts.filter((t) => t.trim() !== "");
  const problems: ResampleProblem[] = [];
  if (n < requested) problems.push({ code: "short_batch", requested, received: n });
  if (usable.length < n) problems.push({ code: "empty_samples", empty: n - usable.length, of: n });
  if (usable.length > 0 && usable.length < 2) problems.push({ code: "too_few_samples" });
  if (usable.length >= 2 && new Set(usable).size === 1) problems.push({ code: "identical_samples", count: usable.length });
  return problems;
}

/** The text of a sample, with or without log-probabilities. */
export function textOf(s: Sample): string {
  return typeof s === "string" ? s : s.text;
}

/** Normalised form for the cheap equivalence shortcut: case, punctuation and spacing ignored. */
export function normaliseAnswer(text: string): string {
  return text
    .toLowerCase()
    .normalize("NFKC")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

function meanLogProb(s: Sample): number | undefined | "invalid" {
  if (typeof s === "string" || s.logprobs === undefined) return undefined;
  const lp = s.logprobs;
  const values = typeof lp === "number" ? [lp] : lp;
  if (values.length === 0 || values.some((x) => typeof x !== "number" || !Number.isFinite(x))) return "invalid";
  return values.reduce((a, b) => a + b, 0) / values.length;
}

const argmaxIsEntailment = (r: NliResult): boolean => r.entailment >= r.neutral && r.entailment >= r.contradiction;

/**
 * Semantic entropy (Farquhar et al., 2024): cluster samples by bidirectional
 * entailment (question prepended to both sides; greedy against each cluster's first
 * member), then take the entropy over clusters. Fails closed: every condition that
 * would make the number low for the wrong reason sets `reliable = false` with a reason.
 */
export async function semanticEntropy({ question, samples, backend: given, options = {} }: EntropyInput): Promise<EntropyResult> {
  const backend = checkedBackend(given);
  const texts = samples.map(textOf);
  const n = texts.length;
  const requested = options.requested ?? n;
  const reasons: string[] = [];
  const info = backendInfo(backend);
  const worstCaseCalls = n * (n - 1);
  const cache = asNliCache(options.cache);

  const empty = texts.map((t) => t.trim() === "");
  const usable = texts.map((_, i) => i).filter((i) => !empty[i]);
  reasons.push(...resampleSetProblems(texts, requested).map(describeResampleProblem));

  const refusal = texts.map((t, i) => !empty[i] && isRefusalAnswer(t));
  const answers = usable.filter((i) => !refusal[i]);
  const abstained = usable.length > 0 && answers.length === 0;

  // Estimator: Rao-Blackwell only when every usable sample has valid log-probabilities.
  const logProbs = texts.map((_, i) => meanLogProb(samples[i] as Sample));
  const anyLogProbs = usable.some((i) => logProbs[i] !== undefined);
  const invalidLogProbs = usable.filter((i) => logProbs[i] === "invalid");
  const missingLogProbs = usable.filter((i) => logProbs[i] === undefined);
  let estimator: "discrete" | "rao-blackwell" = "discrete";
  if (anyLogProbs) {
    if (invalidLogProbs.length > 0) reasons.push(`NaN, infinite or empty log-probabilities on ${invalidLogProbs.length} sample(s): fell back to the discrete estimator`);
    else if (missingLogProbs.length > 0) reasons.push(`log-probabilities missing on ${missingLogProbs.length} sample(s): fell back to the discrete estimator`);
    else estimator = "rao-blackwell";
  }

  const unmeasured = (why: string[]): EntropyResult => ({
    question,
    samples: texts,
    clusters: [],
    assignments: texts.map(() => -1),
    judgements: [],
    entropy: null,
    normalizedEntropy: null,
    naiveEntropy: null,
    lexicalEntropy: null,
    agreement: null,
    estimator,
    diagnostics: { samples: usable.length, clusters: 0, singletons: 0, doubletons: 0, chao1: 0, millerMadow: 0 },
    reliable: false,
    abstained,
    reasons: why,
    entailmentCalls: 0,
    overBudget: false,
    worstCaseCalls,
    backend: info,
  });
  if (usable.length === 0) return unmeasured([...reasons, "no samples to measure"]);

  // Budget: the worst case over the distinct answer texts, checked before any call.
  const distinct = new Set(answers.map((i) => normaliseAnswer(texts[i] ?? ""))).size;
  const worstNeeded = distinct * (distinct - 1);
  if (options.maxEntailmentCalls !== undefined && worstNeeded > options.maxEntailmentCalls) {
    return { ...unmeasured([...reasons, `entailment budget ${options.maxEntailmentCalls} is below the worst case of ${worstNeeded} calls for ${distinct} distinct answers; nothing was sent`]), overBudget: true };
  }

  const clusters: Array<{ members: number[]; refusal: boolean }> = [];
  const assignments = texts.map(() => -1);
  const judgements: Judgement[] = [];
  let calls = 0;
  const judge = async (a: number, b: number): Promise<Judgement> => {
    const ta = texts[a] ?? "";
    const tb = texts[b] ?? "";
    if (ta === tb) return { a, b, source: "exact", equivalent: true };
    if (normaliseAnswer(ta) === normaliseAnswer(tb)) return { a, b, source: "normalised", equivalent: true };
    const pairF = { premise: withQuestion(question, ta), hypothesis: withQuestion(question, tb) };
    const pairB = { premise: pairF.hypothesis, hypothesis: pairF.premise };
    const cachedF = cache.get(pairF, backend.version);
    const cachedB = cache.get(pairB, backend.version);
    const needed = [...(cachedF ? [] : [pairF]), ...(cachedB ? [] : [pairB])];
    // One result per pair needed, each valid: checkedBackend.
    const fresh = needed.length > 0 ? await backend.classify(needed) : [];
    calls += needed.length;
    const forward = cachedF ?? (fresh.shift() as NliResult);
    const backward = cachedB ?? (fresh.shift() as NliResult);
    cache.set(pairF, backend.version, forward);
    cache.set(pairB, backend.version, backward);
    return { a, b, source: needed.length === 0 ? "cache" : "backend", equivalent: argmaxIsEntailment(forward) && argmaxIsEntailment(backward), forward, backward };
  };

  try {
    for (const i of usable) {
      if (refusal[i]) {
        // Refusals are pinned to one cluster: "I don't know" and "No idea" are one non-answer.
        let c = clusters.findIndex((x) => x.refusal);
        if (c < 0) c = clusters.push({ members: [], refusal: true }) - 1;
        clusters[c]?.members.push(i);
        assignments[i] = c;
        continue;
      }
      let placed = -1;
      for (const [c, cluster] of clusters.entries()) {
        if (cluster.refusal) continue;
        const leader = cluster.members[0];
        if (leader === undefined) continue;
        const j = await judge(leader, i);
        judgements.push(j);
        if (j.equivalent) {
          placed = c;
          break;
        }
      }
      if (placed < 0) placed = clusters.push({ members: [], refusal: false }) - 1;
      clusters[placed]?.members.push(i);
      assignments[i] = placed;
    }
  } catch (error) {
    return { ...unmeasured([...reasons, backendFailure(info.name, error)]), judgements, entailmentCalls: calls };
  }

  const counts = clusters.map((c) => c.members.length);
  const masses =
    estimator === "rao-blackwell"
      ? raoBlackwellMasses(
          clusters.map((c) => c.members),
          texts.map((_, i) => {
            const lp = logProbs[i];
            return typeof lp === "number" ? lp : -Infinity;
          }),
        )
      : counts.map((c) => c / usable.length);
  const entropy = entropyOf(masses);
  const stringCounts = new Map<string, number>();
  for (const i of usable) stringCounts.set(texts[i] ?? "", (stringCounts.get(texts[i] ?? "") ?? 0) + 1);
  const naive = entropyOf([...stringCounts.values()]);
  const maxEntropy = Math.log(usable.length);
  return {
    question,
    samples: texts,
    clusters: clusters.map((c, id) => ({ id, members: c.members, mass: masses[id] ?? 0, representative: texts[c.members[0] ?? 0] ?? "", refusal: c.refusal })),
    assignments,
    judgements,
    entropy,
    normalizedEntropy: maxEntropy > 0 ? entropy / maxEntropy : 0,
    naiveEntropy: naive,
    lexicalEntropy: naive - entropy,
    agreement: Math.max(...masses),
    estimator,
    diagnostics: {
      samples: usable.length,
      clusters: clusters.length,
      singletons: counts.filter((c) => c === 1).length,
      doubletons: counts.filter((c) => c === 2).length,
      chao1: chao1(counts),
      millerMadow: millerMadow(counts),
    },
    reliable: reasons.length === 0,
    abstained,
    reasons: abstained ? [...reasons, `all ${usable.length} samples declined to answer`] : reasons,
    entailmentCalls: calls,
    overBudget: false,
    worstCaseCalls,
    backend: info,
  };
}
