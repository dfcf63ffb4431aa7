/**
 * Scores every dev set with the scoring pipeline of one source tree: this checkout's, or another
 * revision's laid out in a directory (bench/quality-revision.ts). The rows are always read by this
 * checkout's loader, so two trees score the same rows. The tree's modules are imported from its
 * own files, so the other revision must have the same entry points: createGroundednessScorer
 * (src/core/groundedness.ts), createTextAnalyzer (src/core/text.ts), createOfflineBackend
 * (src/nli/offline/backend.ts), DEFAULT_LIMITS and DEFAULT_SETTINGS (src/config/defaults.ts).
 *
 *   npx tsx bench/quality-tree.ts --root DIR [--set NAME[,NAME…]] [--limit N] > scores.json
 *
 * The scorer has the shipped caches (analyses and windows, 16 MiB each): contexts that recur
 * across rows are read once, as in a monitor. Before timing it scores altered copies of 40 rows
 * of each set ("(warm-up)" appended, so nothing the timed rows could reuse is cached), so the
 * first set is not timed through a cold start. Unscorable answers score 0 (the pipeline fails closed).
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type * as Groundedness from "../src/core/groundedness.ts";
import type * as Text from "../src/core/text.ts";
import type * as Offline from "../src/nli/offline/backend.ts";
import type * as Defaults from "../src/config/defaults.ts";
import type { DevRow } from "../scripts/devsets.ts";
import { loadDevSets } from "../scripts/devsets.ts";
import { flag } from "./args.ts";

/** One set scored by one tree. */
export interface TreeSet {
  readonly scores: number[];
  readonly unscorable: number;
  readonly ms: number;
}

/** Every set scored by one tree, with the backend it scored with. */
export interface TreeScores {
  readonly backend: { readonly name: string; readonly version: string; readonly tier: string };
  readonly threshold: number;
  readonly topK: number;
  readonly tokenBudget: number;
  readonly sets: Record<string, TreeSet>;
}

/** The dev sets to score: all, or those `--set` names, each cut to `--limit` rows. */
export function selectedSets(only: readonly string[] | undefined, limit: number): Map<string, DevRow[]> {
  const all = loadDevSets();
  const wanted = only ? new Set(only) : undefined;
  const sets = new Map([...all].filter(([name]) => !wanted || wanted.has(name)).map(([name, rows]) => [name, rows.slice(0, limit)]));
  if (wanted && sets.size !== wanted.size) throw new Error(`--set: unknown set in ${[...wanted].join(",")} (have ${[...all.keys()].join(", ")})`);
  return sets;
}

const load = async <T>(root: string, path: string): Promise<T> => (await import(pathToFileURL(resolve(root, path)).href)) as T;

/** Scores the sets with the tree at `root`, timing each set after the warm-up. */
export async function scoreTree(root: string, sets: ReadonlyMap<string, readonly DevRow[]>): Promise<TreeScores> {
  const { createGroundednessScorer } = await load<typeof Groundedness>(root, "src/core/groundedness.ts");
  const { createTextAnalyzer } = await load<typeof Text>(root, "src/core/text.ts");
  const { createOfflineBackend } = await load<typeof Offline>(root, "src/nli/offline/backend.ts");
  const { DEFAULT_LIMITS, DEFAULT_SETTINGS } = await load<typeof Defaults>(root, "src/config/defaults.ts");
  const analyzer = createTextAnalyzer({ cacheBytes: DEFAULT_LIMITS.cacheBytes / 2 });
  const backend = createOfflineBackend({ analyzer });
  const threshold = backend.recommendedThreshold ?? DEFAULT_SETTINGS.threshold;
  const scorer = createGroundednessScorer(backend, analyzer, { ...DEFAULT_SETTINGS, threshold, windowCacheBytes: DEFAULT_LIMITS.cacheBytes / 2 });
  for (const row of [...loadDevSets().values()].flatMap((rows) => rows.slice(0, 40))) {
    await scorer.score({ answer: `${row.claim} (warm-up)`, context: `${row.context} (warm-up)` });
  }
  const out: Record<string, TreeSet> = {};
  for (const [name, rows] of sets) {
    const scores: number[] = [];
    let unscorable = 0;
    const t0 = performance.now();
    for (const row of rows) {
      const r = await scorer.score({ answer: row.claim, context: row.context });
      if (r.verdict === "unscorable") unscorable++;
      scores.push(r.score ?? 0);
    }
    out[name] = { scores, unscorable, ms: performance.now() - t0 };
    console.error(`${name}: done (${root})`);
  }
  await backend.close();
  return { backend: { name: backend.name, version: backend.version, tier: backend.tier }, threshold, topK: DEFAULT_SETTINGS.topK, tokenBudget: DEFAULT_SETTINGS.tokenBudget, sets: out };
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const root = flag("root") ?? resolve(import.meta.dirname, "..");
  const limit = flag("limit");
  const sets = selectedSets(flag("set")?.split(","), limit === undefined ? Infinity : Number(limit));
  process.stdout.write(`${JSON.stringify(await scoreTree(root, sets))}\n`);
}
