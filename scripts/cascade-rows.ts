/**
 * The dev sets as the cascade's fit and benchmark read them (core/cascade-fit.ts): every row scored
 * by the offline tier with the shipped settings (each claim's score and strongest contradiction),
 * cut into halves by id (devsets.ts inFitHalf). Sets whose licence does not allow fitting (ANLI)
 * have no fit half: they are only checked.
 */
import type { CascadeRow, CascadeSet } from "../src/core/cascade-fit.ts";
import { createGroundednessScorer } from "../src/core/groundedness.ts";
import { createTextAnalyzer } from "../src/core/text.ts";
import { createOfflineBackend } from "../src/nli/offline/backend.ts";
import { DEFAULT_LIMITS, DEFAULT_SETTINGS } from "../src/config/defaults.ts";
import { FIT_ALLOWED, inFitHalf, loadDevSets } from "./devsets.ts";

/** Every dev set scored by the offline tier and halved; `limit` rows per set at most (for a quick look). */
export async function cascadeSets(limit = Infinity): Promise<{ sets: CascadeSet[]; backend: string; threshold: number }> {
  const analyzer = createTextAnalyzer({ cacheBytes: DEFAULT_LIMITS.cacheBytes / 2 });
  const backend = createOfflineBackend({ analyzer });
  const threshold = backend.recommendedThreshold ?? DEFAULT_SETTINGS.threshold;
  const scorer = createGroundednessScorer(backend, analyzer, { ...DEFAULT_SETTINGS, threshold, windowCacheBytes: DEFAULT_LIMITS.cacheBytes / 2 });
  const sets: CascadeSet[] = [];
  for (const [name, all] of loadDevSets()) {
    const fit: CascadeRow[] = [];
    const check: CascadeRow[] = [];
    for (const row of all.slice(0, limit)) {
      const r = await scorer.score({ answer: row.claim, context: row.context });
      const scored: CascadeRow = { label: row.label, claims: r.claims.map((c) => ({ score: c.score, contradiction: c.contradiction })) };
      if (!inFitHalf(row)) check.push(scored);
      else if (FIT_ALLOWED.has(name)) fit.push(scored);
    }
    sets.push({ name, fit, check });
    console.error(`${name}: scored`);
  }
  await backend.close();
  return { sets, backend: `${backend.name} ${backend.version}`, threshold };
}
