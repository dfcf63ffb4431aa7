import type { CallOptions, EntailmentBackend, NliPair, NliResult, SpanDetection } from "./backend.ts";
import { backendInfo, scopedBackend } from "./backend.ts";
import { attributeCauses, unscoredRelevance } from "./cause-analysis.ts";
import { backendFailure, checkedBackend } from "./checked-backend.ts";
import type { SkippedSentence } from "./claims/types.ts";
import { resolveCitations } from "./citations.ts";
import type { ContextWindow } from "./context.ts";
import { createWindowCache, toDocuments } from "./context.ts";
import type { EvidenceSpan } from "./evidence-span.ts";
import { contradictingSentence, supportingSentence } from "./evidence-span.ts";
import { limitInput } from "./input-limits.ts";
import type { JoinedPair } from "./joined-pair.ts";
import { heldByOne, joinTerms, joinedPairs, joinedWindow } from "./joined-pair.ts";
import { scriptMismatch } from "./language.ts";
import type { LimitName } from "./limits.ts";
import { limitText, orderLimits } from "./limits.ts";
import { callsSavedOf, lookUpPairs } from "./pair-lookup.ts";
import type { TriageOutcome } from "./triage.ts";
import { decidedByTriage, triageClaims } from "./triage.ts";
import { attachMarkers, claimsWithinBudget, planClaimChecks, windowsToCheck } from "./plan.ts";
import type { AnswerInput, GroundednessResult, CitationSummary, ClaimResult, Evidence, GroundednessScorer, GroundednessSettings, UnscorableReason } from "./result.ts";
import type { TextAnalyzer } from "./text.ts";
import type { JudgedWindow } from "./verdict.ts";
import { answerContribution, citationsOf, judgeClaim, misattributedCitations } from "./verdict.ts";
import { aloneClaims, detectSpans, placeSpans, refineClaims } from "./span-judge.ts";
import type { ClaimPlace } from "./spans.ts";

/** What a span detector adds to an answer result. */
type SpanFields = Pick<GroundednessResult, "spans" | "callsByEngine" | "spansUnmeasured">;

function contextIsEmpty(texts: readonly string[]): boolean {
  return texts.every((d) => d.trim() === "");
}

/**
 * Scores answers against their retrieved context: claims → preselected windows →
 * backend → per-claim verdicts → answer score. Fails closed: anything that prevents
 * a real measurement yields `unscorable` with a reason, never a high score.
 */
export function createGroundednessScorer(backend: EntailmentBackend, analyzer: TextAnalyzer, settings: GroundednessSettings): GroundednessScorer {
  // Every reply checked once: a wrong count or probability is a backend_error, as in every other measurement.
  const shared = checkedBackend(backend);
  const info = backendInfo(shared);
  // Retrieved documents recur across requests: each is cut into windows once while it stays cached.
  const windowCache = settings.windowCacheBytes === 0 ? undefined : createWindowCache(settings.windowCacheBytes);
  const unscorable = (reason: UnscorableReason, detail: string, skipped: readonly SkippedSentence[] = [], limits: ReadonlySet<LimitName> = new Set(), entailmentCalls = 0, citations?: CitationSummary): GroundednessResult => ({
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
  const relevance = settings.relevance;
  // The cascade's cheap tier, its replies checked like the backend's: a wrong reply decides nothing (every claim goes to the backend).
  const triage = settings.triage ? { ...settings.triage, backend: checkedBackend(settings.triage.backend) } : undefined;
  // The question is read no further than an answer would be (attacker-sized text meets the same limits).
  const cutText = (text: string | undefined): string | undefined => (text === undefined ? undefined : limitText(text, settings.maxAnswerChars ?? Infinity, settings.maxTokenChars ?? Infinity).text);
  const spanSettings = settings.spans;
  const alone = spanSettings?.mode === "alone";
  const scoreAnswer = async ({ answer, context, question }: AnswerInput, backend: EntailmentBackend, options?: CallOptions): Promise<GroundednessResult> => {
      if (answer.trim() === "") return unscorable("empty_answer", "the answer is empty");
      const documents = toDocuments(context);
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
      // A joined pair's evidence: its first sentence, and the second as `also`.
      const joinedEvidence = (j: JoinedPair): Evidence => ({ ...evidenceIn(j.first.window, j.first.span), also: evidenceIn(j.second.window, j.second.span) });
      const overClaims = plan.skipped.filter((s) => s.reason === "over_limit");
      if (overClaims.length > 0) limits.add("claims");
      const windows = plan.windows;
      const citedBy = attachMarkers(plan, resolved, toAnswer);
      const checks = windowsToCheck(plan, citedBy, settings.topK);
      // The per-answer entailment budget: claims whose windows would go past it are not checked.
      // Alone, no pair is sent: every claim is checked (the detector reads the answer whole).
      const checked = alone ? plan.claims.length : claimsWithinBudget(checks, settings.maxEntailmentCalls);
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
      // The span detector runs once per answer, on the texts the claims were read from; its offsets
      // are mapped back as the claims' are. It runs alone, or after the claim pairs (refine): run
      // beside them, both engines ask for every core and the answer took longer than one after the
      // other (docs/benchmarks.md, span detectors), and a claim backend that fails costs no span run.
      const places: ClaimPlace[] = plan.claims.slice(0, checked).map((c, ci) => ({ index: ci, start: c.start, end: c.end }));
      const cutQuestion = cutText(question);
      type SpanRun = { ok: true; detection: SpanDetection } | { ok: false; error: unknown };
      const spanRun = (): Promise<SpanRun> | undefined =>
        spanSettings
        ? detectSpans(spanSettings.detector, { answer: input.answer.text, passages: checkedDocs, ...(cutQuestion === undefined ? {} : { question: cutQuestion }) }, options).then(
            (detection): SpanRun => ({ ok: true, detection }),
            (error: unknown): SpanRun => ({ ok: false, error }),
          )
        : undefined;
      if (spanSettings && alone) {
        const run = (await spanRun()) as SpanRun;
        if (!run.ok) return unscorable("backend_error", backendFailure(spanSettings.detector.name, run.error), skipped, limits, 0, summary(0));
        const { tokens, runs } = run.detection;
        const placed = placeSpans(input.answer.text, tokens, 1 - settings.threshold, places, toAnswer);
        const judged = aloneClaims(claims, places, tokens, placed);
        return finish(judged, { spans: placed.spans, callsByEngine: { claims: 0, spans: runs } }, 0, {});
      }
      const pairs: NliPair[] = [];
      // Per claim, the [from, to) range of its pairs (a claim's pairs are contiguous).
      const ranges: Array<{ from: number; to: number }> = [];
      const owners: ContextWindow[] = [];
      // One more pair per claim while the budget lasts: two sentences of its windows read together
      // (core/joined-pair.ts). It sits at the end of its claim's range, so the cascade sees it too.
      const windowPairs = checks.slice(0, checked).reduce((n, chosen) => n + chosen.length, 0);
      const citedDocs = citedBy.slice(0, checked).map((cites) => new Set(cites.flatMap((c) => c.docs)));
      // A claim one window holds whole is never joined: its claim is not analysed again for it.
      const joinBy = plan.terms.slice(0, checked).map((t, ci) => (heldByOne(checks[ci] ?? [], new Set(t)) ? t : joinTerms(t, analyzer.analyze(plan.claims[ci]?.text ?? ""))));
      const joins = joinedPairs(checks.slice(0, checked), joinBy, citedDocs, windows, (settings.maxEntailmentCalls ?? Infinity) - windowPairs);
      const joinAt: number[] = [];
      checks.slice(0, checked).forEach((chosen, ci) => {
        const claim = plan.claims[ci];
        const from = pairs.length;
        joinAt.push(-1);
        if (claim) {
          for (const w of chosen) {
            const document = checkedDocs[w.doc];
            pairs.push({ premise: w.text, hypothesis: claim.text, ...(document === undefined ? {} : { source: { document, start: w.start, end: w.end } }) });
            owners.push(w);
          }
          const join = joins[ci];
          if (join) {
            pairs.push({ premise: join.premise, hypothesis: claim.text });
            owners.push(joinedWindow(join));
            joinAt[ci] = pairs.length - 1;
          }
        }
        ranges.push({ from, to: pairs.length });
      });
      // Only what no verbatim sentence, cached judgement, claim the cheap tier decided (the cascade) or
      // earlier pair of this answer decides goes to the backend.
      let lookup = lookUpPairs(pairs, owners, settings.nliCache, backend.version);
      const judgeWith = (ci: number, results: readonly (NliResult | undefined)[]): ClaimResult => {
        const range = ranges[ci] ?? { from: 0, to: 0 };
        const at = joinAt[ci] ?? -1;
        const judged: JudgedWindow[] = [];
        for (let i = range.from; i < range.to; i++) {
          const r = results[i];
          const w = owners[i];
          if (r && w && i !== at) judged.push({ r, w });
        }
        const claim = claims[ci] ?? { index: ci, text: "", start: 0, end: 0 };
        const how = { documents, threshold: settings.threshold, supportIn: (w: ContextWindow) => supportIn(ci, w), conflictIn: (w: ContextWindow) => conflictIn(ci, w) };
        const alone = judgeClaim(claim, judged, citedBy[ci] ?? [], how);
        const join = joins[ci];
        const r = results[at];
        const w = owners[at];
        // A claim its windows contradict stays contradicted: the join may only raise its support.
        if (!join || !r || !w || alone.verdict === "contradicted") return alone;
        const shown = (x: ContextWindow, other: (x: ContextWindow) => Evidence): Evidence => (x === w ? joinedEvidence(join) : other(x));
        const joined = judgeClaim(claim, [...judged, { r, w }], citedBy[ci] ?? [], { ...how, supportIn: (x) => shown(x, how.supportIn), conflictIn: (x) => shown(x, how.conflictIn) });
        return joined.verdict !== "contradicted" && joined.score > alone.score ? joined : alone;
      };
      let decided: TriageOutcome["decided"] = new Map();
      if (triage && lookup.send.length > 0) {
        try {
          const outcome = await triageClaims({ pairs, ranges, known: lookup.known, cited: claims.map((_, ci) => (citedBy[ci] ?? []).length > 0), judge: judgeWith }, triage);
          decided = outcome.decided;
          if (decided.size > 0) lookup = lookUpPairs(pairs, owners, settings.nliCache, backend.version, outcome.given);
        } catch {
          // The cheap tier failed: nothing is decided by it, and every claim goes to the backend.
          decided = new Map();
        }
      }
      const { send } = lookup;
      let sent: NliResult[];
      try {
        sent = send.length > 0 ? await backend.classify(send) : [];
      } catch (error) {
        return unscorable("backend_error", backendFailure(info.name, error), skipped, limits, send.length, summary(0));
      }
      const results = lookup.complete(sent);
      const claimResults = claims.map((_, ci): ClaimResult => {
        const result = judgeWith(ci, results);
        const decision = decided.get(ci);
        return decision && triage ? decidedByTriage(result, decision, settings.threshold, triage) : result;
      });
      const refining = spanRun();
      if (!spanSettings || !refining) return finish(claimResults, {}, send.length, callsSavedOf(lookup.saved));
      // Refine: the claim detector's verdicts stand whatever the span detector does.
      const run = await refining;
      const callsByEngine = { claims: send.length, spans: run.ok ? run.detection.runs : 0 };
      if (!run.ok) return finish(claimResults, { callsByEngine, spansUnmeasured: { reason: "backend_error", detail: backendFailure(spanSettings.detector.name, run.error) } }, send.length, callsSavedOf(lookup.saved));
      const placed = placeSpans(input.answer.text, run.detection.tokens, spanSettings.threshold, places, toAnswer);
      return finish(refineClaims(claimResults, placed), { spans: placed.spans, callsByEngine }, send.length, callsSavedOf(lookup.saved));

      /** The answer's score, verdict and causes from its judged claims. */
      async function finish(claimResults: readonly ClaimResult[], spanFields: SpanFields, entailmentCalls: number, saved: ReturnType<typeof callsSavedOf>): Promise<GroundednessResult> {
        const score = Math.min(...claimResults.map((c) => answerContribution(c.score, c.contradiction)));
        const verdict = score >= settings.threshold && claimResults.every((c) => c.verdict === "supported") ? "grounded" : "ungrounded";
        const attributed = relevance
          ? await attributeCauses({ ...(question === undefined ? {} : { question: cutQuestion ?? "" }), answer: input.answer.text, windows, documents: checkedDocs.length, documentTexts: checkedDocs, claims: claimResults, verdict, threshold: settings.threshold, backend, analyzer, settings: relevance })
          : undefined;
        return {
          verdict,
          score,
          threshold: settings.threshold,
          ...(attributed?.cause === undefined ? {} : { cause: attributed.cause }),
          ...(attributed?.causeReason === undefined ? {} : { causeReason: attributed.causeReason }),
          claims: attributed?.claims ?? claimResults,
          skipped,
          backend: info,
          limits: orderLimits(limits),
          entailmentCalls,
          ...spanFields,
          ...saved,
          ...citationsOf(summary(misattributedCitations(claimResults))),
          ...(attributed ? { relevance: attributed.relevance } : {}),
        };
      }
  };
  return {
    async score(input: AnswerInput, options?: CallOptions): Promise<GroundednessResult> {
      const backend = scopedBackend(shared, options);
      const result = await scoreAnswer(input, backend, options);
      if (result.verdict !== "unscorable" || !relevance || result.reason === "backend_error") return result;
      // Nothing was scored: whether the answer addresses the question is still worth knowing (a refusal does).
      const measured = await unscoredRelevance(cutText(input.question), cutText(input.answer) ?? "", backend, relevance);
      return measured ? { ...result, relevance: measured } : result;
    },
  };
}
