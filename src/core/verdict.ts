import type { NliResult } from "./backend.ts";
import type { Claim } from "./claims/types.ts";
import type { ContextDocument, ResolvedCitation } from "./citations.ts";
import type { ContextWindow } from "./context.ts";
import { sourceName } from "./context.ts";
import type { CitationStatus, CitationSummary, ClaimCitation, ClaimResult, ClaimVerdict, Evidence } from "./result.ts";

/**
 * The verdict rules: when a claim is contradicted, what it contributes to the answer score, and
 * the verdict of one claim from the windows the backend judged for it and the citations it makes.
 */

/** A claim is contradicted when its strongest contradiction is likely and beats its best support. */
export function isContradicted(score: number, contradiction: number): boolean {
  return contradiction >= 0.5 && contradiction > score;
}

/**
 * The evidence to show beside a claim: for a contradicted claim, the sentence that states
 * otherwise; else the sentence that supports it best (where it is supported instead, when
 * misattributed; its nearest evidence, when unsupported). Null when it has none.
 */
export function evidenceToShow(c: Pick<ClaimResult, "verdict" | "evidence" | "contradictingEvidence">): Evidence | null {
  return c.verdict === "contradicted" && c.contradictingEvidence ? c.contradictingEvidence : c.evidence;
}

/** What a claim contributes to the answer score (the answer takes the minimum). */
export function answerContribution(score: number, contradiction: number): number {
  return isContradicted(score, contradiction) ? Math.min(score, 1 - contradiction) : score;
}

/** One window the backend judged for a claim, and its judgement. */
export interface JudgedWindow {
  readonly r: NliResult;
  readonly w: ContextWindow;
}

/** What a claim's verdict is decided with, besides its judged windows and its citations. */
export interface ClaimJudging {
  /** The retrieved documents, to name a source in a note. */
  readonly documents: readonly ContextDocument[];
  /** Claims scoring at or above this are supported. */
  readonly threshold: number;
  /** The sentence of a window that supports the claim best, as evidence. */
  supportIn(w: ContextWindow): Evidence;
  /** The sentence of a window that contradicts the claim, as evidence. */
  conflictIn(w: ContextWindow): Evidence;
}

/**
 * The verdict of one claim: a claim citing a document that was not retrieved is unsupported
 * without any model call; an uncited claim is judged by its best window; a cited claim by the
 * documents it cites (misattributed when they do not support it and another retrieved one does).
 * Contradiction comes first in every case.
 */
export function judgeClaim(claim: Pick<Claim, "index" | "text" | "start" | "end">, judged: readonly JudgedWindow[], cites: readonly ResolvedCitation[], how: ClaimJudging): ClaimResult {
  const { documents, threshold, supportIn, conflictIn } = how;
  const bestOf = (keep: (w: ContextWindow) => boolean): JudgedWindow | undefined => {
    let best: JudgedWindow | undefined;
    for (const j of judged) if (keep(j.w) && (!best || j.r.entailment > best.r.entailment)) best = j;
    return best;
  };
  const best = bestOf(() => true);
  let worst: JudgedWindow | undefined;
  for (const j of judged) if (!worst || j.r.contradiction > worst.r.contradiction) worst = j;
  const contradiction = worst?.r.contradiction ?? 0;
  const base = { index: claim.index, text: claim.text, start: claim.start, end: claim.end, contradiction };
  if (cites.some((c) => c.missing.length > 0)) {
    const missing = cites.flatMap((c) => c.missing);
    const citations = cites.map((c): ClaimCitation => citationOf(c, c.missing.length > 0 ? "not_retrieved" : "unsupported", 0, null));
    return { ...base, verdict: "unsupported", score: 0, evidence: null, notes: [`cites ${missing.map((m) => `"${m}"`).join(", ")}, not among the ${documents.length} retrieved document${documents.length === 1 ? "" : "s"}`], citations, reason: "citation_not_retrieved" };
  }
  if (cites.length === 0) {
    const score = best?.r.entailment ?? 0;
    const contradicted = isContradicted(score, contradiction);
    const verdict: ClaimVerdict = contradicted ? "contradicted" : score >= threshold ? "supported" : "unsupported";
    const result = { ...base, verdict, score, evidence: best ? supportIn(best.w) : null, notes: (contradicted ? worst?.r.notes : best?.r.notes) ?? [] };
    return contradicted && worst ? { ...result, contradictingEvidence: conflictIn(worst.w) } : result;
  }
  // A cited claim is judged by its sources: the best of the documents it cites sets its score.
  const cited = new Set(cites.flatMap((c) => c.docs));
  const bestCited = bestOf((w) => cited.has(w.doc));
  const score = bestCited?.r.entailment ?? 0;
  const contradicted = isContradicted(Math.max(score, best?.r.entailment ?? 0), contradiction);
  const elsewhere = best && !cited.has(best.w.doc) && best.r.entailment >= threshold ? best : undefined;
  const citations = cites.map((c): ClaimCitation => {
    const own = bestOf((w) => c.docs.includes(w.doc));
    const ownScore = own?.r.entailment ?? 0;
    const status: CitationStatus = contradicted ? "contradicted" : ownScore >= threshold ? "supported" : elsewhere ? "misattributed" : "unsupported";
    return citationOf(c, status, ownScore, own ? supportIn(own.w) : null);
  });
  const verdict: ClaimVerdict = contradicted ? "contradicted" : score >= threshold ? "supported" : elsewhere ? "misattributed" : "unsupported";
  const notes =
    verdict === "misattributed" && elsewhere
      ? [`not supported by the cited source${cited.size === 1 ? "" : "s"} ${[...cited].map((d) => sourceName(documents[d], d)).join(", ")}; supported by ${sourceName(documents[elsewhere.w.doc], elsewhere.w.doc)}`, ...(bestCited?.r.notes ?? [])]
      : ((contradicted ? worst?.r.notes : bestCited?.r.notes) ?? []);
  // The evidence shown is where the claim is actually supported (another document when misattributed).
  const evidence = elsewhere && verdict === "misattributed" ? supportIn(elsewhere.w) : bestCited ? supportIn(bestCited.w) : null;
  const result = { ...base, verdict, score, evidence, notes, citations };
  return contradicted && worst ? { ...result, contradictingEvidence: conflictIn(worst.w) } : result;
}

/** Citation markers whose claim found its cited documents misattributed, over all claims. */
export function misattributedCitations(claims: readonly ClaimResult[]): number {
  let n = 0;
  for (const c of claims) for (const citation of c.citations ?? []) if (citation.status === "misattributed") n++;
  return n;
}

export function citationsOf(citations: CitationSummary | undefined): { citations?: CitationSummary } {
  return citations ? { citations } : {};
}

/** A checked citation; markers are found in the answer itself, so their offsets are already the answer's. */
function citationOf(c: ResolvedCitation, status: CitationStatus, score: number, evidence: Evidence | null): ClaimCitation {
  return { marker: c.marker.text, start: c.marker.start, end: c.marker.end, docs: c.docs, missing: c.missing, status, score, evidence };
}
