import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { EntailmentBackend, NliPair, NliResult, PremiseSource, RelevancePair } from "../../core/backend.ts";
import { createByteLru } from "../../core/byte-lru.ts";
import type { AnalyzedText, TextAnalyzer, Token } from "../../core/text.ts";
import { sliceAnalysis } from "../../core/text.ts";
import type { TextProfile } from "./profile.ts";
import { extractFeatures } from "./features.ts";
import { profileText } from "./profile-text.ts";
import type { Lexicon } from "./lexicon.ts";
import { loadLexicon } from "./lexicon.ts";
import type { OfflineModel } from "./model.ts";
import { combine, parseOfflineModel, predict } from "./model.ts";
import { queryTerms, relevanceScore } from "./relevance.ts";

/**
 * Longest document whose windows are read inside its analysis: its analysis is usually still in
 * the analyser's cache from cutting it into windows, and analysing it again (when it is not)
 * costs at most a few windows' worth. Windows of longer documents are analysed on their own.
 */
export const MAX_SOURCE_CHARS = 32_768;

export const DEFAULT_WEIGHTS_PATH = fileURLToPath(new URL("./weights.json", import.meta.url));

export interface OfflineBackendOptions {
  /** Shared text analyser (the same one the scorer uses). */
  readonly analyzer: TextAnalyzer;
  /** Lexicon to use; loaded from data/lexicon when omitted. */
  readonly lexicon?: Lexicon;
  /** Fitted model; read from the shipped weights.json when omitted. */
  readonly model?: OfflineModel;
  /** Premise analyses kept for reuse (windows recur across the claims of one answer). */
  readonly cacheSize?: number;
}

export function loadOfflineModel(path: string = DEFAULT_WEIGHTS_PATH): OfflineModel {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(`offline backend: cannot read weights ${path} (${(error as Error).message})`);
  }
  return parseOfflineModel(json, path);
}

/**
 * The relevance thresholds fitted for the offline relevance scorer by `npm run bench:cause -- --fit`
 * (core/relevance-fit.ts: balanced accuracy on the fit halves of the permissively licensed dev
 * sets, 2026-12-01; the table and held-out figures are in docs/benchmarks.md). Not in weights.json:
 * the relevance scorer is not part of the fitted NLI model, and fit:offline rewrites that file.
 * Context: own vs swapped context (3,348 pairs, balanced accuracy 0.905); answer: own answer vs
 * another question's, HaluEval QA only (776 pairs, balanced accuracy 0.799: weakly separated).
 */
export const OFFLINE_RELEVANCE_THRESHOLDS = { context: 0.4445, answer: 0.1664 } as const;

/**
 * The embedded triage backend: lexical, vector and quantity features combined by a
 * logistic model. Deterministic, no download, ~1 ms a pair. Its relevance is lexical and
 * embedding coverage of the query by the passage (see relevance.ts).
 */
export function createOfflineBackend(options: OfflineBackendOptions): EntailmentBackend {
  const lexicon = options.lexicon ?? loadLexicon();
  const model = options.model ?? loadOfflineModel();
  // Both caches are bounded by entries (each counts 1 against cacheSize), least recently used out first.
  const cacheSize = options.cacheSize ?? 512;
  const cache = createByteLru<TextProfile>(cacheSize);
  const profile = (text: string): TextProfile => {
    const hit = cache.get(text);
    if (hit) return hit;
    const p = profileText(options.analyzer.analyze(text));
    cache.set(text, p, 1);
    return p;
  };
  // A window of a document is read inside the document's analysis (deterministically: always so
  // for a document up to MAX_SOURCE_CHARS, never for a longer one), kept beside the source it was
  // read from, so a window of the same text cut from another document is read again.
  const windowCache = createByteLru<{ source: PremiseSource; profile: TextProfile }>(cacheSize);
  // A relevance passage with a source is read the same way (the windows it scores are mostly those classify read).
  const premiseProfile = (text: string, source: PremiseSource | undefined, documents: Map<string, AnalyzedText>): TextProfile => {
    if (!source || source.document.length > MAX_SOURCE_CHARS) return profile(text);
    const hit = windowCache.get(text);
    if (hit && hit.source.start === source.start && hit.source.end === source.end && hit.source.document === source.document) return hit.profile;
    let doc = documents.get(source.document);
    if (!doc) documents.set(source.document, (doc = options.analyzer.analyze(source.document)));
    const p = profileText(sliceAnalysis(doc, source.start, source.end));
    windowCache.set(text, { source, profile: p }, 1);
    return p;
  };
  type Hypothesis = { readonly text: string; readonly doc: AnalyzedText; readonly profile: TextProfile };
  // A claim is sent with each of its windows, adjacent in one batch: analyse it once, not per window.
  const classifyOne = (pair: NliPair, previous: Hypothesis | undefined, documents: Map<string, AnalyzedText>): { result: NliResult; hyp: Hypothesis } => {
    const premise = premiseProfile(pair.premise, pair.source, documents);
    let hyp = previous;
    if (hyp?.text !== pair.hypothesis) {
      const doc = options.analyzer.analyze(pair.hypothesis);
      hyp = { text: pair.hypothesis, doc, profile: profileText(doc) };
    }
    const features = extractFeatures(premise, hyp.profile, hyp.doc, lexicon);
    const { entailment, contradiction } = combine(predict(model, features.values), features);
    return { result: { entailment, contradiction, neutral: Math.max(0, 1 - entailment - contradiction), notes: features.notes }, hyp };
  };
  return {
    name: "offline",
    version: model.version,
    tier: "triage",
    recommendedThreshold: model.threshold,
    recommendedRelevanceThresholds: OFFLINE_RELEVANCE_THRESHOLDS,
    classify(pairs: readonly NliPair[]): Promise<NliResult[]> {
      try {
        let hyp: Hypothesis | undefined;
        // Each document is analysed at most once per batch, whatever the analyser's cache holds.
        const documents = new Map<string, AnalyzedText>();
        return Promise.resolve(
          pairs.map((pair) => {
            const one = classifyOne(pair, hyp, documents);
            hyp = one.hyp;
            return one.result;
          }),
        );
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    },
    relevanceScorer: { name: "offline-lexical" },
    relevance(pairs: readonly RelevancePair[]): Promise<number[]> {
      try {
        // A query recurs across its passages: its words are read once per batch.
        const queries = new Map<string, Token[]>();
        const documents = new Map<string, AnalyzedText>();
        return Promise.resolve(
          pairs.map((pair) => {
            let terms = queries.get(pair.query);
            if (!terms) queries.set(pair.query, (terms = queryTerms(options.analyzer.analyze(pair.query))));
            return relevanceScore(premiseProfile(pair.passage, pair.source, documents), terms, lexicon);
          }),
        );
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    },
    close(): Promise<void> {
      cache.clear();
      windowCache.clear();
      return Promise.resolve();
    },
  };
}
