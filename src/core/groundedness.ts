import type { BackendInfo, EntailmentBackend, NliPair, NliResult } from "../nli/backend.ts";
import { backendInfo } from "../nli/backend.ts";
import type { Claim, SkippedSentence } from "./claims.ts";
import { splitClaims } from "./claims.ts";
import type { ContextInput, ContextWindow } from "./context.ts";
import { buildWindows, contentTerms } from "./context.ts";
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
}

export type UnscorableReason = "empty_answer" | "empty_context" | "no_checkable_claims" | "backend_error";

export type AnswerResult =
  | {
      readonly verdict: "grounded" | "ungrounded";
      /** Minimum claim score: an answer is as grounded as its least supported claim. */
      readonly score: number;
      readonly threshold: number;
      readonly claims: readonly ClaimResult[];
      readonly skipped: readonly SkippedSentence[];
      readonly backend: BackendInfo;
    }
  | {
      readonly verdict: "unscorable";
      readonly score: null;
      readonly reason: UnscorableReason;
      readonly detail: string;
      readonly claims: readonly ClaimResult[];
      readonly skipped: readonly SkippedSentence[];
      readonly backend: BackendInfo;
    };

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
export function planClaimChecks(answer: string, context: ContextInput, analyzer: TextAnalyzer, settings: GroundednessSettings): ClaimCheckPlan {
  const segments = splitClaims(answer, analyzer);
  const all = segments.filter((s): s is Claim => s.kind === "claim");
  const limit = settings.maxClaims ?? Infinity;
  const claims = all.slice(0, limit);
  const skipped: SkippedSentence[] = [
    ...segments.filter((s): s is SkippedSentence => s.kind === "skipped"),
    ...all.slice(limit).map((c): SkippedSentence => ({ kind: "skipped", text: c.text, start: c.start, end: c.end, reason: "over_limit" })),
  ];
  if (claims.length === 0) return { claims, skipped, windows: [], checks: [] };
  const windowOptions = settings.countTokens ? { tokenBudget: settings.tokenBudget, countTokens: settings.countTokens } : { tokenBudget: settings.tokenBudget };
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

/**
 * Scores answers against their retrieved context: claims → preselected windows →
 * backend → per-claim verdicts → answer score. Fails closed: anything that prevents
 * a real measurement yields `unscorable` with a reason, never a high score.
 */
export function createGroundednessScorer(backend: EntailmentBackend, analyzer: TextAnalyzer, settings: GroundednessSettings): GroundednessScorer {
  const info = backendInfo(backend);
  const unscorable = (reason: UnscorableReason, detail: string, skipped: readonly SkippedSentence[] = []): AnswerResult => ({
    verdict: "unscorable",
    score: null,
    reason,
    detail,
    claims: [],
    skipped,
    backend: info,
  });
  return {
    async score({ answer, context }: AnswerInput): Promise<AnswerResult> {
      if (answer.trim() === "") return unscorable("empty_answer", "the answer is empty");
      if (contextIsEmpty(context)) return unscorable("empty_context", "no retrieved context to check the answer against");
      const plan = planClaimChecks(answer, context, analyzer, settings);
      const { claims, skipped, windows } = plan;
      if (claims.length === 0) {
        const reasons = [...new Set(skipped.map((s) => s.reason))].join(", ") || "none";
        return unscorable("no_checkable_claims", `the answer has no checkable claim (skipped: ${reasons})`, skipped);
      }
      if (windows.length === 0) return unscorable("empty_context", "the context has no sentences", skipped);
      const pairs: NliPair[] = [];
      const owners: Array<{ claim: number; window: ContextWindow }> = [];
      plan.checks.forEach((chosen, ci) => {
        const claim = claims[ci];
        if (!claim) return;
        for (const w of chosen) {
          pairs.push({ premise: w.text, hypothesis: claim.text });
          owners.push({ claim: ci, window: w });
        }
      });
      let results: NliResult[];
      try {
        results = await backend.classify(pairs);
      } catch (error) {
        return unscorable("backend_error", `${info.name} backend failed: ${(error as Error).message}`, skipped);
      }
      if (results.length !== pairs.length) {
        return unscorable("backend_error", `${info.name} backend returned ${results.length} results for ${pairs.length} pairs`, skipped);
      }
      const claimResults = claims.map((claim, ci): ClaimResult => {
        let best: { r: NliResult; w: ContextWindow } | undefined;
        let worst: { r: NliResult; w: ContextWindow } | undefined;
        results.forEach((r, i) => {
          const owner = owners[i];
          if (!owner || owner.claim !== ci) return;
          if (!best || r.entailment > best.r.entailment) best = { r, w: owner.window };
          if (!worst || r.contradiction > worst.r.contradiction) worst = { r, w: owner.window };
        });
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
          evidence: best ? evidenceOf(best.w) : null,
          notes: (contradicted ? worst?.r.notes : best?.r.notes) ?? [],
        };
        return contradicted && worst ? { ...base, contradictingEvidence: evidenceOf(worst.w) } : base;
      });
      for (const r of claimResults) {
        if (!Number.isFinite(r.score) || r.score < 0 || r.score > 1) {
          return unscorable("backend_error", `${info.name} backend returned an invalid probability ${r.score}`, skipped);
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
      };
    },
  };
}
