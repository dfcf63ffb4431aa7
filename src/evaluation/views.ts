import { randomUUID } from "node:crypto";
import { causeLabel } from "../core/cause.ts";
import type { DocumentNames } from "../core/context.ts";
import { documentId, toDocuments } from "../core/context.ts";
import type { AnswerSpan, ClaimResult, Evidence } from "../core/result.ts";
import { evidenceToShow } from "../core/verdict.ts";
import type { Observation } from "../scoring/scorer.ts";
import type { ClaimSummary, ClaimText, EvaluationEvent, EvaluationSummary, EvidenceRef, FlaggedAnswer, FlaggedClaim, FlaggedEvidence, FlaggedSpan, SpanRef } from "./types.ts";

/**
 * The views of an evaluation, one projection each, all in this file (as pino keeps its serializers
 * in one): a claim without text (`claimSummary`) and with it (`claimText`), both carried by the
 * wire form (summary.ts); and on the host thread, from the wire form, the onEvaluation payload
 * (`evaluationEventOf`), the ring's entry (`flaggedAnswerOf`) and the review spool's record
 * (`spoolRecordOf`, whose type the review layer declares). A field of a view is chosen here, by
 * name, never passed through by a spread, so a change to the wire form does not change a view.
 */

/** What a view may show of the observation with content capture on: the question, the answer, and the documents. */
export type ObservationContent = Pick<Observation, "question" | "answer" | "context">;

/** Where an evaluation happened: its route label and its evaluation span's ids (all zeros: no span). */
export interface EvaluationAt {
  readonly route: string;
  readonly traceId: string;
  readonly spanId: string;
}

/** Where a piece of evidence lies, without its text. */
export function evidenceRef(e: EvidenceRef | Evidence): EvidenceRef {
  return { doc: e.doc, start: e.start, end: e.end };
}

/** Words a span detector marked, without them (the wire form's `spans`). */
export function spanRef(s: SpanRef | AnswerSpan): SpanRef {
  return { start: s.start, end: s.end, probability: s.probability, claim: s.claim };
}

/** A claim that is not supported, without its text (the wire form's `flaggedClaims`); the spans in it, and why, with a span detector. */
export function claimSummary(c: ClaimResult): ClaimSummary {
  const e = evidenceToShow(c);
  return {
    verdict: c.verdict,
    start: c.start,
    end: c.end,
    evidence: e ? evidenceRef(e) : null,
    ...(c.cause ? { cause: c.cause } : {}),
    ...(c.reason === "unsupported_span" ? { reason: c.reason } : {}),
    ...(c.spans && c.spans.length > 0 ? { spans: [...c.spans] } : {}),
  };
}

/** A checked claim with its text and score (the wire form's `reviewClaims`). */
export function claimText(c: ClaimResult): ClaimText {
  const e = evidenceToShow(c);
  return {
    index: c.index,
    text: c.text,
    start: c.start,
    end: c.end,
    verdict: c.verdict,
    score: c.score,
    ...(c.cause ? { cause: c.cause } : {}),
    ...(e ? { evidence: { ...evidenceRef(e), ...(e.also ? { also: evidenceRef(e.also) } : {}) } } : {}),
    ...(c.spans && c.spans.length > 0 ? { spans: [...c.spans] } : {}),
    ...(c.reason === "unsupported_span" || c.reason === "citation_not_retrieved" ? { reason: c.reason } : {}),
    ...(c.decidedBy ? { decidedBy: c.decidedBy } : {}),
  };
}

/** The onEvaluation payload: the wire form without any user text (no claim text, no evidence text), whatever captureContent says. */
export function evaluationEventOf(route: string, durationS: number, result: EvaluationSummary): EvaluationEvent {
  const { content: _content, reviewClaims: _reviewClaims, ...rest } = result;
  return { route, durationMs: durationS * 1000, result: rest };
}

/** Where a claim's evidence lies, with its document's names through `capture` (only with content capture on). */
function flaggedEvidenceOf(e: ClaimSummary["evidence"], documents: readonly DocumentNames[] | undefined, capture: ((text: string) => string) | undefined): FlaggedEvidence | null {
  if (!e) return null;
  const d = capture ? documents?.[e.doc] : undefined;
  if (!d || !capture) return { doc: e.doc, start: e.start, end: e.end };
  const id = documentId(d.id);
  return { doc: e.doc, start: e.start, end: e.end, ...(id !== undefined ? { id: capture(id) } : {}), ...(typeof d.title === "string" ? { title: capture(d.title) } : {}), ...(typeof d.url === "string" ? { url: capture(d.url) } : {}) };
}

/**
 * The ring's view: an answer that is not grounded (flagged or unscorable) as the ring keeps it, or
 * undefined for a grounded one. `content` is given only with content capture on: `capture` (the recording's cap and redaction, the content policy's `text`, telemetry/content-policy.ts)
 * and the observation, whose question, answer and documents' names then go through `capture` too.
 * Without it the answer carries offsets and positions, and no text.
 */
export function flaggedAnswerOf(
  r: EvaluationSummary,
  at: EvaluationAt,
  content?: { readonly capture: (text: string) => string; readonly input?: ObservationContent | undefined },
): Omit<FlaggedAnswer, "time"> | undefined {
  if (r.verdict === "grounded") return undefined;
  const capture = content?.capture;
  const texts = capture ? r.content : undefined;
  const input = capture ? content?.input : undefined;
  const documents = input ? toDocuments(input.context) : undefined;
  const claims: FlaggedClaim[] = (r.flaggedClaims ?? []).map((c, i) => {
    const text = texts?.claims[i];
    const evidenceText = texts?.evidence[i];
    return {
      verdict: c.verdict,
      start: c.start,
      end: c.end,
      evidence: flaggedEvidenceOf(c.evidence, documents, capture),
      ...(c.cause && causeLabel(c.cause) ? { cause: c.cause } : {}),
      ...(capture && text !== undefined ? { text: capture(text) } : {}),
      ...(capture && evidenceText ? { evidenceText: capture(evidenceText) } : {}),
      ...(c.reason ? { reason: c.reason } : {}),
      ...(c.spans ? { spans: [...c.spans] } : {}),
    };
  });
  // With a span detector: the marked spans by offsets and probability, their words only with content capture (as the answer's).
  const spans = r.spans?.map((s, i): FlaggedSpan => {
    const text = texts?.spans?.[i];
    return { ...spanRef(s), ...(capture && text !== undefined ? { text: capture(text) } : {}) };
  });
  const cause = r.verdict === "ungrounded" ? causeLabel(r.cause) : undefined;
  const said = capture && input ? { ...(typeof input.question === "string" ? { question: capture(input.question) } : {}), answer: capture(input.answer) } : {};
  return { traceId: at.traceId, spanId: at.spanId, route: at.route, verdict: r.verdict, score: r.score, ...(r.reason ? { reason: r.reason } : {}), ...(cause ? { cause } : {}), ...said, claims, ...(spans ? { spans } : {}) };
}


const INVALID_ID = /^0+$/;

/**
 * The review spool's view: the record of an answer picked for review, every text through `redact`
 * (which may throw: the caller then skips the answer), without the record version (the spool's
 * writer adds it). The shape is review's SpoolRecord, a file format: each field is named here, so a
 * field added to the wire form does not reach the file.
 */
export function spoolRecordOf<K extends string>(
  observation: ObservationContent,
  result: EvaluationSummary,
  at: EvaluationAt,
  kind: K,
  meta: { readonly replica: string; readonly time: string; readonly sampleRate: number; readonly redact: (text: string) => string },
) {
  const r = meta.redact;
  const documents = toDocuments(observation.context).map((d) => {
    const id = documentId(d.id);
    return { ...(id !== undefined ? { id: r(id) } : {}), ...(d.title !== undefined ? { title: r(d.title) } : {}), ...(d.url !== undefined ? { url: r(d.url) } : {}), text: r(d.text) };
  });
  const claims = (result.reviewClaims ?? []).map((c) => ({
    index: c.index,
    text: r(c.text),
    start: c.start,
    end: c.end,
    verdict: c.verdict,
    score: c.score,
    ...(c.cause ? { cause: c.cause } : {}),
    ...(c.evidence ? { evidence: { ...evidenceRef(c.evidence), ...(c.evidence.also ? { also: evidenceRef(c.evidence.also) } : {}) } } : {}),
    ...(c.spans && c.spans.length > 0 ? { spans: [...c.spans] } : {}),
    ...(c.reason ? { reason: c.reason } : {}),
    ...(c.decidedBy ? { decidedBy: c.decidedBy } : {}),
  }));
  // The marked words are cut from the answer the offsets point into, then redacted like every text.
  const spans = result.spans?.map((s) => ({ start: s.start, end: s.end, probability: s.probability, claim: s.claim, text: r(observation.answer.slice(s.start, s.end)) }));
  const traced = !INVALID_ID.test(at.traceId) && !INVALID_ID.test(at.spanId);
  return {
    id: traced ? `${at.traceId}-${at.spanId}` : randomUUID(),
    kind,
    time: meta.time,
    route: at.route,
    ...(traced ? { traceId: at.traceId, spanId: at.spanId } : {}),
    replica: meta.replica,
    ...(observation.question !== undefined ? { question: r(observation.question) } : {}),
    answer: r(observation.answer),
    documents,
    verdict: result.verdict,
    score: result.score,
    ...(result.threshold !== null ? { threshold: result.threshold } : {}),
    ...(result.cause ? { cause: result.cause } : {}),
    claims,
    ...(spans ? { spans } : {}),
    backend: { name: result.backend.name, version: result.backend.version, tier: result.backend.tier },
    sampleRate: meta.sampleRate,
  };
}
