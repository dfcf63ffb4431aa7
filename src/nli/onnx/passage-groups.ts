/**
 * Long inputs split as LettuceDetect's reference splits them (lettucedetect/detectors/transformer.py,
 * TransformerDetector._group_passages_into_chunks, read, not copied): the budget for the prompt is
 * maxLength − the answer's tokens − 3 special tokens. When the whole prompt fits, one group of
 * every passage. Otherwise the prompt's instructions alone (the template with one empty passage)
 * are counted, and the passages, each counted as its own line ("<word> <n>: <passage>", n its
 * place in the whole list), are put greedily into groups whose lines (+1 token for each newline
 * between them) fit what the instructions leave. When the instructions and the answer leave no
 * room, one group of every passage (its prompt is then cut to fit). A group is never empty; a
 * passage longer than the room alone is a group of its own, cut when run.
 */
import type { SpanPromptLanguage } from "./span-prompt.ts";
import { passageLine, spanPrompt } from "./span-prompt.ts";

/** Counts a text's tokens without special tokens. */
export type CountTokens = (text: string) => number;

/** The passages in groups, in order, each to be run as one prompt with the answer. */
export function groupPassages(lang: SpanPromptLanguage, passages: readonly string[], question: string | undefined, answerTokens: number, maxLength: number, count: CountTokens): string[][] {
  const budget = maxLength - answerTokens - 3;
  if (count(spanPrompt(lang, passages, question)) <= budget) return [[...passages]];
  const room = budget - count(spanPrompt(lang, [""], question));
  if (room <= 0) return [[...passages]];
  const groups: string[][] = [];
  let current: string[] = [];
  let used = 0;
  passages.forEach((passage, i) => {
    const n = count(passageLine(lang, i, passage));
    let needed = n + (current.length > 0 ? 1 : 0);
    if (used + needed > room && current.length > 0) {
      groups.push(current);
      current = [];
      used = 0;
      needed = n;
    }
    current.push(passage);
    used += needed;
  });
  if (current.length > 0) groups.push(current);
  return groups.length > 0 ? groups : [[...passages]];
}
