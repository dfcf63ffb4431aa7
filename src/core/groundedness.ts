import type { BackendInfo, EntailmentBackend, NliPair, NliResult } from "./backend.ts";
import { backendInfo } from "./backend.ts";
import type { Claim, SkippedSentence } from "./claims.ts";
import { splitClaims } from "./claims.ts";
import type { ContextDocument, ResolvedCitation } from "./citations.ts";
import { attachCitations, resolveCitations } from "./citations.ts";
import type { ContextInput, ContextWindow, WindowCache, WindowOptions } from "./context.ts";
import { buildWindows, contentTerms, createWindowCache } from "./context.ts";
import type { EvidenceSpan } from "./evidence-span.ts";
import { contradictingSentence, supportingSentence } from "./evidence-span.ts";
import type { ResampleSupport } from "./entropy/claim-consistency.ts";
import { limitInput } from "./input-limits.ts";
import { scriptMismatch } from "./language.ts";
import type { LimitName } from "./limits.ts";
import { orderLimits } from "./limits.ts";
import { indexWindows } from "./window-index.ts";
import type { WindowIndex } from "./window-index.ts";
import type { TextAnalyzer } from "./text.ts";

/**
 * Where in the retrieved context a verdict's evidence lies: the sentence that bears on the claim
 * (the one that supports it best; for contradicting evidence, the one that states otherwise), and
 * the window around it that the backend judged.
 */
export interface Evidence {
  /** Index of the document in the context array (0 for a string context). */
  readonly doc: number;
  /** Character offsets of the sentence into that document. */
  readonly start: number;
  readonly end: number;
  /** The sentence, as it was checked (an over-long token cut to its first characters and "…"). */
  readonly text: string;
  /** Character offsets into the same document of the window the backend judged: the sentence's context. */
  readonly window: { readonly start: number; readonly end: number };
}

/**
 * supported: the evidence (the cited source, when the claim cites one) entails it; contradicted:
 * the evidence states otherwise; unsupported: nothing retrieved entails it (or it cites a source
 * that was not retrieved); misattributed: it cites a source that does not support it, while
 * another retrieved document does.
 */
export type ClaimVerdict = "supported" | "contradicted" | "unsupported" | "misattributed";

/**
 * How one citation of a claim checks out: supported by a document it names; misattributed
 * (its documents do not support the claim, another retrieved one does); unsupported (nothing
 * retrieved does); contradicted; not_retrieved (it names a document that is not in the context,
 * decided without any model call).
 */
export type CitationStatus = "supported" | "misattributed" | "unsupported" | "contradicted" | "not_retrieved";

/** One citation marker of a claim, resolved and checked. */
export interface ClaimCitation {
  /** The marker as written ("[2]", "(source: policy.md)"). */
  readonly marker: string;
  /** Offsets of the marker in the answer. */
  readonly start: number;
  readonly end: number;
  /** The retrieved documents it names (indexes into the context). */
  readonly docs: readonly number[];
  /** What it names that was not retrieved ("7", "pricing.md"). */
  readonly missing: readonly string[];
  readonly status: CitationStatus;
  /** Best entailment of the claim by the documents it names (0 when none was retrieved). */
  readonly score: number;
  /** The sentence of its documents that supports the claim best, in the window judged best. */
  readonly evidence: Evidence | null;
}

/** Citations in one answer. Every marker counts once, attached to a claim or not. */
export interface CitationSummary {
  /** Markers found in the answer. */
  readonly found: number;
  /** Markers whose every target is a retrieved document. */
  readonly valid: number;
  /** Markers naming a document that was not retrieved. */
  readonly invalid: number;
  /** Valid markers whose documents do not support their claim while another retrieved one does. */
  readonly misattributed: number;
}



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
  /** The sentence that supports the claim best, in the window judged best (its nearest evidence when unsupported). */
  readonly evidence: Evidence | null;
  /** The sentence that states otherwise, in the window that contradicts it most, when the verdict is contradicted. */
  readonly contradictingEvidence?: Evidence;
  /** The backend's reasons for the best window's score. */
  readonly notes: readonly string[];
  /**
   * With resamples: in how many of them the claim is entailed or contradicted (claim-level
   * consistency). Absent without resamples, and for claims past the entailment budget.
   */
  readonly resampleSupport?: ResampleSupport;
  /** The citation markers attached to this claim, each checked against the documents it names. Absent when it cites nothing. */
  readonly citations?: readonly ClaimCitation[];
  /** Why an unsupported claim was decided without the backend: it cites a document that was not retrieved. */
  readonly reason?: "citation_not_retrieved";
}

/**
 * Why an answer was not scored: `empty_answer`; `empty_context` (no document, or none with a
 * sentence); `no_checkable_claims` (every sentence was skipped); `language_mismatch` (the answer is
 * written in a script its documents are not, e.g. Chinese against English: words cannot be
 * compared across them, core/language.ts); `backend_error`.
 */
export type UnscorableReason = "empty_answer" | "empty_context" | "no_checkable_claims" | "language_mismatch" | "backend_error";

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
  /** Citation markers found in the answer and how they checked out; absent when it cites nothing. */
  readonly citations?: CitationSummary;
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
  /** One string, or the retrieved documents: strings, or `{ id?, title?, url?, text }` so citations can name them. */
  readonly context: ContextInput;
}

export interface GroundednessScorer {
  score(input: AnswerInput): Promise<AnswerResult>;
}

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

function contextIsEmpty(texts: readonly string[]): boolean {
  return texts.every((d) => d.trim() === "");
}

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
 * Scores answers against their retrieved context: claims → preselected windows →
 * backend → per-claim verdicts → answer score. Fails closed: anything that prevents
 * a real measurement yields `unscorable` with a reason, never a high score.
 */
export function createGroundednessScorer(backend: EntailmentBackend, analyzer: TextAnalyzer, settings: GroundednessSettings): GroundednessScorer {
  const info = backendInfo(backend);
  // Retrieved documents recur across requests: each is cut into windows once while it stays cached.
  const windowCache = settings.windowCacheBytes === 0 ? undefined : createWindowCache(settings.windowCacheBytes);
  const unscorable = (reason: UnscorableReason, detail: string, skipped: readonly SkippedSentence[] = [], limits: ReadonlySet<LimitName> = new Set(), entailmentCalls = 0, citations?: CitationSummary): AnswerResult => ({
    verdict: "unscorable",
    score: null,
    reason,
    detail,
    claims: [],
    skipped,
    backend: info,
    limits: orderLimits(limits),
    entailmentCalls,
    ...citationsOf(citations),
  });
  return {
    async score({ answer, context }: AnswerInput): Promise<AnswerResult> {
      if (answer.trim() === "") return unscorable("empty_answer", "the answer is empty");
      const documents = contextDocuments(context);
      const texts = documents.map((d) => d.text);
      if (contextIsEmpty(texts)) return unscorable("empty_context", "no retrieved context to check the answer against");
      // The input limits come first: nothing reads more of the answer than maxTokenChars and
      // maxAnswerChars let through, and citations are read from what they keep (core/input-limits.ts).
      // Named sources are read only when the documents carry names.
      const named = documents.some((d) => d.id !== undefined || d.title !== undefined || d.url !== undefined);
      const input = limitInput(answer, texts, settings, named);
      const { limits } = input;
      const mismatch = scriptMismatch(input.answer.text, input.docs.map((d) => d.text));
      if (mismatch) {
        return unscorable("language_mismatch", `the answer is written in ${mismatch.answer} script and the documents in ${mismatch.documents}: their words cannot be compared`, [], limits);
      }
      // Offsets back into the caller's answer; texts stay as they were checked.
      const toAnswer = input.answer.toOriginal;
      const inAnswer = <T extends { start: number; end: number }>(x: T): T => ({ ...x, start: toAnswer(x.start), end: toAnswer(x.end) });
      const resolved = resolveCitations(input.answer.markers, documents);
      const summary = (misattributed: number): CitationSummary | undefined => {
        const invalid = resolved.filter((c) => c.missing.length > 0).length;
        return resolved.length === 0 ? undefined : { found: resolved.length, valid: resolved.length - invalid, invalid, misattributed };
      };
      const checkedDocs = input.docs.map((d) => d.text);
      const plan = planClaimChecks(input.answer.text, checkedDocs, analyzer, settings, windowCache);
      const evidenceIn = (w: ContextWindow, span: EvidenceSpan): Evidence => {
        // Mapped even when nothing was cut: a run of spaceless script split with spaces moves offsets too.
        const at = input.docs[w.doc]?.toOriginal ?? ((offset: number) => offset);
        return { doc: w.doc, start: at(span.start), end: at(span.end), text: span.text, window: { start: at(w.start), end: at(w.end) } };
      };
      // The evidence shown is one sentence of the window: the one supporting claim ci best, or the one contradicting it.
      const supportIn = (ci: number, w: ContextWindow): Evidence => evidenceIn(w, supportingSentence(w, plan.terms[ci] ?? []));
      const conflictIn = (ci: number, w: ContextWindow): Evidence => evidenceIn(w, contradictingSentence(w, plan.claims[ci]?.text ?? "", plan.terms[ci] ?? [], analyzer));
      const overClaims = plan.skipped.filter((s) => s.reason === "over_limit");
      if (overClaims.length > 0) limits.add("claims");
      const windows = plan.windows;
      // Each marker belongs to the claim it sits in, or the one it follows (in the caller's offsets).
      // Skipped sentences take part, so a marker after a question or an over-limit sentence is not
      // handed to the claim before it; such a marker belongs to no checked claim.
      const spans = [
        ...plan.claims.map((c, ci) => ({ start: toAnswer(c.start), end: toAnswer(c.end), claim: ci })),
        ...plan.skipped.map((x) => ({ start: toAnswer(x.start), end: toAnswer(x.end), claim: -1 })),
      ].sort((a, b) => a.start - b.start);
      const owner = attachCitations(resolved.map((c) => c.marker.start), spans).map((k) => spans[k]?.claim ?? -1);
      const citedBy = plan.claims.map((_, ci) => resolved.filter((_, k) => owner[k] === ci));
      // A claim citing a document that was not retrieved is decided here, with no model call.
      const notRetrieved = citedBy.map((cs) => cs.some((c) => c.missing.length > 0));
      // Windows to check per claim: the preselected ones, and for a cited claim the best of each cited document.
      const index = plan.index;
      const checks = plan.checks.map((chosen, ci): readonly ContextWindow[] => {
        if (notRetrieved[ci]) return [];
        const docs = new Set((citedBy[ci] ?? []).flatMap((c) => c.docs));
        if (docs.size === 0 || !index) return chosen;
        const out = [...chosen];
        const ranked = index.top(plan.terms[ci] ?? [], windows.length);
        for (const doc of docs) {
          const own = ranked.filter((w) => w.doc === doc);
          for (const w of (own.length > 0 ? own : windows.filter((x) => x.doc === doc)).slice(0, settings.topK)) if (!out.includes(w)) out.push(w);
        }
        return out;
      });
      // The per-answer entailment budget: claims whose windows would go past it are not checked.
      const budget = settings.maxEntailmentCalls ?? Infinity;
      let checked = plan.claims.length;
      let planned = 0;
      for (const [ci, chosen] of checks.entries()) {
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
      // The rest past maxAnswerChars is already in the answer's offsets.
      if (input.rest) skipped.push(input.rest);
      if (claims.length === 0) {
        const reasons = [...new Set(skipped.map((s) => s.reason))].join(", ") || "none";
        return unscorable("no_checkable_claims", `the answer has no checkable claim (skipped: ${reasons})`, skipped, limits, 0, summary(0));
      }
      if (windows.length === 0) return unscorable("empty_context", "the context has no sentences", skipped, limits, 0, summary(0));
      const pairs: NliPair[] = [];
      // Per claim, the [from, to) range of its pairs (a claim's pairs are contiguous).
      const ranges: Array<{ from: number; to: number }> = [];
      const owners: ContextWindow[] = [];
      checks.slice(0, checked).forEach((chosen, ci) => {
        const claim = plan.claims[ci];
        const from = pairs.length;
        if (claim) {
          for (const w of chosen) {
            const document = checkedDocs[w.doc];
            pairs.push({ premise: w.text, hypothesis: claim.text, ...(document === undefined ? {} : { source: { document, start: w.start, end: w.end } }) });
            owners.push(w);
          }
        }
        ranges.push({ from, to: pairs.length });
      });
      let results: NliResult[];
      try {
        results = pairs.length > 0 ? await backend.classify(pairs) : [];
      } catch (error) {
        return unscorable("backend_error", `${info.name} backend failed: ${(error as Error).message}`, skipped, limits, pairs.length, summary(0));
      }
      if (results.length !== pairs.length) {
        return unscorable("backend_error", `${info.name} backend returned ${results.length} results for ${pairs.length} pairs`, skipped, limits, pairs.length, summary(0));
      }
      let misattributed = 0;
      const claimResults = claims.map((claim, ci): ClaimResult => {
        const range = ranges[ci] ?? { from: 0, to: 0 };
        const judged: Array<{ r: NliResult; w: ContextWindow }> = [];
        for (let i = range.from; i < range.to; i++) {
          const r = results[i];
          const w = owners[i];
          if (r && w) judged.push({ r, w });
        }
        const bestOf = (keep: (w: ContextWindow) => boolean): { r: NliResult; w: ContextWindow } | undefined => {
          let best: { r: NliResult; w: ContextWindow } | undefined;
          for (const j of judged) if (keep(j.w) && (!best || j.r.entailment > best.r.entailment)) best = j;
          return best;
        };
        const best = bestOf(() => true);
        let worst: { r: NliResult; w: ContextWindow } | undefined;
        for (const j of judged) if (!worst || j.r.contradiction > worst.r.contradiction) worst = j;
        const contradiction = worst?.r.contradiction ?? 0;
        const cites = citedBy[ci] ?? [];
        const base = { index: claim.index, text: claim.text, start: claim.start, end: claim.end, contradiction };
        if (notRetrieved[ci]) {
          const missing = cites.flatMap((c) => c.missing);
          const citations = cites.map((c): ClaimCitation => citationOf(c, c.missing.length > 0 ? "not_retrieved" : "unsupported", 0, null));
          return { ...base, verdict: "unsupported", score: 0, evidence: null, notes: [`cites ${missing.map((m) => `"${m}"`).join(", ")}, not among the ${documents.length} retrieved document${documents.length === 1 ? "" : "s"}`], citations, reason: "citation_not_retrieved" };
        }
        if (cites.length === 0) {
          const score = best?.r.entailment ?? 0;
          const contradicted = isContradicted(score, contradiction);
          const verdict: ClaimVerdict = contradicted ? "contradicted" : score >= settings.threshold ? "supported" : "unsupported";
          const result = { ...base, verdict, score, evidence: best ? supportIn(ci, best.w) : null, notes: (contradicted ? worst?.r.notes : best?.r.notes) ?? [] };
          return contradicted && worst ? { ...result, contradictingEvidence: conflictIn(ci, worst.w) } : result;
        }
        // A cited claim is judged by its sources: the best of the documents it cites sets its score.
        const cited = new Set(cites.flatMap((c) => c.docs));
        const bestCited = bestOf((w) => cited.has(w.doc));
        const score = bestCited?.r.entailment ?? 0;
        const contradicted = isContradicted(Math.max(score, best?.r.entailment ?? 0), contradiction);
        const elsewhere = best && !cited.has(best.w.doc) && best.r.entailment >= settings.threshold ? best : undefined;
        const citations = cites.map((c): ClaimCitation => {
          const own = bestOf((w) => c.docs.includes(w.doc));
          const ownScore = own?.r.entailment ?? 0;
          const status: CitationStatus = contradicted ? "contradicted" : ownScore >= settings.threshold ? "supported" : elsewhere ? "misattributed" : "unsupported";
          if (status === "misattributed") misattributed++;
          return citationOf(c, status, ownScore, own ? supportIn(ci, own.w) : null);
        });
        const verdict: ClaimVerdict = contradicted ? "contradicted" : score >= settings.threshold ? "supported" : elsewhere ? "misattributed" : "unsupported";
        const notes =
          verdict === "misattributed" && elsewhere
            ? [`not supported by the cited source${cited.size === 1 ? "" : "s"} ${[...cited].map((d) => sourceName(documents, d)).join(", ")}; supported by ${sourceName(documents, elsewhere.w.doc)}`, ...(bestCited?.r.notes ?? [])]
            : ((contradicted ? worst?.r.notes : bestCited?.r.notes) ?? []);
        // The evidence shown is where the claim is actually supported (another document when misattributed).
        const evidence = elsewhere && verdict === "misattributed" ? supportIn(ci, elsewhere.w) : bestCited ? supportIn(ci, bestCited.w) : null;
        const result = { ...base, verdict, score, evidence, notes, citations };
        return contradicted && worst ? { ...result, contradictingEvidence: conflictIn(ci, worst.w) } : result;
      });
      for (const r of claimResults) {
        if (!Number.isFinite(r.score) || r.score < 0 || r.score > 1) {
          return unscorable("backend_error", `${info.name} backend returned an invalid probability ${r.score}`, skipped, limits, pairs.length, summary(0));
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
        ...citationsOf(summary(misattributed)),
      };
    },
  };
}

function citationsOf(citations: CitationSummary | undefined): { citations?: CitationSummary } {
  return citations ? { citations } : {};
}

/** A checked citation; markers are found in the answer itself, so their offsets are already the answer's. */
function citationOf(c: ResolvedCitation, status: CitationStatus, score: number, evidence: Evidence | null): ClaimCitation {
  return { marker: c.marker.text, start: c.marker.start, end: c.marker.end, docs: c.docs, missing: c.missing, status, score, evidence };
}

/** A document as an answer would cite it: "[2]" (1-based), with its id or title when it has one. */
function sourceName(documents: readonly ContextDocument[], doc: number): string {
  const d = documents[doc];
  const name = d?.id ?? d?.title ?? d?.url;
  return name !== undefined ? `[${doc + 1}] ("${name}")` : `[${doc + 1}]`;
}

/** The context as documents, in order: a string is one document; `{ text }` objects keep their names. */
function contextDocuments(context: ContextInput): ContextDocument[] {
  if (typeof context === "string") return [{ text: context }];
  return context.map((d) => (typeof d === "string" ? { text: d } : d));
}
