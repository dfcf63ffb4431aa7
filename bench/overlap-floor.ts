/** The word-overlap floor every quality benchmark prints beside its scores (bench/quality.ts, bench/relevance.ts). */
/**
 * The floor: the share of the claim's content words (lowercase words and numbers,
 * minus a fixed stop list) found anywhere in the context. Plain surface forms, as
 * the dev sets' README defines it; no lemmas, no windows, no model.
 */
const STOP = new Set(
  "a an the of to in on at for from by with and or but is are was were be been being it its this that these those he she they we you i his her their our your my me him them us as not no do does did has have had will would can could should may might must so if then than there here what which who whom whose when where why how all any some such only also just very more most other into about over after before up down out off again further once".split(" "),
);
function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => !STOP.has(w));
}
export function overlapFloor(context: string, claim: string): number {
  const ctx = new Set(contentWords(context));
  const words = contentWords(claim);
  return words.length === 0 ? 0 : words.filter((w) => ctx.has(w)).length / words.length;
}
