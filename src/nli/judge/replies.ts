/**
 * The judge's reply modes (src/nli/recipes/types.ts JudgeReplyMode), each a strict reader: a reply
 * it cannot read is a JudgeReplyError (unparseable), never a guess. Every reader is linear in the
 * reply (no regex that backtracks over it) and shows at most 80 characters of it, redacted.
 */
import type { NliResult } from "../../core/backend.ts";
import { isPlainObject } from "../../core/plain-object.ts";
import { redactSecrets } from "../../net/redact.ts";
import type { JudgeRecipe } from "../recipes/types.ts";
import type { ChatChoice } from "./chat.ts";
import type { CheckedTokenLogprob } from "./logprobs.ts";
import { probabilityOf, tokenLogprobs } from "./logprobs.ts";
import { JudgeReplyError } from "./reply-error.ts";

/** At most 80 characters of a reply, for an error message, with secrets and credential shapes redacted. */
export function replyExcerpt(content: string, secrets: ReadonlyArray<string | undefined>): string {
  return JSON.stringify(redactSecrets(content.slice(0, 200), secrets).slice(0, 80));
}

const unparseable = (recipe: string, why: string, content: string, secrets: ReadonlyArray<string | undefined>): JudgeReplyError =>
  new JudgeReplyError("unparseable", `judge reply unparseable (${recipe}): ${why}: ${replyExcerpt(content, secrets)}`);

/** A binary detector's result: its "not supported" mass is neutral, never a contradiction it cannot see. */
const supported = (p: number, note: string): NliResult => ({ entailment: p, neutral: 1 - p, contradiction: 0, notes: [note] });

const LABELS: Record<string, NliResult> = {
  ENTAILMENT: { entailment: 1, neutral: 0, contradiction: 0 },
  NEUTRAL: { entailment: 0, neutral: 1, contradiction: 0 },
  CONTRADICTION: { entailment: 0, neutral: 0, contradiction: 1 },
};

/**
 * Mode nli-label: exactly one label word (any case, optional final full stop); anything else is an
 * error whose excerpt of the reply has `secrets` and anything shaped like a credential redacted.
 */
export function parseJudgeReply(content: string, secrets: ReadonlyArray<string | undefined> = []): NliResult {
  const word = content.trim().replace(/\.$/, "").toUpperCase();
  const result = LABELS[word];
  if (!result) throw new JudgeReplyError("unparseable", `judge reply is not one label: ${replyExcerpt(content, secrets)}`);
  return result;
}

/**
 * Mode yes-no-logprobs (Bespoke-MiniCheck): the reply is one token, "Yes" or "No"; P(supported) is
 * the sum of exp(logprob) over that first token's top logprobs whose text, trimmed and lower-cased,
 * is "yes" (Liyan06/MiniCheck minicheck/inference.py get_support_prob). No logprobs, no top
 * logprobs, another word, or a "Yes" its own alternatives do not hold: unparseable.
 */
export function parseYesNoLogprobs(recipe: string, choice: ChatChoice, content: string, secrets: ReadonlyArray<string | undefined> = []): NliResult {
  const word = content.trim().toLowerCase();
  if (word !== "yes" && word !== "no") throw unparseable(recipe, 'not "Yes" or "No"', content, secrets);
  const tokens = tokenLogprobs(choice, recipe);
  if (tokens === undefined) throw unparseable(recipe, "no logprobs (the server ignored logprobs: true; Ollama before 0.12.11 does)", content, secrets);
  const first = tokens[0];
  if (!first || first.top.length === 0) throw unparseable(recipe, "no top logprobs for its first token", content, secrets);
  if (first.token.trim().toLowerCase() !== word) throw unparseable(recipe, "its first token's logprobs are not its text's", content, secrets);
  const p = probabilityOf(first.top, "yes");
  // A greedy "Yes" is its token's most likely alternative: alternatives without it are not this reply's.
  if (word === "yes" && p === 0) throw unparseable(recipe, 'a "Yes" whose top logprobs hold no "yes"', content, secrets);
  return supported(p, `${recipe}: P(yes) ${p.toFixed(3)} from the first token's top logprobs`);
}

const THINK_OPEN = "<think>";
const THINK_CLOSE = "</think>";
/** The whole of what follows the optional think block: one score tag; anchored, so it cannot backtrack over the reply. */
const SCORE_TAG = /^<score>[ \t\r\n]*(yes|no)[ \t\r\n]*<\/score>$/i;

/**
 * The token that carries the score: the last one reading "yes" or "no" right after the text
 * "<score>" (whitespace aside). Linear: it keeps only the last 16 characters of what came before.
 */
function scoreToken(tokens: readonly CheckedTokenLogprob[]): { readonly token: CheckedTokenLogprob; readonly word: string } | undefined {
  let tail = "";
  let found: { token: CheckedTokenLogprob; word: string } | undefined;
  for (const token of tokens) {
    const word = token.token.trim().toLowerCase();
    if ((word === "yes" || word === "no") && tail.endsWith("<score>")) found = { token, word };
    if (word !== "") tail = (tail + token.token).trimEnd().slice(-16);
  }
  return found;
}

/**
 * Mode score-tag (Granite Guardian): `<score> yes </score>` is a risk (not grounded), `<score> no
 * </score>` grounded (MiniCheck's get_support_prob_hybrid_gg reads "<score> no </score>" as support
 * 1.0), after an optional `<think>…</think>`; anything else is unparseable. With the score token's
 * top logprobs, P(grounded) = P(no) / (P(no) + P(yes)) over them; without logprobs (or when the
 * score token is not among them), 1 or 0 from the text.
 */
export function parseScoreTag(recipe: string, choice: ChatChoice, content: string, secrets: ReadonlyArray<string | undefined> = []): NliResult {
  let rest = content.trim();
  if (rest.startsWith(THINK_OPEN)) {
    const end = rest.indexOf(THINK_CLOSE);
    if (end < 0) throw unparseable(recipe, "a <think> block without </think>", content, secrets);
    rest = rest.slice(end + THINK_CLOSE.length).trimStart();
  }
  const match = SCORE_TAG.exec(rest);
  if (!match) throw unparseable(recipe, 'not "<score> yes </score>" or "<score> no </score>"', content, secrets);
  const risk = (match[1] as string).toLowerCase() === "yes";
  const tokens = tokenLogprobs(choice, recipe);
  const score = tokens && scoreToken(tokens);
  if (score) {
    if ((score.word === "yes") !== risk) throw unparseable(recipe, "its score token's logprobs are not its text's", content, secrets);
    const no = probabilityOf(score.token.top, "no");
    const yes = probabilityOf(score.token.top, "yes");
    if (no + yes > 0) return supported(no / (no + yes), `${recipe}: P(no risk) ${(no / (no + yes)).toFixed(3)} from the score token's top logprobs`);
  }
  return supported(risk ? 0 : 1, `${recipe}: <score> ${risk ? "yes" : "no"} </score> (no logprobs for the score token)`);
}

/** The text inside one ``` fence (an optional language word after the opening one), or the text itself. */
function unfenced(text: string): string | undefined {
  if (!text.startsWith("```")) return text;
  const newline = text.indexOf("\n");
  if (newline < 0 || !text.endsWith("```") || text.length < newline + 4) return undefined;
  const language = text.slice(3, newline).trim().toLowerCase();
  if (language !== "" && language !== "json") return undefined;
  return text.slice(newline + 1, text.length - 3);
}

/**
 * Mode pass-fail-json (Lynx): a JSON object, possibly inside a ``` fence, whose "SCORE" is "PASS"
 * (supported: 1) or "FAIL" (0); text around it, JSON that does not parse, or a missing or other
 * SCORE is unparseable (patronus-ai/Lynx-hallucination-detection reads `"SCORE": "PASS"|"FAIL"`).
 */
export function parsePassFailJson(recipe: string, content: string, secrets: ReadonlyArray<string | undefined> = []): NliResult {
  const body = unfenced(content.trim());
  if (body === undefined) throw unparseable(recipe, "a ``` fence that does not hold one JSON object", content, secrets);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw unparseable(recipe, "not a JSON object", content, secrets);
  }
  if (!isPlainObject(parsed)) throw unparseable(recipe, "not a JSON object", content, secrets);
  const score = parsed.SCORE;
  if (score === undefined) throw unparseable(recipe, "JSON without SCORE", content, secrets);
  if (score !== "PASS" && score !== "FAIL") throw unparseable(recipe, 'SCORE is not "PASS" or "FAIL"', content, secrets);
  return supported(score === "PASS" ? 1 : 0, `${recipe}: SCORE ${score}`);
}

/** The reply `choice` (its text `content`) read as `recipe`'s mode says. */
export function readJudgeReply(recipe: JudgeRecipe, choice: ChatChoice, content: string, secrets: ReadonlyArray<string | undefined>): NliResult {
  switch (recipe.reply) {
    case "nli-label":
      return parseJudgeReply(content, secrets);
    case "yes-no-logprobs":
      return parseYesNoLogprobs(recipe.name, choice, content, secrets);
    case "score-tag":
      return parseScoreTag(recipe.name, choice, content, secrets);
    case "pass-fail-json":
      return parsePassFailJson(recipe.name, content, secrets);
  }
}
