import type { AnswerCause, AnswerVerdict, ClaimCause, ClaimVerdict } from "../core/result.ts";
import type { BackendInfo } from "../core/backend.ts";

/**
 * What the review spool holds and what reviewers write: one JSON object a line each. A spool record
 * is an answer kept for people to check (every flagged answer, and a random sample of grounded ones
 * so that labels estimate recall too); a label record is one reviewer's judgement of one of them.
 * Types and names only: the writer, reader and commands build on them.
 *
 * This is a file format, declared here and nowhere else: the SDK builds a spool record with the
 * evaluation's spool view (evaluation/views.ts `spoolRecordOf`), which names each field, so a change
 * to the scoring worker's wire form does not change what is written. A change to these types is a
 * change to the format (REVIEW_RECORD_VERSION).
 */

/** The version every record carries; a reader refuses another. */
export const REVIEW_RECORD_VERSION = 1;

/**
 * Why an answer is in the spool: `flagged` (scorable and not grounded: its verdict is ungrounded) or
 * `grounded_sample` (a grounded answer drawn at the grounded sample rate). Unscorable answers have
 * no claims to judge and are never spooled.
 */
export type SpoolKind = "flagged" | "grounded_sample";
export const SPOOL_KINDS = ["flagged", "grounded_sample"] as const satisfies readonly SpoolKind[];

/** A retrieved document as the scorer read it (after redaction). */
export interface SpoolDocument {
  readonly id?: string;
  readonly title?: string;
  readonly url?: string;
  readonly text: string;
}

/** Where in a document a claim's evidence lies: the document's index in `documents`, and offsets into its `text`. */
export interface SpoolEvidence {
  readonly doc: number;
  readonly start: number;
  readonly end: number;
  /** The second sentence the claim was read with (two sentences of two windows read together), when there was one. */
  readonly also?: { readonly doc: number; readonly start: number; readonly end: number };
}

/**
 * Words of the answer a span detector marked unsupported (core/result.ts AnswerSpan): offsets into
 * the record's `answer`, the highest token probability of the run, the index of the claim it falls
 * in (null: outside every checked claim), and the words, redacted like every text of the record.
 */
export interface SpoolSpan {
  readonly start: number;
  readonly end: number;
  readonly probability: number;
  readonly claim: number | null;
  readonly text: string;
}

/** One checked claim of the answer: its index, text, offsets into the record's `answer`, verdict, entailment score, cause and where its evidence lies. */
export interface SpoolClaim {
  readonly index: number;
  readonly text: string;
  readonly start: number;
  readonly end: number;
  readonly verdict: ClaimVerdict;
  readonly score: number;
  /** Why the claim is not supported, when the answer's failure was attributed. */
  readonly cause?: ClaimCause;
  readonly evidence?: SpoolEvidence;
  /** Indexes into the record's `spans` of the spans that fall in this claim. */
  readonly spans?: readonly number[];
  /** Why the claim was decided as it was: a span marked words of it (unsupported_span), or it cites a document that was not retrieved. */
  readonly reason?: "citation_not_retrieved" | "unsupported_span";
  /** "triage": the cascade's cheap tier decided the claim without a model call. */
  readonly decidedBy?: "triage";
}

/** One answer kept for review. Text fields have passed the redaction hook. */
export interface SpoolRecord {
  readonly v: typeof REVIEW_RECORD_VERSION;
  /** Unique per answer: `${traceId}-${spanId}` of its evaluation span when it has one, else a random id. */
  readonly id: string;
  readonly kind: SpoolKind;
  /** When it was scored, ISO 8601. */
  readonly time: string;
  /** The capped route label. */
  readonly route: string;
  readonly traceId?: string;
  readonly spanId?: string;
  /** Which replica wrote it (the spool's replica name). */
  readonly replica: string;
  readonly question?: string;
  readonly answer: string;
  readonly documents: readonly SpoolDocument[];
  readonly verdict: AnswerVerdict;
  readonly score: number | null;
  /** The answer threshold it was judged against. */
  readonly threshold?: number;
  readonly cause?: AnswerCause;
  readonly claims: readonly SpoolClaim[];
  /** With a span detector: the words it marked unsupported, in answer order (empty when none); absent when none ran. */
  readonly spans?: readonly SpoolSpan[];
  readonly backend: BackendInfo;
  /** The probability with which an answer of its kind was kept: 1 for flagged, the grounded sample rate for a grounded sample. */
  readonly sampleRate: number;
}

/** A reviewer's judgement of a whole answer: grounded (1) or not (0). */
export type ReviewLabelValue = 0 | 1;

/** What a reviewer says of a span: it is wrong (the detector marked words the documents support). */
export type SpanVerdict = "wrong";
export const SPAN_VERDICTS = ["wrong"] as const satisfies readonly SpanVerdict[];

/** A reviewer's mark on one span of a spooled answer: its index into the record's `spans`, and the verdict. */
export interface SpanLabel {
  readonly span: number;
  readonly verdict: SpanVerdict;
}

/** One reviewer's label of one spooled answer (append-only; a later record for the same id and reviewer replaces an earlier one). */
export interface LabelRecord {
  readonly v: typeof REVIEW_RECORD_VERSION;
  /** The spool record's id. */
  readonly id: string;
  readonly reviewer: string;
  /** When it was labelled, ISO 8601. */
  readonly time: string;
  /**
   * What the reviewer says: the answer is grounded (1) or not (0); absent on an undo, which takes
   * back this reviewer's earlier label of the id.
   */
  readonly label?: ReviewLabelValue;
  /** Whether the label agrees with groundwatch's verdict (flagged ↔ 0, grounded ↔ 1). */
  readonly agreement?: "agree" | "disagree";
  /** Claim by claim, when the reviewer marked them: supported (1) or not (0), by claim index. */
  readonly claims?: ReadonlyArray<{ readonly index: number; readonly label: ReviewLabelValue }>;
  /** Spans the reviewer marked wrong (the words are supported after all), by index into the record's `spans`. */
  readonly spans?: readonly SpanLabel[];
  /** The record's kind, copied so that agreement can be counted from labels alone. */
  readonly kind: SpoolKind;
  /** True on a record that takes back the reviewer's earlier label of `id`. */
  readonly undo?: true;
}

/**
 * What `review delete` appends to a labels file after it blanked labels in place: not a label
 * (readers skip it), but a sign to a reader that keeps counts as the file grows (the labels gauge)
 * that lines it already counted changed, so it reads the file again from the start.
 */
export interface ErasureRecord {
  readonly v: typeof REVIEW_RECORD_VERSION;
  /** How many label lines were blanked. */
  readonly erased: number;
  /** When, ISO 8601. */
  readonly time: string;
}

/**
 * The agreement rule, written once: the label that agrees with groundwatch's verdict of an answer of
 * this kind — not grounded (0) for a flagged answer, grounded (1) for a grounded sample. So
 * "agree" on a flagged answer means 0, and "disagree" means 1.
 */
export function agreeingLabel(kind: SpoolKind): ReviewLabelValue {
  return kind === "flagged" ? 0 : 1;
}

/** Whether a reviewer's label agrees with groundwatch's verdict of the answer (agreeingLabel). */
export function agreementOf(kind: SpoolKind, label: ReviewLabelValue): "agree" | "disagree" {
  return label === agreeingLabel(kind) ? "agree" : "disagree";
}

/** The label an agreement with groundwatch's verdict means for an answer of this kind (agreeingLabel). */
export function labelFromAgreement(kind: SpoolKind, agreement: "agree" | "disagree"): ReviewLabelValue {
  const agreeing = agreeingLabel(kind);
  return agreement === "agree" ? agreeing : agreeing === 1 ? 0 : 1;
}
