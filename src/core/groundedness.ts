import type { BackendInfo, EntailmentBackend, NliPair, NliResult } from "./backend.ts";
import { backendInfo } from "./backend.ts";
import type { Claim, SkippedSentence } from "./claims.ts";
import { splitClaims } from "./claims.ts";
import type { ContextInput, ContextWindow, WindowCache, WindowOptions } from "./context.ts";
import { buildWindows, contentTerms, createWindowCache } from "./context.ts";
import type { ResampleSupport } from "./entropy/claim-consistency.ts";
import type { CappedText, LimitName } from "./limits.ts";
import { capTokens, cutPoint, orderLimits, restSpan } from "./limits.ts";
import { indexWindows } from "./preselect.ts";
import type { TextAnalyzer } from "./text.ts";

/** Where in the retrieved context a verdict's evidence lies. */
export interface Evidence {
  /** Index of the document in the context array (0 for a string context). */
  readonly doc: number;
  /** Character offsets into that document. */
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

export type ClaimVerdict = "supported" | "contradicted" | "unsupported";

export interface ClaimResult {
  readonly index: number;
  readonly text: string;
  /** Character offsets into the answer. */
  readonly start: number;
  readonly end: number;
  readonly verdict: ClaimVerdict;
  /** Best entailment probability over the windows checked. */
  readonly score: number;
  /** Strongest contradiction probability over the windows checked. */
  readonly contradiction: number;
  /** The window that supports the claim best (its nearest evidence when unsupported). */
  readonly evidence: Evidence | null;
  /** The window that contradicts it most, when the verdict is contradicted. */
  readonly contradictingEvidence?: Evidence;
  /** The backend's reasons for the best window's score. */
  readonly notes: readonly string[];
  /**
   * With resamples: in how many of them the claim is entailed or contradicted (claim-level
   * consistency). Absent without resamples, and for claims past the entailment budget.
   */
  readonly resampleSupport?: ResampleSupport;
}

export type UnscorableReason = "empty_answer" | "empty_context" | "no_checkable_claims" | "backend_error";

/** What every answer result carries besides its verdict. */
interface AnswerResultBase {
  readonly claims: readonly ClaimResult[];
  readonly skipped: readonly SkippedSentence[];
  readonly backend: BackendInfo;
  /**
   * The input limits this result was cut by, in LIMIT_NAMES order; empty when the whole
   * observation was scored. Where `token_chars` is listed, `text` fields show each cut token
   * as its first characters and "…", while `start`/`end` still point into the original.
   */
  readonly limits: readonly LimitName[];
  /** Entailment pairs sent to the backend for this answer. */
  readonly entailmentCalls: number;
}

export type AnswerResult =
  | (AnswerResultBase & {
      readonly verdict: "grounded" | "ungrounded";
      /** Minimum claim score: an answer is as grounded as its least supported claim. */
      readonly score: number;
      readonly threshold: number;
    })
  | (AnswerResultBase & {
      readonly verdict: "unscorable";
      readonly score: null;
      readonly reason: UnscorableReason;
      readonly detail: string;
    });

export interface GroundednessSettings {
  /** Claims scoring at or above this are supported; the answer is grounded when all are. */
  readonly threshold: number;
  /** Context windows checked per claim. */
  readonly topK: number;
  /** Largest context window, in estimated model tokens. */
  readonly tokenBudget: number;
  /** Token counter for windows; a subword estimate by default. */
  readonly countTokens?: (text: string) => number;
  /** Most claims checked per answer; the rest are returned as skipped with reason "over_limit". */
  readonly maxClaims?: number;
  /** Longest answer checked, in characters; the text past the cut is one skipped "over_limit" segment. */
  readonly maxAnswerChars?: number;
  /** Most context characters read, all documents together; later characters and documents are ignored. */
  readonly maxContextChars?: number;
  /** Most documents read; later documents are ignored. */
  readonly maxDocuments?: number;
  /** Longest run of non-space characters kept whole; longer ones are cut to their first characters and "…". */
  readonly maxTokenChars?: number;
  /** Most entailment pairs sent per answer; claims that would go past it are skipped with reason "over_limit". */
  readonly maxEntailmentCalls?: number;
  /** Estimated bytes of documents' windows kept for reuse across answers (default 16 MiB; 0: none). */
  readonly windowCacheBytes?: number;
}

export interface AnswerInput {
  readonly answer: string;
  readonly context: ContextInput;
}

export interface GroundednessScorer {
  score(input: AnswerInput): Promise<AnswerResult>;
}

/** A claim is contradicted when its strongest contradiction is likely and beats its best support. */
export function isContradicted(score: number, contradiction: number): boolean {
  return contradiction >= 0.5 && contradiction > score;
}

/** What a claim contributes to the answer score (the answer takes the minimum). */
export function answerContribution(score: number, contradiction: number): number {
  return isContradicted(score, contradiction) ? Math.min(score, 1 - contradiction) : score;
}

function evidenceOf(w: ContextWindow): Evidence {
  return { doc: w.doc, start: w.start, end: w.end, text: w.text };
}

function contextIsEmpty(context: ContextInput): boolean {
  return typeof context === "string" ? context.trim() === "" : context.every((d) => d.trim() === "");
}

/** The claims of an answer and, for each, the context windows to check it against. */
export interface ClaimCheckPlan {
  readonly claims: readonly Claim[];
  readonly skipped: readonly SkippedSentence[];
  readonly windows: readonly ContextWindow[];
  /** checks[i]: the windows preselected for claims[i], best first. */
  readonly checks: ReadonlyArray<readonly ContextWindow[]>;
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
  if (claims.length === 0) return { claims, skipped, windows: [], checks: [] };
  const windowOptions: WindowOptions = {
    tokenBudget: settings.tokenBudget,
    ...(settings.countTokens ? { countTokens: settings.countTokens } : {}),
    ...(cache ? { cache } : {}),
  };
  const windows = buildWindows(context, analyzer, windowOptions);
  const index = indexWindows(windows);
  const checks = claims.map((claim) => {
    const terms = contentTerms(analyzer.analyze(claim.text).tokens);
    const chosen = index.top(terms, settings.topK);
    // No shared word at all: still let the backend judge (a paraphrase may entail),
    // against the leading windows, so the cost stays bounded by topK.
    return chosen.length > 0 ? chosen : windows.slice(0, settings.topK);
  });
  return { claims, skipped, windows, checks };
}

const uncapped = (text: string): CappedText => ({ text, cut: 0, toOriginal: (offset) => offset });

/** The answer and documents as they are checked, after the input limits, with the way back to the originals. */
interface LimitedInput {
  readonly answer: CappedText;
  /** The answer past maxAnswerChars, when anything but whitespace was cut. */
  readonly rest: SkippedSentence | undefined;
  readonly docs: readonly CappedText[];
  readonly limits: Set<LimitName>;
}

/**
 * Applies maxTokenChars, maxAnswerChars, maxDocuments and maxContextChars before any text
 * reaches the analyser. Over-long tokens are cut first, so a base64 blob does not use up the
 * character allowance of the text around it. Character cuts fall on a sentence end or
 * whitespace where one is near; document indexes are kept (an ignored document reads as empty).
 */
function limitInput(answer: string, context: ContextInput, settings: GroundednessSettings): LimitedInput {
  const limits = new Set<LimitName>();
  const capText = (text: string): CappedText => {
    if (settings.maxTokenChars === undefined) return uncapped(text);
    const capped = capTokens(text, settings.maxTokenChars);
    if (capped.cut > 0) limits.add("token_chars");
    return capped;
  };
  const capped = capText(answer);
  let kept = capped.text;
  let rest: SkippedSentence | undefined;
  if (settings.maxAnswerChars !== undefined && kept.length > settings.maxAnswerChars) {
    const cut = cutPoint(kept, settings.maxAnswerChars);
    const span = restSpan(kept, cut);
    if (span.end > span.start) {
      limits.add("answer_chars");
      rest = { kind: "skipped", text: kept.slice(span.start, span.end), start: capped.toOriginal(span.start), end: capped.toOriginal(span.end), reason: "over_limit" };
    }
    kept = kept.slice(0, cut);
  }
  const all = typeof context === "string" ? [context] : context;
  const maxDocuments = settings.maxDocuments ?? Infinity;
  if (all.length > maxDocuments) limits.add("documents");
  let budget = settings.maxContextChars ?? Infinity;
  const docs = all.slice(0, maxDocuments).map((doc): CappedText => {
    if (budget <= 0) {
      if (/\S/.test(doc)) limits.add("context_chars");
      return uncapped("");
    }
    const c = capText(doc);
    let text = c.text;
    if (text.length > budget) {
      text = text.slice(0, cutPoint(text, budget));
      if (/\S/.test(c.text.slice(text.length))) limits.add("context_chars");
    }
    budget -= text.length;
    return { ...c, text };
  });
  return { answer: { ...capped, text: kept }, rest, docs, limits };
}

/**
 * Scores answers against their retrieved context: claims → preselected windows →
 * backend → per-claim verdicts → answer score. Fails closed: anything that prevents
 * a real measurement yields `unscorable` with a reason, never a high score.
 */
export function createGroundednessScorer(backend: EntailmentBackend, analyzer: TextAnalyzer, settings: GroundednessSettings): GroundednessScorer {
  const info = backendInfo(backend);
  // Retrieved documents recur across requests: each is cut into windows once while it stays cached.
  const windowCache = settings.windowCacheBytes === 0 ? undefined : createWindowCache(settings.windowCacheBytes);
  const unscorable = (reason: UnscorableReason, detail: string, skipped: readonly SkippedSentence[] = [], limits: ReadonlySet<LimitName> = new Set(), entailmentCalls = 0): AnswerResult => ({
    verdict: "unscorable",
    score: null,
    reason,
    detail,
    claims: [],
    skipped,
    backend: info,
    limits: orderLimits(limits),
    entailmentCalls,
  });
  return {
    async score({ answer, context }: AnswerInput): Promise<AnswerResult> {
      if (answer.trim() === "") return unscorable("empty_answer", "the answer is empty");
      if (contextIsEmpty(context)) return unscorable("empty_context", "no retrieved context to check the answer against");
      const input = limitInput(answer, context, settings);
      const { limits } = input;
      const plan = planClaimChecks(input.answer.text, input.docs.map((d) => d.text), analyzer, settings, windowCache);
      // Offsets back into the caller's answer and documents; texts stay as they were checked.
      const inAnswer = <T extends { start: number; end: number }>(x: T): T =>
        input.answer.cut > 0 ? { ...x, start: input.answer.toOriginal(x.start), end: input.answer.toOriginal(x.end) } : x;
      const evidenceIn = (w: ContextWindow): Evidence => {
        const doc = input.docs[w.doc];
        return doc && doc.cut > 0 ? { doc: w.doc, start: doc.toOriginal(w.start), end: doc.toOriginal(w.end), text: w.text } : evidenceOf(w);
      };
      const overClaims = plan.skipped.filter((s) => s.reason === "over_limit");
      if (overClaims.length > 0) limits.add("claims");
      // The per-answer entailment budget: claims whose windows would go past it are not checked.
      const budget = settings.maxEntailmentCalls ?? Infinity;
      let checked = plan.claims.length;
      let planned = 0;
      for (const [ci, chosen] of plan.checks.entries()) {
        if (planned + chosen.length > budget) {
          checked = ci;
          break;
        }
        planned += chosen.length;
      }
      if (checked < plan.claims.length) limits.add("entailment_calls");
      const claims = plan.claims.slice(0, checked).map(inAnswer);
      const skipped: SkippedSentence[] = [
        ...plan.skipped.filter((s) => s.reason !== "over_limit"),
        ...plan.claims.slice(checked).map((c): SkippedSentence => ({ kind: "skipped", text: c.text, start: c.start, end: c.end, reason: "over_limit" })),
        ...overClaims,
      ].map(inAnswer);
      if (input.rest) skipped.push(input.rest);
      const windows = plan.windows;
      if (claims.length === 0) {
        const reasons = [...new Set(skipped.map((s) => s.reason))].join(", ") || "none";
        return unscorable("no_checkable_claims", `the answer has no checkable claim (skipped: ${reasons})`, skipped, limits);
      }
      if (windows.length === 0) return unscorable("empty_context", "the context has no sentences", skipped, limits);
      const pairs: NliPair[] = [];
      // Per claim, the [from, to) range of its pairs (a claim's pairs are contiguous).
      const ranges: Array<{ from: number; to: number }> = [];
      const owners: ContextWindow[] = [];
      plan.checks.slice(0, checked).forEach((chosen, ci) => {
        const claim = plan.claims[ci];
        const from = pairs.length;
        if (claim) {
          for (const w of chosen) {
            pairs.push({ premise: w.text, hypothesis: claim.text });
            owners.push(w);
          }
        }
        ranges.push({ from, to: pairs.length });
      });
      let results: NliResult[];
      try {
        results = await backend.classify(pairs);
      } catch (error) {
        return unscorable("backend_error", `${info.name} backend failed: ${(error as Error).message}`, skipped, limits, pairs.length);
      }
      if (results.length !== pairs.length) {
        return unscorable("backend_error", `${info.name} backend returned ${results.length} results for ${pairs.length} pairs`, skipped, limits, pairs.length);
      }
      const claimResults = claims.map((claim, ci): ClaimResult => {
        let best: { r: NliResult; w: ContextWindow } | undefined;
        let worst: { r: NliResult; w: ContextWindow } | undefined;
        const range = ranges[ci] ?? { from: 0, to: 0 };
        for (let i = range.from; i < range.to; i++) {
          const r = results[i];
          const w = owners[i];
          if (!r || !w) continue;
          if (!best || r.entailment > best.r.entailment) best = { r, w };
          if (!worst || r.contradiction > worst.r.contradiction) worst = { r, w };
        }
        const score = best?.r.entailment ?? 0;
        const contradiction = worst?.r.contradiction ?? 0;
        const contradicted = isContradicted(score, contradiction);
        const verdict: ClaimVerdict = contradicted ? "contradicted" : score >= settings.threshold ? "supported" : "unsupported";
        const base = {
          index: claim.index,
          text: claim.text,
          start: claim.start,
          end: claim.end,
          verdict,
          score,
          contradiction,
          evidence: best ? evidenceIn(best.w) : null,
          notes: (contradicted ? worst?.r.notes : best?.r.notes) ?? [],
        };
        return contradicted && worst ? { ...base, contradictingEvidence: evidenceIn(worst.w) } : base;
      });
      for (const r of claimResults) {
        if (!Number.isFinite(r.score) || r.score < 0 || r.score > 1) {
          return unscorable("backend_error", `${info.name} backend returned an invalid probability ${r.score}`, skipped, limits, pairs.length);
        }
      }
      const score = Math.min(...claimResults.map((c) => answerContribution(c.score, c.contradiction)));
      return {
        verdict: score >= settings.threshold && claimResults.every((c) => c.verdict === "supported") ? "grounded" : "ungrounded",
        score,
        threshold: settings.threshold,
        claims: claimResults,
        skipped,
        backend: info,
        limits: orderLimits(limits),
        entailmentCalls: pairs.length,
      };
    },
  };
}
