import type { ChatReply, ChatRequest, ChatServer } from "./chat-server.ts";
import { startChatServer } from "./chat-server.ts";

/** One judge request as the server received it (a chat-completions request). */
export type JudgeRequest = ChatRequest;

/** What the server does with one request: a status, a JSON body (or raw text), a delay. */
export type JudgeReply = ChatReply;

/** A chat-completions body with one choice. */
export function chat(content: string, extra: { finish_reason?: string; refusal?: string } = {}): unknown {
  return {
    choices: [{ message: { role: "assistant", content, ...(extra.refusal ? { refusal: extra.refusal } : {}) }, finish_reason: extra.finish_reason ?? "stop" }],
    usage: { prompt_tokens: 100, completion_tokens: 2 },
  };
}

/** A local OpenAI-compatible endpoint that replays scripted replies (the chat server); closed when the test ends. */
export function startJudgeServer(reply: (req: JudgeRequest, n: number) => JudgeReply): Promise<ChatServer> {
  return startChatServer(reply);
}

/** One generated token of a scripted reply: its text, log probability and most likely alternatives. */
export interface ScriptedToken {
  readonly token: string;
  readonly logprob: number;
  readonly top?: ReadonlyArray<readonly [token: string, logprob: number]>;
}

/** What the model "generates": its text as tokens (default: `content` split at spaces, each word a token with logprob 0). */
export interface Scripted {
  readonly content: string;
  readonly tokens?: readonly ScriptedToken[];
  /** The OpenAI-style refusal field (a server that has one). */
  readonly refusal?: string;
  /** Overrides the finish_reason the server works out (content_filter, say). */
  readonly finish_reason?: string;
}

/**
 * The servers a judge recipe meets: vLLM's OpenAI server, Ollama's /v1 (logprobs since 0.12.11), and
 * an Ollama before 0.12.11, which drops `logprobs` and `top_logprobs` from the request silently.
 */
export type Serving = "vllm" | "ollama" | "ollama-0.12.10";

const wordTokens = (content: string): ScriptedToken[] => (content.match(/\s*\S+\s*/g) ?? []).map((token) => ({ token, logprob: 0 }));
const bytesOf = (token: string): number[] => [...Buffer.from(token, "utf8")];

/**
 * `scripted` answered as `serving` answers `req`: the tokens cut at max_tokens with finish_reason
 * "length" (as both servers do: the model never reached its end), else "stop"; logprobs only when the
 * request asked for them and the server sends them, each token's alternatives cut to top_logprobs;
 * vLLM's body and Ollama's each with their own fields (vLLM: refusal null, stop_reason, an empty
 * tool_calls; Ollama: system_fingerprint fp_ollama, no logprobs field when it has none).
 */
export function answerAs(serving: Serving, req: JudgeRequest, scripted: Scripted): JudgeReply {
  const all = scripted.tokens ?? wordTokens(scripted.content);
  const cut = req.max_tokens !== undefined && all.length >= req.max_tokens;
  const tokens = cut ? all.slice(0, req.max_tokens) : all;
  // The text is the script's (its tokens, when given, spell it), or what is left of it after the cut.
  const content = cut ? tokens.map((t) => t.token).join("") : scripted.content;
  const finishReason = scripted.finish_reason ?? (cut ? "length" : "stop");
  const sendsLogprobs = req.logprobs === true && serving !== "ollama-0.12.10";
  const logprobs = sendsLogprobs
    ? {
        content: tokens.map((t) => ({
          token: t.token,
          logprob: t.logprob,
          bytes: bytesOf(t.token),
          top_logprobs: (t.top ?? [[t.token, t.logprob]]).slice(0, req.top_logprobs ?? 0).map(([token, logprob]) => ({ token, logprob, bytes: bytesOf(token) })),
        })),
      }
    : null;
  const usage = { prompt_tokens: 100, completion_tokens: tokens.length, total_tokens: 100 + tokens.length };
  if (serving === "vllm") {
    return {
      body: {
        id: "chatcmpl-0123456789abcdef",
        object: "chat.completion",
        created: 1_767_225_600,
        model: req.model,
        choices: [{ index: 0, message: { role: "assistant", content, refusal: scripted.refusal ?? null, reasoning_content: null, tool_calls: [] }, logprobs, finish_reason: finishReason, stop_reason: null }],
        usage,
        prompt_logprobs: null,
      },
    };
  }
  return {
    body: {
      id: "chatcmpl-123",
      object: "chat.completion",
      created: 1_767_225_600,
      model: req.model,
      system_fingerprint: "fp_ollama",
      choices: [{ index: 0, message: { role: "assistant", content, ...(scripted.refusal ? { refusal: scripted.refusal } : {}) }, finish_reason: finishReason, ...(logprobs ? { logprobs } : {}) }],
      usage,
    },
  };
}
