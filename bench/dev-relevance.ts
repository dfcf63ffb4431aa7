/**
 * Pieces bench/relevance.ts and bench/cause.ts share: the dev sets a run reads (--set, --limit),
 * and the relevance of a context to a claim as the scorer measures it without a question
 * (core's queryContextRelevance, the one calibrate fits with). The swap of contexts between rows is
 * core's swapPartners (core/relevance-fit.ts), the one `groundwatch calibrate` uses too.
 */
import type { EntailmentBackend } from "../src/core/backend.ts";
import { createWindowCache } from "../src/core/context.ts";
import { queryContextRelevance } from "../src/core/relevance-fit.ts";
import type { TextAnalyzer } from "../src/core/text.ts";
import { DEFAULT_LIMITS, DEFAULT_SETTINGS } from "../src/config/defaults.ts";
import type { DevRow } from "../scripts/devsets.ts";
import { loadDevSets } from "../scripts/devsets.ts";
import { flag } from "./args.ts";

/** The dev sets named by --set (all when absent), each cut to --limit rows; an unknown name throws. */
export function selectedDevSets(): Map<string, DevRow[]> {
  const limit = Number(flag("limit") ?? Infinity);
  const all = loadDevSets();
  const only = flag("set") === undefined ? undefined : new Set((flag("set") ?? "").split(","));
  const sets = new Map([...all].filter(([name]) => !only || only.has(name)).map(([name, rows]) => [name, rows.slice(0, limit)] as const));
  if (only && sets.size !== only.size) throw new Error(`--set: unknown set in ${[...only].join(",")} (have ${[...all.keys()].join(", ")})`);
  return sets;
}

/** The best relevance of a context (one document) to a claim, over the windows the scorer cuts with the default settings. */
export function claimRelevance(backend: EntailmentBackend, analyzer: TextAnalyzer): (claim: string, context: string) => Promise<number> {
  const deps = { backend, analyzer, topK: DEFAULT_SETTINGS.topK, tokenBudget: DEFAULT_SETTINGS.tokenBudget, cache: createWindowCache(DEFAULT_LIMITS.cacheBytes / 2) };
  return (claim, context) => queryContextRelevance({ answer: claim }, context, deps);
}
