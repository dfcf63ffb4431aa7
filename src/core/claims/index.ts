/** Claims of an answer: segmentation, classification and clause splitting put together. */
import { isRefusalSentence, plainApostrophes } from "../refusal.ts";
import type { TextAnalyzer } from "../text.ts";
import { isContentToken } from "../text.ts";
import { classify, META } from "./classify.ts";
import { clauseCuts } from "./clauses.ts";
import { sentenceSpans, splitBlocks, trimSpan } from "./segment.ts";
import type { AnswerSegment } from "./types.ts";

export type { AnswerSegment, Claim, SkipReason, SkippedSentence } from "./types.ts";

/**
 * Splits an answer into claims with character offsets. Sentences that are not
 * claims (questions, greetings, meta lines, refusals) come back as `skipped` with
 * a reason, in answer order.
 */
export function splitClaims(answer: string, analyzer: TextAnalyzer): AnswerSegment[] {
  const segments: AnswerSegment[] = [];
  let index = 0;
  for (const block of splitBlocks(answer)) {
    const blockText = answer.slice(block.start, block.end);
    const doc = analyzer.analyze(blockText);
    for (const whole of sentenceSpans(doc)) {
      let sentence = whole;
      let tokens = doc.tokens.slice(sentence.tokenStart, sentence.tokenEnd);
      // "Here is a summary: the fee is $5." — the lead-in is meta, what follows is a claim.
      const colon = tokens.findIndex((t) => t.text === ":");
      if (colon > 0 && colon < tokens.length - 1) {
        const lead = trimSpan(answer, block.start + sentence.start, block.start + (tokens[colon]?.end ?? sentence.end));
        const leadText = answer.slice(lead.start, lead.end);
        if (META.test(plainApostrophes(leadText)) && lead.end > lead.start) {
          segments.push({ kind: "skipped", text: leadText, start: lead.start, end: lead.end, reason: "meta" });
          const rest = sentence.tokenStart + colon + 1;
          sentence = { ...sentence, tokenStart: rest, start: doc.tokens[rest]?.start ?? sentence.end };
          tokens = tokens.slice(colon + 1);
        }
      }
      // "I don't know much about him, but he won two Grammys." — the refusal is skipped, and what
      // follows "but" is a claim: a statement behind a refusal must not go unchecked.
      const but = tokens.findIndex((t, k) => k > 0 && t.lower === "but");
      if (but > 0 && tokens.slice(but + 1).filter(isContentToken).length >= 2) {
        const lead = trimSpan(answer, block.start + sentence.start, block.start + (tokens[but - 1]?.end ?? sentence.end));
        const leadText = answer.slice(lead.start, lead.end);
        const whole = plainApostrophes(answer.slice(block.start + sentence.start, block.start + sentence.end).trim());
        const restText = plainApostrophes(answer.slice(block.start + (tokens[but + 1]?.start ?? sentence.end), block.start + sentence.end).trim());
        if (lead.end > lead.start && isRefusalSentence(whole) && isRefusalSentence(plainApostrophes(leadText)) && !isRefusalSentence(restText)) {
          segments.push({ kind: "skipped", text: leadText, start: lead.start, end: lead.end, reason: "refusal" });
          const rest = sentence.tokenStart + but + 1;
          sentence = { ...sentence, tokenStart: rest, start: doc.tokens[rest]?.start ?? sentence.end };
          tokens = tokens.slice(but + 1);
        }
      }
      const span = trimSpan(answer, block.start + sentence.start, block.start + sentence.end);
      if (span.end <= span.start) continue;
      const text = answer.slice(span.start, span.end);
      const reason = classify(text, tokens);
      if (reason) {
        segments.push({ kind: "skipped", text, start: span.start, end: span.end, reason });
        continue;
      }
      const cuts = clauseCuts(tokens);
      let partStart = 0;
      for (const cut of [...cuts, tokens.length]) {
        const first = tokens[partStart];
        const boundary = tokens[cut];
        const from = block.start + (first?.start ?? sentence.start);
        const to = block.start + (cut < tokens.length ? (boundary?.start ?? sentence.end) : sentence.end);
        const part = trimSpan(answer, from, to);
        if (part.end > part.start) {
          segments.push({ kind: "claim", index: index++, text: answer.slice(part.start, part.end), start: part.start, end: part.end });
        }
        partStart = cut + 1;
      }
    }
  }
  return segments;
}
