import type { EntailmentBackend, NliPair, NliResult, RelevancePair } from "../../src/core/backend.ts";

/** A scripted backend that records every pair it is asked about. */
export interface FakeBackend extends EntailmentBackend {
  readonly calls: NliPair[][];
}

/**
 * Entailment = 0.9 when the premise contains the hypothesis' marker word (the last
 * word of the hypothesis, lowercased, without punctuation), else 0.1; contradiction
 * 0.8 when the premise contains "NOT-" + that word.
 */
export function createFakeBackend(overrides: Partial<Pick<EntailmentBackend, "classify" | "recommendedThreshold" | "relevance" | "recommendedRelevanceThresholds">> = {}): FakeBackend {
  const calls: NliPair[][] = [];
  const classify =
    overrides.classify ??
    ((pairs: readonly NliPair[]): Promise<NliResult[]> =>
      Promise.resolve(
        pairs.map((p) => {
          const marker = (p.hypothesis.trim().split(/\s+/).pop() ?? "").replace(/[^\w-]/g, "").toLowerCase();
          const premise = p.premise.toLowerCase();
          if (premise.includes(`not-${marker}`)) return { entailment: 0.05, neutral: 0.15, contradiction: 0.8 };
          return premise.includes(marker) ? { entailment: 0.9, neutral: 0.08, contradiction: 0.02 } : { entailment: 0.1, neutral: 0.85, contradiction: 0.05 };
        }),
      ));
  return {
    name: "fake",
    version: "1",
    tier: "production",
    calls,
    ...(overrides.recommendedThreshold !== undefined ? { recommendedThreshold: overrides.recommendedThreshold } : {}),
    ...(overrides.recommendedRelevanceThresholds !== undefined ? { recommendedRelevanceThresholds: overrides.recommendedRelevanceThresholds } : {}),
    ...(overrides.relevance ? { relevance: (pairs: readonly RelevancePair[]) => overrides.relevance?.(pairs) ?? Promise.resolve([]) } : {}),
    classify(pairs: readonly NliPair[]): Promise<NliResult[]> {
      calls.push([...pairs]);
      return classify(pairs);
    },
    close: () => Promise.resolve(),
  };
}
