/**
 * Fitting the relevance thresholds (contextRelevanceThreshold, answerRelevanceThreshold) from
 * labelled examples, in one place for the cause benchmark (bench/cause.ts --fit, which fits the
 * offline backend's recommended thresholds) and `groundwatch calibrate` (the user's own set).
 * Pure: the relevance scores come in.
 *
 * The examples are built by swapping: a query (question, or claim without one) with its own
 * context is relevant, the same query with another row's context is not (swapPartners); with a
 * question, its own answer is on-topic and another row's answer is off-topic. Rows labelled with a
 * cause are used as given: `generation` (the context addresses it) is relevant, `retrieval` is not.
 *
 * The threshold maximises balanced accuracy (Youden's J) of relevant vs not: the threshold's job
 * is exactly that decision (does the context address the query), both kinds count equally
 * whatever their numbers, and it does not depend on which answers the groundedness check flags.
 */
import { answerRelevance } from "./cause-analysis.ts";
import type { EntailmentBackend } from "./backend.ts";
import type { AurocEstimate } from "./calibration.ts";
import { aurocWithInterval, chooseThreshold } from "./calibration.ts";
import type { ContextInput, WindowCache } from "./context.ts";
import { buildWindows, contextTexts } from "./context.ts";
import { contextRelevance } from "./relevance.ts";
import { rng } from "./rng.ts";
import type { TextAnalyzer } from "./text.ts";

/** Fewest examples of each kind (relevant, not relevant) a threshold is fitted from; fewer keep the default. */
export const MIN_RELEVANCE_FIT_EXAMPLES = 20;

/** One relevance score and whether its text addresses the query (own context or answer) or not (swapped, or labelled retrieval). */
export interface RelevanceExample {
  readonly score: number;
  readonly relevant: boolean;
}

/** A fitted threshold with the evidence for it, or why none was fitted. */
export type RelevanceFit =
  | {
      readonly fitted: true;
      /** Scores at or above it address the query. */
      readonly threshold: number;
      /** (TPR + TNR) / 2 at the threshold, on the examples it was fitted on. */
      readonly balancedAccuracy: number;
      readonly tpr: number;
      readonly fpr: number;
      readonly auroc: Pick<AurocEstimate, "auroc" | "low" | "high">;
      readonly relevant: number;
      readonly irrelevant: number;
    }
  | {
      readonly fitted: false;
      /** One plain sentence: why no threshold was fitted. */
      readonly reason: string;
      readonly relevant: number;
      readonly irrelevant: number;
    };

/**
 * Fits the threshold that maximises balanced accuracy, midway between the two scores it falls
 * between (the lowest counted relevant and the highest below it). Scores outside [0, 1] or not finite are
 * dropped. Not fitted when either kind has fewer than `minEach` examples (never a threshold from a
 * handful of rows).
 */
export function fitRelevanceThreshold(examples: readonly RelevanceExample[], minEach: number = MIN_RELEVANCE_FIT_EXAMPLES): RelevanceFit {
  const usable = examples.filter((e) => Number.isFinite(e.score) && e.score >= 0 && e.score <= 1);
  const relevant = usable.filter((e) => e.relevant).length;
  const irrelevant = usable.length - relevant;
  if (relevant < minEach || irrelevant < minEach) {
    return { fitted: false, reason: `too few examples to fit a threshold: ${relevant} relevant and ${irrelevant} not, at least ${minEach} of each needed`, relevant, irrelevant };
  }
  const scores = usable.map((e) => e.score);
  const labels = usable.map((e) => (e.relevant ? 1 : 0));
  // The stored threshold lies midway between the chosen score and the next lower one: the same split of these examples, not on a score.
  const choice = chooseThreshold(scores, labels, "youden");
  const est = aurocWithInterval(scores, labels);
  const threshold = choice.threshold;
  return {
    fitted: true,
    // A threshold above every score (nothing relevant) is clipped to the scale.
    threshold: Math.min(1, threshold),
    balancedAccuracy: (choice.tpr + 1 - choice.fpr) / 2,
    tpr: choice.tpr,
    fpr: choice.fpr,
    auroc: { auroc: est.auroc, low: est.low, high: est.high },
    relevant,
    irrelevant,
  };
}

/** Balanced accuracy of a given threshold on examples (scores at or above it count as relevant); NaN without both kinds. */
export function balancedAccuracyAt(examples: readonly RelevanceExample[], threshold: number): number {
  let tp = 0;
  let pos = 0;
  let tn = 0;
  let neg = 0;
  for (const e of examples) {
    if (e.relevant) {
      pos++;
      if (e.score >= threshold) tp++;
    } else {
      neg++;
      if (e.score < threshold) tn++;
    }
  }
  return pos === 0 || neg === 0 ? Number.NaN : (tp / pos + tn / neg) / 2;
}

/**
 * For each row, the index of another row whose key differs (the text swapped in: another row's
 * context, or an answer to another question): a seeded permutation, each row taking the first row
 * after its own place in it whose key is another text (sets hold several rows per context).
 * Undefined when every row shares one key. The same seed, the same partners.
 */
export function swapPartners(keys: readonly string[], seed: number): Array<number | undefined> {
  const next = rng(seed);
  const order = keys.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j] ?? 0, order[i] ?? 0];
  }
  const place = new Map(order.map((row, at) => [row, at]));
  return keys.map((key, i) => {
    const at = place.get(i) ?? 0;
    for (let k = 1; k < order.length; k++) {
      const other = order[(at + k) % order.length] ?? 0;
      if (keys[other] !== key) return other;
    }
    return undefined;
  });
}

/** A labelled row as the fit reads it: its question (if any), answer, context, and an explicit cause label (if any). */
export interface RelevanceFitRow {
  readonly question?: string | undefined;
  readonly answer: string;
  readonly context: ContextInput;
  /** Used as given: the context addresses the answer (`generation`) or it does not (`retrieval`); no swap is made for the row. */
  readonly cause?: "retrieval" | "generation" | undefined;
}

/** What the fit measures relevance with: the scoring backend and the scorer's window settings. */
export interface RelevanceFitDeps {
  readonly backend: EntailmentBackend;
  readonly analyzer: TextAnalyzer;
  readonly topK: number;
  readonly tokenBudget: number;
  readonly cache?: WindowCache;
}

/**
 * The best relevance of a context to what a scorer measures it against: the question when there
 * is one, else the answer as one claim (the scorer measures each failing claim of it). Core's
 * contextRelevance over the windows buildWindows cuts, as the scorer does.
 */
export async function queryContextRelevance(query: { readonly question?: string | undefined; readonly answer: string }, context: ContextInput, deps: RelevanceFitDeps): Promise<number> {
  const windows = buildWindows(context, deps.analyzer, { tokenBudget: deps.tokenBudget, ...(deps.cache ? { cache: deps.cache } : {}) });
  const documents = contextTexts(context).length;
  const common = { windows, documents, backend: deps.backend, analyzer: deps.analyzer, topK: deps.topK };
  const question = query.question?.trim() ? query.question : undefined;
  return (await contextRelevance(question !== undefined ? { ...common, question } : { ...common, claims: [query.answer] })).best;
}

/** The examples a labelled set gives, and how they were built. */
export interface RelevanceFitExamples {
  readonly context: RelevanceExample[];
  readonly answer: RelevanceExample[];
  /** Rows whose own and swapped context were measured (the swap). */
  readonly swappedRows: number;
  /** Rows used with their explicit cause label. */
  readonly labelledCauses: number;
  /** Rows with a question whose own answer and another question's answer were measured. */
  readonly answerPairs: number;
}

const hasText = (c: ContextInput): boolean => contextTexts(c).some((t) => t.trim() !== "");

/**
 * Builds the fit's examples from labelled rows: a row with a cause label gives its own context's
 * relevance as labelled; every other row with a context gives its own context (relevant) and the
 * context of another row (swapPartners by context text, seeded), not relevant. Rows with a question
 * also give their own answer's relevance to it (on-topic) and another question's answer's
 * (off-topic); a refusal on either side is left out (it counts as relevant to any question).
 * Rejects when the backend has no relevance scorer or fails.
 */
export async function relevanceFitExamples(rows: readonly RelevanceFitRow[], deps: RelevanceFitDeps, seed = 27): Promise<RelevanceFitExamples> {
  const withContext = rows.filter((r) => hasText(r.context));
  const context: RelevanceExample[] = [];
  let labelledCauses = 0;
  let swappedRows = 0;
  const partners = swapPartners(
    withContext.map((r) => JSON.stringify(r.context)),
    seed,
  );
  for (const [i, row] of withContext.entries()) {
    const own = await queryContextRelevance(row, row.context, deps);
    if (row.cause !== undefined) {
      labelledCauses++;
      context.push({ score: own, relevant: row.cause === "generation" });
      continue;
    }
    const other = withContext[partners[i] ?? -1];
    if (!other) continue;
    swappedRows++;
    context.push({ score: own, relevant: true }, { score: await queryContextRelevance(row, other.context, deps), relevant: false });
  }
  const asked = rows.filter((r) => r.question?.trim() && r.answer.trim());
  const answerPartners = swapPartners(
    asked.map((r) => r.question ?? ""),
    seed + 1,
  );
  const answer: RelevanceExample[] = [];
  for (const [i, row] of asked.entries()) {
    const other = asked[answerPartners[i] ?? -1];
    if (!other || row.question === undefined) continue;
    const own = await answerRelevance(row.question, row.answer, deps.backend, 0.5);
    const offTopic = await answerRelevance(row.question, other.answer, deps.backend, 0.5);
    if (own.refusal || offTopic.refusal) continue;
    answer.push({ score: own.score, relevant: true }, { score: offTopic.score, relevant: false });
  }
  return { context, answer, swappedRows, labelledCauses, answerPairs: answer.length / 2 };
}
