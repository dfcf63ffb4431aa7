/** The chat-completions request a judge recipe (src/nli/recipes/judge.ts) sends for one pair. */
import type { NliPair } from "../../core/backend.ts";
import type { JudgeRecipe } from "../recipes/types.ts";
import { fence } from "./chat.ts";

/** A recipe template's slots: replaced in one pass, so a premise that contains "{hypothesis}" stays as it is. */
const SLOT = /\{(premise|hypothesis)\}/g;

/**
 * `template` with {premise} and {hypothesis} filled in: "fenced" defuses any fence inside the texts
 * (the template fences them as data), "verbatim" puts them in as they are.
 */
export function fillTemplate(template: string, pair: NliPair, slots: JudgeRecipe["slots"]): string {
  const text = (s: string): string => (slots === "fenced" ? fence(s) : s);
  return template.replace(SLOT, (_, slot: string) => text(slot === "premise" ? pair.premise : pair.hypothesis));
}

/**
 * The request body for one pair: temperature 0, the recipe's messages and max_tokens, and as the
 * recipe asks `logprobs`/`top_logprobs`, the premise as top-level `documents` (vLLM hands them to the
 * chat template) and `chat_template_kwargs` (vLLM applies them; Ollama ignores both fields).
 */
export function judgeRequest(recipe: JudgeRecipe, model: string, pair: NliPair): Readonly<Record<string, unknown>> {
  return {
    model,
    temperature: 0,
    max_tokens: recipe.maxTokens,
    messages: [...(recipe.system !== undefined ? [{ role: "system", content: recipe.system }] : []), { role: recipe.message.role, content: fillTemplate(recipe.message.template, pair, recipe.slots) }],
    ...(recipe.topLogprobs !== undefined ? { logprobs: true, top_logprobs: recipe.topLogprobs } : {}),
    ...(recipe.premiseAs === "documents" ? { documents: [{ doc_id: "0", text: pair.premise }] } : {}),
    ...(recipe.chatTemplateKwargs !== undefined ? { chat_template_kwargs: recipe.chatTemplateKwargs } : {}),
  };
}
