import type { NliPair, NliResult } from "../../src/core/backend.ts";
import type { FakeBackend } from "./fake-backend.ts";
import { createFakeBackend } from "./fake-backend.ts";

/**
 * A backend that judges entailment by a "meaning key" extracted from each side (e.g.
 * the year or the city named): same key → entailment, different keys → contradiction,
 * no key on either side → neutral.
 */
export function meaningBackend(key: (text: string) => string | undefined): FakeBackend {
  return createFakeBackend({
    classify: (pairs: readonly NliPair[]): Promise<NliResult[]> =>
      Promise.resolve(
        pairs.map(({ premise, hypothesis }) => {
          const a = key(premise);
          const b = key(hypothesis);
          if (a === undefined || b === undefined) return { entailment: 0.1, neutral: 0.8, contradiction: 0.1 };
          return a === b ? { entailment: 0.9, neutral: 0.05, contradiction: 0.05 } : { entailment: 0.05, neutral: 0.15, contradiction: 0.8 };
        }),
      ),
  });
}

export const yearKey = (t: string): string | undefined => /\b(1[0-9]{3}|20[0-9]{2})\b/.exec(t)?.[1];
export const cityKey = (t: string): string | undefined => /\b(Paris|Lyon|Berlin|Canberra|Sydney)\b/.exec(t)?.[1];
