import type { CallOptions, EntailmentBackend, NliPair, NliResult, RelevancePair } from "../../core/backend.ts";
import type { ChatChoice, ChatClientOptions, ChatUsage } from "./chat.ts";
import { redactSecrets } from "../../net/redact.ts";
import { abortReason } from "../../net/retry.ts";
import { JUDGE_NLI_RECIPE, resolveJudgeRecipe } from "../recipes/judge.ts";
import type { JudgeRecipe } from "../recipes/types.ts";
import { createChatClient } from "./chat.ts";
import { readJudgeReply } from "./replies.ts";
import { JudgeReplyError } from "./reply-error.ts";
import { fillTemplate, judgeRequest } from "./request.ts";
import { JUDGE_RELEVANCE_SYSTEM_PROMPT, RELEVANCE_MAX_TOKENS, judgeRelevancePrompt, parseRelevanceReply } from "./relevance.ts";

export { parseJudgeReply } from "./replies.ts";

/** The judge's options: the chat client's (src/nli/judge/chat.ts) and its own. */
export interface JudgeOptions extends Omit<ChatClientOptions, "label"> {
  /** Chat model name. */
  readonly model: string;
  /** Calls in flight at once (default 4). */
  readonly concurrency?: number | undefined;
  /** Most calls this backend may make in its lifetime; checked before each batch (default 1000). */
  readonly budget?: number | undefined;
  /**
   * The judge recipe (src/nli/recipes/judge.ts): how the pair is put to the model and its reply read
   * (default "nli", groundwatch's own prompt); an unknown name is a ConfigError on `recipe` listing the names.
   */
  readonly recipe?: string | undefined;
}

export type JudgeUsage = ChatUsage;

export interface JudgeBackend extends EntailmentBackend {
  usage(): JudgeUsage;
  /** The recipe this judge runs. */
  readonly recipe: JudgeRecipe;
}

/** What Ollama's OpenAI-compatible endpoint always sends as `system_fingerprint`. */
const OLLAMA_FINGERPRINT = "fp_ollama";

/** The default recipe's user message for a pair: the premise and hypothesis fenced as data. */
export function judgeUserPrompt(pair: NliPair): string {
  return fillTemplate(JUDGE_NLI_RECIPE.message.template, pair, JUDGE_NLI_RECIPE.slots);
}

/**
 * An LLM judge over any OpenAI-compatible chat endpoint (tier production). Temperature 0, one
 * recipe's prompt per pair (src/nli/recipes/judge.ts: groundwatch's own, or a detector's), strict
 * parsing: an unparseable, refused, filtered or (where the whole reply is needed) truncated reply is
 * a JudgeReplyError that fails the batch — never read as entailment or as a score. Relevance (its own
 * fenced prompt, relevance.ts) only with the default recipe: a detector model answers its own question only.
 */
export function createJudgeBackend(options: JudgeOptions): JudgeBackend {
  const recipe = resolveJudgeRecipe(options.recipe);
  const concurrency = options.concurrency ?? 4;
  const client = createChatClient({ ...options, label: "judge", budget: options.budget ?? 1000 });
  // Fires on close(): calls in flight and waits before a retry stop at once.
  const closed = new AbortController();

  const secrets = [options.apiKey];

  /**
   * One completion of `body`: its choice and text, or a JudgeReplyError (never a guess). A reply cut
   * at max_tokens is an error unless `lengthExpected` (a recipe that reads one token by design).
   */
  const complete = async (body: Readonly<Record<string, unknown>>, signal: AbortSignal, lengthExpected = false): Promise<{ readonly choice: ChatChoice; readonly content: string }> => {
    const reply = await client.complete(body, signal);
    // Ollama's /v1 drops chat_template_kwargs and documents unread: the model answered without the
    // criterion and the document, so its reply is no answer to this recipe's question.
    if (reply.systemFingerprint === OLLAMA_FINGERPRINT && ("chat_template_kwargs" in body || "documents" in body)) {
      throw new JudgeReplyError("unsupported", `judge reply came from Ollama (system_fingerprint ${OLLAMA_FINGERPRINT}), which ignores chat_template_kwargs and documents: the ${recipe.name} recipe needs a server that applies them to the chat template (vLLM)`);
    }
    const choice = reply.choices[0];
    if (!choice) throw new JudgeReplyError("empty", "judge reply has no choices");
    if (choice.message?.refusal) throw new JudgeReplyError("refused", `judge refused: ${redactSecrets(String(choice.message.refusal).slice(0, 200), secrets).slice(0, 80)}`);
    if (choice.finish_reason === "content_filter") throw new JudgeReplyError("filtered", "judge reply was filtered");
    if (choice.finish_reason === "length" && !lengthExpected) throw new JudgeReplyError("truncated", `judge reply was truncated (finish_reason length at max_tokens ${String(body.max_tokens)})`);
    if (typeof choice.message?.content !== "string") throw new JudgeReplyError("empty", "judge reply has no text content");
    return { choice, content: choice.message.content };
  };

  /** One pair through the recipe: its request, and its reply read as the recipe's mode says. */
  const judge = async (pair: NliPair, signal: AbortSignal): Promise<NliResult> => {
    const { choice, content } = await complete(judgeRequest(recipe, options.model, pair), signal, recipe.reply === "yes-no-logprobs");
    return readJudgeReply(recipe, choice, content, secrets);
  };

  /** One relevance question in the fixed relevance prompt: the reply's text. */
  const askRelevance = async (pair: RelevancePair, signal: AbortSignal): Promise<string> => {
    const body = {
      model: options.model,
      temperature: 0,
      max_tokens: RELEVANCE_MAX_TOKENS,
      messages: [
        { role: "system", content: JUDGE_RELEVANCE_SYSTEM_PROMPT },
        { role: "user", content: judgeRelevancePrompt(pair) },
      ],
    };
    return (await complete(body, signal)).content;
  };

  /**
   * One call per item, at most `concurrency` in flight, the budget checked for all of them before
   * the first: one result per item, in order, or the first failure (the other calls stop).
   */
  const each = async <P, R>(items: readonly P[], one: (item: P, signal: AbortSignal) => Promise<R>, call?: CallOptions): Promise<R[]> => {
    // Retries may add calls, but the budget is checked against the first attempts before any is made.
    client.checkBudget(items.length);
    const results = new Array<R>(items.length);
    let next = 0;
    // After one item fails the batch is unscorable: the other calls stop and no further one starts.
    const failed = new AbortController();
    // The caller's signal too (a scoring job given up): the calls in flight stop and none starts.
    const signal = AbortSignal.any([closed.signal, failed.signal, ...(call?.signal ? [call.signal] : [])]);
    const worker = async (): Promise<void> => {
      while (next < items.length && !signal.aborted) {
        const i = next++;
        if (i >= items.length) continue;
        try {
          results[i] = await one(items[i] as P, signal);
        } catch (error) {
          failed.abort(error);
          throw error;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
    // Closed part-way: the items not answered have no result.
    if (signal.aborted) throw abortReason(signal);
    return results;
  };

  return {
    name: "judge",
    // The recipe is part of what judged: the NLI cache and every result carry it.
    version: recipe === JUDGE_NLI_RECIPE ? options.model : `${options.model} (recipe ${recipe.name})`,
    tier: "production",
    recommendedThreshold: 0.5,
    recipe,
    usage: () => client.usage(),
    classify: (pairs: readonly NliPair[], call?: CallOptions): Promise<NliResult[]> => each(pairs, judge, call),
    ...(recipe === JUDGE_NLI_RECIPE
      ? {
          relevanceScorer: { name: "judge", model: options.model },
          // Each relevance pair is a model call: a document's best-ranked window speaks for it.
          relevanceTopK: 1,
          /** A number in [0, 1] per pair from a fenced prompt (relevance.ts); an unparseable, out-of-range or missing reply fails the batch. */
          relevance: (pairs: readonly RelevancePair[], call?: CallOptions): Promise<number[]> => each(pairs, async (pair, signal) => parseRelevanceReply(await askRelevance(pair, signal), secrets), call),
        }
      : {}),
    close: () => {
      closed.abort(new Error("the judge backend was closed"));
      return Promise.resolve();
    },
  };
}
