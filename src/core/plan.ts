import type { Claim, SkippedSentence } from "./claims/types.ts";
import { splitClaims } from "./claims/index.ts";
import type { ResolvedCitation } from "./citations.ts";
import { attachCitations } from "./citations.ts";
import type { ContextInput, ContextWindow, WindowCache, WindowOptions } from "./context.ts";
import { buildWindows, contentTerms } from "./context.ts";
import type { GroundednessSettings } from "./result.ts";
import type { TextAnalyzer } from "./text.ts";
import { indexWindows } from "./window-index.ts";
import type { WindowIndex } from "./window-index.ts";

/**
 * Planning the entailment calls of one answer: its claims and, for each, the context windows to
 * check it against (preselected, plus the best of each document it cites), the citation markers
 * each claim owns, and how many claims fit the per-answer entailment budget.
 */

/** The claims of an answer and, for each, the context windows to check it against. */
export interface ClaimCheckPlan {
  readonly claims: readonly Claim[];
  readonly skipped: readonly SkippedSentence[];
  readonly windows: readonly ContextWindow[];
  /** checks[i]: the windows preselected for claims[i], best first. */
  readonly checks: ReadonlyArray<readonly ContextWindow[]>;
  /** terms[i]: the content lemmas claims[i] is looked up by. */
  readonly terms: ReadonlyArray<readonly string[]>;
  /** The windows' index, for ranking them further (absent without claims). */
  readonly index?: WindowIndex;
}

/**
 * Splits the answer into claims and the context into windows, and preselects up to
 * `topK` windows per claim through an inverted index, so cost grows with claims × k.
 */
export function planClaimChecks(answer: string, context: ContextInput, analyzer: TextAnalyzer, settings: GroundednessSettings, cache?: WindowCache): ClaimCheckPlan {
  const segments = splitClaims(answer, analyzer);
  const all = segments.filter((s): s is Claim => s.kind === "claim");
  const limit = settings.maxClaims ?? Infinity;
  const claims = all.slice(0, limit);
  const skipped: SkippedSentence[] = [
    ...segments.filter((s): s is SkippedSentence => s.kind === "skipped"),
    ...all.slice(limit).map((c): SkippedSentence => ({ kind: "skipped", text: c.text, start: c.start, end: c.end, reason: "over_limit" })),
  ];
  if (claims.length === 0) return { claims, skipped, windows: [], checks: [], terms: [] };
  const windowOptions: WindowOptions = {
    tokenBudget: settings.tokenBudget,
    ...(settings.countTokens ? { countTokens: settings.countTokens } : {}),
    ...(cache ? { cache } : {}),
  };
  const windows = buildWindows(context, analyzer, windowOptions);
  const index = indexWindows(windows);
  const terms = claims.map((claim) => contentTerms(analyzer.analyze(claim.text).tokens));
  const checks = terms.map((t) => {
    const chosen = index.top(t, settings.topK);
    // No shared word at all: still let the backend judge (a paraphrase may entail),
    // against the leading windows, so the cost stays bounded by topK.
    return chosen.length > 0 ? chosen : windows.slice(0, settings.topK);
  });
  return { claims, skipped, windows, checks, terms, index };
}

/**
 * Per claim of the plan, the citation markers it owns. Each marker belongs to the claim it sits
 * in, or the one it follows (in the caller's offsets, through `toAnswer`). Skipped sentences take
 * part, so a marker after a question or an over-limit sentence is not handed to the claim before
 * it; such a marker belongs to no checked claim.
 */
export function attachMarkers(plan: Pick<ClaimCheckPlan, "claims" | "skipped">, resolved: readonly ResolvedCitation[], toAnswer: (offset: number) => number): ResolvedCitation[][] {
  const spans = [
    ...plan.claims.map((c, ci) => ({ start: toAnswer(c.start), end: toAnswer(c.end), claim: ci })),
    ...plan.skipped.map((x) => ({ start: toAnswer(x.start), end: toAnswer(x.end), claim: -1 })),
  ].sort((a, b) => a.start - b.start);
  const owner = attachCitations(resolved.map((c) => c.marker.start), spans).map((k) => spans[k]?.claim ?? -1);
  return plan.claims.map((_, ci) => resolved.filter((_, k) => owner[k] === ci));
}

/**
 * Windows to check per claim: the preselected ones, and for a cited claim the best of each cited
 * document. None for a claim citing a document that was not retrieved: it is decided with no model call.
 */
export function windowsToCheck(plan: ClaimCheckPlan, citedBy: ReadonlyArray<readonly ResolvedCitation[]>, topK: number): ContextWindow[][] {
  const { index, windows } = plan;
  return plan.checks.map((chosen, ci): ContextWindow[] => {
    const cites = citedBy[ci] ?? [];
    if (cites.some((c) => c.missing.length > 0)) return [];
    const docs = new Set(cites.flatMap((c) => c.docs));
    if (docs.size === 0 || !index) return [...chosen];
    const out = [...chosen];
    const ranked = index.top(plan.terms[ci] ?? [], windows.length);
    for (const doc of docs) {
      const own = ranked.filter((w) => w.doc === doc);
      for (const w of (own.length > 0 ? own : windows.filter((x) => x.doc === doc)).slice(0, topK)) if (!out.includes(w)) out.push(w);
    }
    return out;
  });
}

/** The per-answer entailment budget: how many leading claims' windows fit within `maxEntailmentCalls` (all without one). */
export function claimsWithinBudget(checks: ReadonlyArray<readonly ContextWindow[]>, maxEntailmentCalls: number | undefined): number {
  const budget = maxEntailmentCalls ?? Infinity;
  let planned = 0;
  for (const [ci, chosen] of checks.entries()) {
    if (planned + chosen.length > budget) return ci;
    planned += chosen.length;
  }
  return checks.length;
}
