/**
 * Context relevance: how well the retrieved documents address the question (or, without one,
 * each claim of the answer), per document and the best, scored by the backend's `relevance` over
 * the windows the scorer already cut. Pure over the port: no I/O of its own.
 */
import type { EntailmentBackend, RelevancePair } from "./backend.ts";
import type { ContextWindow } from "./context.ts";
import { checkedBackend } from "./checked-backend.ts";
import { contentTerms } from "./context.ts";
import type { TextAnalyzer } from "./text.ts";
import { relevancePairKey } from "./pair-key.ts";
import { indexWindows } from "./window-index.ts";

/** Windows of each document scored per query when the caller sets none (the scorer's default top-k). */
export const DEFAULT_RELEVANCE_TOP_K = 3;

export interface ContextRelevanceInput {
  /** The user's question. When absent or blank, relevance is measured against each of `claims`. */
  readonly question?: string;
  /** Claim texts, measured against when there is no question (the documents' relevance to each). */
  readonly claims?: readonly string[];
  /** The context's windows, as `buildWindows` cut and numbered them. */
  readonly windows: readonly ContextWindow[];
  /** Documents in the context; one with no window (an empty one) scores 0. Default: one past the last window's document. */
  readonly documents?: number;
  /** The backend whose `relevance` scores each (query, window) pair. */
  readonly backend: EntailmentBackend;
  /** The scorer's text analyser: a query's content lemmas rank the windows. */
  readonly analyzer: TextAnalyzer;
  /** Windows of each document scored per query, those sharing most words with it first. Default 3. */
  readonly topK?: number;
  /** The documents' texts the windows' offsets point into: each pair then names its source (RelevancePair.source). */
  readonly documentTexts?: readonly string[];
  /** Other pairs scored in the same batch (the answer against the question), returned as `extra`. */
  readonly extra?: readonly RelevancePair[];
}

/** Relevance of a context to one query. */
export interface ContextRelevance {
  /** Per document, in context order: its best-scoring window's relevance, in [0, 1]. */
  readonly perDocument: readonly number[];
  /** The best over the documents (0 for a context with none). */
  readonly best: number;
}

export interface ContextRelevanceResult extends ContextRelevance {
  /** Which text the documents were measured against. */
  readonly against: "question" | "claims";
  /** Pairs sent to the backend's relevance scorer, `extra` included. */
  readonly pairs: number;
  /** The scores of the input's `extra` pairs, in order. */
  readonly extra: readonly number[];
  /**
   * Without a question: per claim, in order, the documents' relevance to it. The top-level
   * `perDocument` and `best` are then each document's best over the claims.
   */
  readonly perClaim?: readonly ContextRelevance[];
}

/**
 * Scores the context's relevance. Each query is sent with at most `topK` windows of each
 * document (ranked by shared content lemmas; a document sharing none is read from its first
 * windows), all pairs in one batch. Rejects when the backend has no relevance scorer, when there
 * is neither a question nor a claim, or when the backend's answer is not one score in [0, 1] per
 * pair — a relevance is never guessed.
 */
export async function contextRelevance(input: ContextRelevanceInput): Promise<ContextRelevanceResult> {
  const { analyzer, windows } = input;
  const backend = checkedBackend(input.backend);
  if (!backend.relevance) throw new Error(`context relevance: backend ${backend.name} has no relevance scorer`);
  const question = input.question?.trim() ? input.question : undefined;
  const queries = question !== undefined ? [question] : (input.claims ?? []);
  if (queries.length === 0) throw new Error("context relevance: needs a question or at least one claim");
  const topK = Math.max(1, Math.floor(input.topK ?? DEFAULT_RELEVANCE_TOP_K));
  const documents = input.documents ?? windows.reduce((n, w) => Math.max(n, w.doc + 1), 0);

  // Numbered by position, as the index reads them, whatever ids the caller's windows carry.
  const numbered = windows.map((w, id) => ({ ...w, id }));
  const index = indexWindows(numbered);
  const byDocument: ContextWindow[][] = Array.from({ length: documents }, () => []);
  for (const w of numbered) byDocument[w.doc]?.push(w);

  // Per query and document, the windows to score; each distinct (query, passage) pair is sent once.
  const pairs: RelevancePair[] = [];
  const pairIndex = new Map<string, number>();
  const plans = queries.map((query) => {
    const ranked = index.top(contentTerms(analyzer.analyze(query).tokens), numbered.length);
    const chosen: ContextWindow[][] = byDocument.map(() => []);
    for (const w of ranked) {
      const list = chosen[w.doc];
      if (list && list.length < topK) list.push(w);
    }
    return chosen.map((list, doc) =>
      (list.length > 0 ? list : (byDocument[doc] ?? []).slice(0, topK)).map((w) => {
        const key = relevancePairKey({ query, passage: w.text });
        let at = pairIndex.get(key);
        if (at === undefined) {
          const document = input.documentTexts?.[w.doc];
          at = pairs.push({ query, passage: w.text, ...(document === undefined ? {} : { source: { document, start: w.start, end: w.end } }) }) - 1;
          pairIndex.set(key, at);
        }
        return at;
      }),
    );
  });

  const windowPairs = pairs.length;
  pairs.push(...(input.extra ?? []));
  // One score in [0, 1] per pair, or a BackendReplyError: checkedBackend.
  const scores = pairs.length === 0 ? [] : await backend.relevance(pairs);

  const perQuery = plans.map((chosen): ContextRelevance => {
    const perDocument = chosen.map((ats) => ats.reduce((best, at) => Math.max(best, scores[at] ?? 0), 0));
    return { perDocument, best: perDocument.reduce((a, b) => Math.max(a, b), 0) };
  });
  const extra = scores.slice(windowPairs);
  if (question !== undefined) return { against: "question", pairs: pairs.length, extra, ...(perQuery[0] ?? { perDocument: [], best: 0 }) };
  const perDocument = Array.from({ length: documents }, (_, doc) => perQuery.reduce((best, r) => Math.max(best, r.perDocument[doc] ?? 0), 0));
  return { against: "claims", pairs: pairs.length, extra, perDocument, best: perDocument.reduce((a, b) => Math.max(a, b), 0), perClaim: perQuery };
}
