import type { CitationMarker } from "./citations.ts";
import { findCitations, stripCitations } from "./citations.ts";
import type { SkippedSentence } from "./claims/types.ts";
import type { CappedText, LimitName } from "./limits.ts";
import { capTokens, cutPoint, restSpan } from "./limits.ts";

/** The limits limitInput applies (a subset of the scorer's settings). */
export interface InputLimitSettings {
  readonly maxTokenChars?: number | undefined;
  readonly maxAnswerChars?: number | undefined;
  readonly maxDocuments?: number | undefined;
  readonly maxContextChars?: number | undefined;
}

/** The answer as it is checked: its text, the citation markers taken out of it, and the way back to the caller's offsets. */
export interface LimitedAnswer {
  readonly text: string;
  /** Maps an offset of `text` to the caller's answer. */
  toOriginal(offset: number): number;
  /** Citation markers found in the kept part of the answer, with the caller's offsets. */
  readonly markers: readonly CitationMarker[];
}

/** The answer and documents as they are checked, after the input limits, with the way back to the originals. */
export interface LimitedInput {
  readonly answer: LimitedAnswer;
  /** The answer past maxAnswerChars, when anything but whitespace was cut (the caller's offsets). */
  readonly rest: SkippedSentence | undefined;
  readonly docs: readonly CappedText[];
  readonly limits: Set<LimitName>;
}

const uncapped = (text: string): CappedText => ({ text, cut: 0, toOriginal: (offset) => offset });

/**
 * Applies maxTokenChars, maxAnswerChars, maxDocuments and maxContextChars before any text is
 * parsed or reaches the analyser. Over-long tokens are cut first, so a base64 blob does not use
 * up the character allowance of the text around it; character cuts fall on a sentence end or
 * whitespace where one is near; document indexes are kept (an ignored document reads as empty).
 *
 * The answer: the limits decide how much of it is read at all (up to where the kept text ends);
 * citation markers are found and taken out of that part of the caller's text, and only then are
 * over-long tokens cut, so a marker naming a long URL ("(source: https://…)") is read whole while
 * nothing past maxAnswerChars is parsed. `named`: read named sources (the documents carry names).
 */
export function limitInput(answer: string, all: readonly string[], settings: InputLimitSettings, named: boolean): LimitedInput {
  const limits = new Set<LimitName>();
  const capText = (text: string): CappedText => {
    if (settings.maxTokenChars === undefined) return uncapped(text);
    const capped = capTokens(text, settings.maxTokenChars);
    if (capped.cut > 0) limits.add("token_chars");
    return capped;
  };
  // How much of the answer the limits let through, in the caller's offsets.
  const measured = settings.maxTokenChars === undefined ? uncapped(answer) : capTokens(answer, settings.maxTokenChars);
  let end = answer.length;
  let rest: SkippedSentence | undefined;
  if (settings.maxAnswerChars !== undefined && measured.text.length > settings.maxAnswerChars) {
    const cut = cutPoint(measured.text, settings.maxAnswerChars);
    const span = restSpan(measured.text, cut);
    if (span.end > span.start) {
      limits.add("answer_chars");
      rest = { kind: "skipped", text: measured.text.slice(span.start, span.end), start: measured.toOriginal(span.start), end: measured.toOriginal(span.end), reason: "over_limit" };
    }
    end = measured.toOriginal(cut);
  }
  const read = answer.slice(0, end);
  const stripped = stripCitations(read, findCitations(read, named));
  const capped = capText(stripped.text);
  // Taking markers out only shortens the text: the allowance still holds, cut again only as a backstop.
  const kept = settings.maxAnswerChars !== undefined && capped.text.length > settings.maxAnswerChars ? capped.text.slice(0, cutPoint(capped.text, settings.maxAnswerChars)) : capped.text;
  const maxDocuments = settings.maxDocuments ?? Infinity;
  if (all.length > maxDocuments) limits.add("documents");
  let budget = settings.maxContextChars ?? Infinity;
  const docs = all.slice(0, maxDocuments).map((doc): CappedText => {
    if (budget <= 0) {
      if (/\S/.test(doc)) limits.add("context_chars");
      return uncapped("");
    }
    const c = capText(doc);
    let text = c.text;
    if (text.length > budget) {
      text = text.slice(0, cutPoint(text, budget));
      if (/\S/.test(c.text.slice(text.length))) limits.add("context_chars");
    }
    budget -= text.length;
    return { ...c, text };
  });
  return { answer: { text: kept, toOriginal: (offset) => stripped.toOriginal(capped.toOriginal(offset)), markers: stripped.markers }, rest, docs, limits };
}
