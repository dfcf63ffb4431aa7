import type { Quantity } from "../../core/quantities.ts";
import type { TextProfile } from "./features.ts";

/**
 * The evidence's quantities in the sentences a claim is about, and the rest. A sentence is
 * aligned when it shares at least half as many of the claim's content words outside its
 * quantities as the best sentence does (at least one); when none shares any (a claim that is
 * all numbers), every sentence is.
 */
export function alignedQuantities(premise: TextProfile, hypothesis: TextProfile): { aligned: Quantity[]; unrelated: Quantity[] } {
  if (hypothesis.quantities.length === 0) return { aligned: [], unrelated: [] };
  const shared = premise.sentences.map((s) => {
    let n = 0;
    for (const l of hypothesis.otherLemmas) if (s.lemmas.has(l)) n++;
    return n;
  });
  const best = shared.reduce((a, b) => Math.max(a, b), 0);
  if (best === 0) return { aligned: [...premise.quantities], unrelated: [] };
  const aligned: Quantity[] = [];
  const unrelated: Quantity[] = [];
  premise.sentences.forEach((s, k) => (2 * (shared[k] ?? 0) >= best ? aligned : unrelated).push(...s.quantities));
  return { aligned, unrelated };
}

