/**
 * A span detector's part in scoring one answer (SpanSettings in result.ts): its one run per answer,
 * its reply checked, its tokens turned into spans placed in the claims (core/spans.ts), and the
 * claims judged by it alone (`alone`) or refined by it (`refine`). Every pass is linear in tokens,
 * spans and claims.
 */
import type { CallOptions, ScoredToken, SpanDetection, SpanDetector, SpanInput } from "./backend.ts";
import { BackendReplyError } from "./checked-backend.ts";
import type { AnswerSpan, ClaimResult } from "./result.ts";
import type { ClaimPlace } from "./spans.ts";
import { claimTokenMax, spansByClaim, spansOf } from "./spans.ts";

/** The note an `alone` claim carries in place of evidence. */
export const NO_EVIDENCE_NOTE = "span detector: a token classifier marks unsupported words and cites no evidence sentence";

const isProbability = (x: unknown): boolean => typeof x === "number" && Number.isFinite(x) && x >= 0 && x <= 1;

/**
 * Runs `detector` once on one answer and checks its reply: one detection, every token inside the
 * answer (0 ≤ start < end ≤ its length), in answer order, with a probability in [0, 1], and a whole
 * number of runs. A reply that is not is a BackendReplyError: never a made-up span.
 */
export async function detectSpans(detector: SpanDetector, input: SpanInput, options?: CallOptions): Promise<SpanDetection> {
  const reply: unknown = await detector.detect([input], options);
  const name = detector.name;
  if (!Array.isArray(reply) || reply.length !== 1) throw new BackendReplyError(`${name} span detector returned ${Array.isArray(reply) ? reply.length : "no"} detections for 1 answer`);
  const d = reply[0] as Partial<SpanDetection> | null;
  const tokens = d?.tokens;
  if (!Array.isArray(tokens)) throw new BackendReplyError(`${name} span detector returned no tokens`);
  const runs = d?.runs;
  if (typeof runs !== "number" || !Number.isInteger(runs) || runs < 0) throw new BackendReplyError(`${name} span detector returned an invalid run count (${String(runs)})`);
  let last = 0;
  for (const t of tokens as Array<Partial<ScoredToken> | null>) {
    if (!isProbability(t?.probability)) throw new BackendReplyError(`${name} span detector returned an invalid probability (${String(t?.probability)}): not a number in [0, 1]`);
    const start = t?.start;
    const end = t?.end;
    if (typeof start !== "number" || typeof end !== "number" || !Number.isInteger(start) || !Number.isInteger(end) || start < last || start >= end || end > input.answer.length) {
      throw new BackendReplyError(`${name} span detector returned a token outside the answer or out of order (${String(start)}–${String(end)} of ${input.answer.length} characters)`);
    }
    last = start;
  }
  return d as SpanDetection;
}

/** Spans found in the checked answer, in its offsets (`checked`) and the caller's (`spans`), with the claims (by index) each overlaps. */
export interface PlacedSpans {
  /** In the caller's answer: what results carry. Texts stay as they were checked. */
  readonly spans: AnswerSpan[];
  /** Per claim index, the indexes into `spans` of the spans that overlap it. */
  readonly byClaim: Map<number, number[]>;
}

/**
 * The runs of `tokens` at or above `threshold` in the checked answer `text`, placed in `claims`
 * (checked offsets, `index` their place in the result's claims), their offsets mapped to the caller's
 * answer by `toAnswer`.
 */
export function placeSpans(text: string, tokens: readonly ScoredToken[], threshold: number, claims: readonly ClaimPlace[], toAnswer: (offset: number) => number): PlacedSpans {
  const found = spansOf(text, tokens, threshold, claims);
  const byClaim = spansByClaim(found, claims);
  return { spans: found.map((s) => ({ ...s, start: toAnswer(s.start), end: toAnswer(s.end) })), byClaim };
}

/** A note naming a span's place in the answer and its probability (never its words: they stay in `spans`). */
function spanNote(s: AnswerSpan): string {
  return `span detector: characters ${s.start}–${s.end} marked unsupported (p ${s.probability.toFixed(2)})`;
}

/** The claim with its spans' indexes and a note for each; the claim as it was when none falls in it. */
function withSpans(claim: ClaimResult, indexes: readonly number[] | undefined, spans: readonly AnswerSpan[]): ClaimResult {
  if (!indexes || indexes.length === 0) return claim;
  const notes = indexes.flatMap((i) => (spans[i] ? [spanNote(spans[i])] : []));
  return { ...claim, spans: indexes, notes: [...claim.notes, ...notes] };
}

/** A checked claim as the scorer holds it: its place in the caller's answer. */
type ClaimBase = Pick<ClaimResult, "index" | "text" | "start" | "end">;

/**
 * `alone`: every checked claim judged by the span detector only. A claim a span falls in is
 * unsupported (reason `unsupported_span`), every other supported; its score is 1 − its highest
 * token probability (`places`: the claims in the checked answer's offsets, in the same order).
 */
export function aloneClaims(claims: readonly ClaimBase[], places: readonly ClaimPlace[], tokens: readonly ScoredToken[], placed: PlacedSpans): ClaimResult[] {
  const highest = claimTokenMax(tokens, places);
  return claims.map((claim, ci): ClaimResult => {
    const indexes = placed.byClaim.get(ci);
    const marked = indexes !== undefined && indexes.length > 0;
    const judged: ClaimResult = {
      ...claim,
      verdict: marked ? "unsupported" : "supported",
      score: 1 - (highest.get(ci) ?? 0),
      contradiction: 0,
      evidence: null,
      notes: [NO_EVIDENCE_NOTE],
      ...(marked ? { reason: "unsupported_span" as const } : {}),
    };
    return withSpans(judged, indexes, placed.spans);
  });
}

/** `refine`: the claim detector's claims, each with the spans that fall in it named; verdicts unchanged. */
export function refineClaims(claims: readonly ClaimResult[], placed: PlacedSpans): ClaimResult[] {
  return claims.map((c, ci) => withSpans(c, placed.byClaim.get(ci), placed.spans));
}
