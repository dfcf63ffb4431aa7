import type { Span } from "../span.ts";

/** Why a sentence of the answer was not checked against the context. */
export type SkipReason = "question" | "greeting" | "meta" | "refusal" | "no_content" | "over_limit";

/** A checkable statement of the answer. Offsets are into the answer string. */
export interface Claim extends Span {
  readonly kind: "claim";
  readonly index: number;
  readonly text: string;
}

/** A sentence that is not a claim, kept so nothing is dropped silently. */
export interface SkippedSentence extends Span {
  readonly kind: "skipped";
  readonly text: string;
  readonly reason: SkipReason;
}

export type AnswerSegment = Claim | SkippedSentence;
