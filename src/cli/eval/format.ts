// How the eval reports print numbers and user text; every renderer formats through these.

/** A rate or share as a percentage with one decimal; null is "–". */
export const pct = (x: number | null): string => (x === null ? "–" : `${(100 * x).toFixed(1)}%`);

/** A score as the reports print it; anything but a finite number (a hand-edited baseline) is "–". */
export const fixed3 = (x: unknown): string => (typeof x === "number" && Number.isFinite(x) ? x.toFixed(3) : "–");

/** Passes user text (file paths) through unchanged; the Markdown report passes mdText instead. */
export const plain = (text: string): string => text;
