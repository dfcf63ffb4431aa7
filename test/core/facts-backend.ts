import type { NliPair, NliResult } from "../../src/core/backend.ts";
import type { FakeBackend } from "../helpers/fake-backend.ts";
import { createFakeBackend } from "../helpers/fake-backend.ts";
import { cityKey, yearKey } from "../helpers/meaning-backend.ts";

const ENTAIL: NliResult = { entailment: 0.9, neutral: 0.05, contradiction: 0.05 };
const CONTRADICT: NliResult = { entailment: 0.05, neutral: 0.15, contradiction: 0.8 };
const NEUTRAL: NliResult = { entailment: 0.1, neutral: 0.8, contradiction: 0.1 };

/**
 * A backend that reads facts — the city and the year named — from both sides: the premise
 * entails a hypothesis when it names every fact the hypothesis names with the same value, and
 * contradicts it when it names one with another value; a hypothesis naming no fact is neutral.
 * So "Signed in Berlin, ratified in 2004." entails "It was signed in Berlin." and contradicts
 * "It was ratified in 1998.", which one meaning key cannot express.
 */
export function factsBackend(): FakeBackend {
  return createFakeBackend({
    classify: (pairs: readonly NliPair[]): Promise<NliResult[]> =>
      Promise.resolve(
        pairs.map(({ premise, hypothesis }) => {
          let named = 0;
          for (const key of [cityKey, yearKey]) {
            const h = key(hypothesis);
            if (h === undefined) continue;
            named++;
            const p = key(premise);
            if (p === undefined) return NEUTRAL;
            if (p !== h) return CONTRADICT;
          }
          return named > 0 ? ENTAIL : NEUTRAL;
        }),
      ),
  });
}
