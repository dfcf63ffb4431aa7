import type { ContextWindow } from "./context.ts";

/** Ranks context windows for a claim by BM25 over content lemmas. */
export interface WindowIndex {
  /** Up to `k` windows most similar to the terms, best first; windows sharing no term are never returned. */
  top(terms: readonly string[], k: number): ContextWindow[];
}

const K1 = 1.2;
const B = 0.75;

/**
 * Builds an inverted index once per context, so ranking a claim touches only the
 * windows that share a term with it, not every window.
 */
export function indexWindows(windows: readonly ContextWindow[]): WindowIndex {
  const postings = new Map<string, Array<{ window: number; tf: number }>>();
  let totalLength = 0;
  for (const w of windows) {
    totalLength += w.terms.length;
    const tf = new Map<string, number>();
    for (const t of w.terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [term, n] of tf) {
      let list = postings.get(term);
      if (!list) postings.set(term, (list = []));
      list.push({ window: w.id, tf: n });
    }
  }
  const avgLength = windows.length > 0 ? totalLength / windows.length : 1;
  const n = windows.length;
  return {
    top(terms: readonly string[], k: number): ContextWindow[] {
      const scores = new Map<number, number>();
      for (const term of new Set(terms)) {
        const list = postings.get(term);
        if (!list) continue;
        const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
        for (const { window, tf } of list) {
          const len = windows[window]?.terms.length ?? avgLength;
          const s = (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * len) / Math.max(avgLength, 1)));
          scores.set(window, (scores.get(window) ?? 0) + s);
        }
      }
      return [...scores.entries()]
        .sort((a, b) => b[1] - a[1] || a[0] - b[0])
        .slice(0, k)
        .map(([id]) => windows[id])
        .filter((w): w is ContextWindow => w !== undefined);
    },
  };
}
