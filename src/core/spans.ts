/**
 * From a span detector's scored tokens to spans and claim verdicts (see SpanSettings in result.ts).
 * A span is a run of consecutive answer tokens each at or above the threshold (sub-word pieces of
 * one word are consecutive tokens, so a word is marked whole when all its pieces are); its
 * probability is the run's highest. Every pass here is linear in tokens and claims.
 */
import type { ScoredToken } from "./backend.ts";
import type { AnswerSpan } from "./result.ts";

/** A claim's place in the answer, as spans are matched to it. */
export interface ClaimPlace {
  readonly index: number;
  readonly start: number;
  readonly end: number;
}

/** The runs of `tokens` (in answer order) at or above `threshold`, each placed in the first claim it overlaps. */
export function spansOf(answer: string, tokens: readonly ScoredToken[], threshold: number, claims: readonly ClaimPlace[]): AnswerSpan[] {
  const runs: Array<{ start: number; end: number; probability: number }> = [];
  let open: { start: number; end: number; probability: number } | undefined;
  for (const t of tokens) {
    if (t.probability >= threshold) {
      if (open) {
        open.end = Math.max(open.end, t.end);
        open.probability = Math.max(open.probability, t.probability);
      } else open = { start: t.start, end: t.end, probability: t.probability };
    } else if (open) {
      runs.push(open);
      open = undefined;
    }
  }
  if (open) runs.push(open);
  const placed = [...claims].sort((a, b) => a.start - b.start);
  let c = 0;
  return runs.map((r) => {
    // Claims ending at or before the span's start can hold no later span either (spans come in order).
    while (c < placed.length && (placed[c] as ClaimPlace).end <= r.start) c++;
    const claim = placed[c];
    const inClaim = claim !== undefined && claim.start < r.end ? claim.index : null;
    return { start: r.start, end: r.end, probability: r.probability, claim: inClaim, text: answer.slice(r.start, r.end) };
  });
}

/** Per claim (by `index`), the indexes into `spans` of the spans that overlap it. */
export function spansByClaim(spans: readonly AnswerSpan[], claims: readonly ClaimPlace[]): Map<number, number[]> {
  const out = new Map<number, number[]>();
  const placed = [...claims].sort((a, b) => a.start - b.start);
  let first = 0;
  for (let si = 0; si < spans.length; si++) {
    const s = spans[si] as AnswerSpan;
    while (first < placed.length && (placed[first] as ClaimPlace).end <= s.start) first++;
    for (let c = first; c < placed.length && (placed[c] as ClaimPlace).start < s.end; c++) {
      const claim = placed[c] as ClaimPlace;
      const list = out.get(claim.index) ?? [];
      list.push(si);
      out.set(claim.index, list);
    }
  }
  return out;
}

/**
 * Per claim (by `index`), its highest token probability of being unsupported over the tokens that
 * overlap it (0 when none does). `alone` mode's claim score is 1 − this.
 */
export function claimTokenMax(tokens: readonly ScoredToken[], claims: readonly ClaimPlace[]): Map<number, number> {
  const out = new Map<number, number>();
  const placed = [...claims].sort((a, b) => a.start - b.start);
  for (const c of placed) out.set(c.index, 0);
  let first = 0;
  for (const t of tokens) {
    while (first < placed.length && (placed[first] as ClaimPlace).end <= t.start) first++;
    for (let c = first; c < placed.length && (placed[c] as ClaimPlace).start < t.end; c++) {
      const claim = placed[c] as ClaimPlace;
      out.set(claim.index, Math.max(out.get(claim.index) ?? 0, t.probability));
    }
  }
  return out;
}

/** One piece of a text cut at span edges: marked (`span` is the index into the spans) or not (null). */
export interface SpanSegment {
  readonly text: string;
  readonly span: number | null;
}

/**
 * `text` cut into its unmarked and marked pieces, in order, for a renderer to style (ANSI colour,
 * plain brackets, HTML <mark>): one place for every view of an answer with its spans. `from` is the
 * offset of `text` in the answer the spans point into (a claim's text: the claim's start). Spans out
 * of order or overlapping an earlier one are clipped to what is left; linear in text and spans.
 */
export function spanSegments(text: string, spans: readonly Pick<AnswerSpan, "start" | "end">[], from = 0): SpanSegment[] {
  const out: SpanSegment[] = [];
  let at = 0;
  for (let i = 0; i < spans.length; i++) {
    const s = spans[i] as Pick<AnswerSpan, "start" | "end">;
    const start = Math.max(at, Math.min(text.length, s.start - from));
    const end = Math.max(start, Math.min(text.length, s.end - from));
    if (end <= start) continue;
    if (start > at) out.push({ text: text.slice(at, start), span: null });
    out.push({ text: text.slice(start, end), span: i });
    at = end;
  }
  if (at < text.length) out.push({ text: text.slice(at), span: null });
  return out;
}
