/**
 * A chat choice's `logprobs`, checked: the server's fields are untrusted, so every token must be a
 * string and every log probability a finite number ≤ 0 before a probability is made from them.
 */
import type { ChatChoice } from "./chat.ts";
import { JudgeReplyError } from "./reply-error.ts";

/** One alternative of a token, checked. */
export interface CheckedTopLogprob {
  readonly token: string;
  readonly logprob: number;
}

/** One generated token, checked, with its alternatives (empty when the server sent none). */
export interface CheckedTokenLogprob extends CheckedTopLogprob {
  readonly top: readonly CheckedTopLogprob[];
}

const isLogprob = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v) && v <= 0;

/** The logprobs are there but not in OpenAI's shape: the reply is unparseable. */
const malformed = (recipe: string, why: string): JudgeReplyError => new JudgeReplyError("unparseable", `judge reply unparseable (${recipe}): its logprobs are malformed: ${why}`);

function checkedTop(v: unknown, recipe: string): CheckedTopLogprob {
  const t = v as { token?: unknown; logprob?: unknown } | null;
  if (t === null || typeof t !== "object" || typeof t.token !== "string" || !isLogprob(t.logprob)) throw malformed(recipe, "an entry is not { token: string, logprob: a number ≤ 0 }");
  return { token: t.token, logprob: t.logprob };
}

/**
 * The choice's generated tokens with their logprobs, in order; undefined when the server sent none
 * (`logprobs` or its `content` absent or null). Anything else not in OpenAI's shape is a
 * JudgeReplyError (unparseable) naming `recipe`. Linear in the tokens and their alternatives.
 */
export function tokenLogprobs(choice: ChatChoice, recipe: string): readonly CheckedTokenLogprob[] | undefined {
  const logprobs = choice.logprobs as unknown;
  if (logprobs === undefined || logprobs === null) return undefined;
  if (typeof logprobs !== "object") throw malformed(recipe, "logprobs is not an object");
  const content = (logprobs as { content?: unknown }).content;
  if (content === undefined || content === null) return undefined;
  if (!Array.isArray(content)) throw malformed(recipe, "logprobs.content is not a list");
  return content.map((entry: unknown) => {
    const token = checkedTop(entry, recipe);
    const top = (entry as { top_logprobs?: unknown }).top_logprobs;
    if (top !== undefined && top !== null && !Array.isArray(top)) throw malformed(recipe, "top_logprobs is not a list");
    return { ...token, top: Array.isArray(top) ? top.map((t: unknown) => checkedTop(t, recipe)) : [] };
  });
}

/** Σ exp(logprob) over `alternatives` whose text, trimmed and lower-cased, is `word`; at most 1. */
export function probabilityOf(alternatives: readonly CheckedTopLogprob[], word: string): number {
  let p = 0;
  for (const a of alternatives) if (a.token.trim().toLowerCase() === word) p += Math.exp(a.logprob);
  // Distinct tokens' probabilities sum to at most 1; rounding may pass it by an ulp.
  return Math.min(1, p);
}
