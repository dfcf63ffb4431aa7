/**
 * One OpenAI-compatible `/chat/completions` client, shared by the judge backend and the collector's
 * resampler, so both follow the same rules: a per-attempt timeout, retries with exponential backoff
 * on network errors, timeouts, 429 and 5xx (honouring Retry-After up to 30 s; src/net/retry.ts), a call budget checked before
 * calls are made, token usage counted, untrusted text fenced, every reply read under a byte cap
 * (src/net/read-capped.ts), and every remote text that reaches an error message redacted.
 */

import { positiveInteger } from "../../config/positive-integer.ts";
import { createHttpClient } from "../../net/bounded-fetch.ts";
import { BodyTooLargeError } from "../../net/read-capped.ts";
import { redactSecrets } from "../../net/redact.ts";
import { NonRetryable, RetryLater, abortReason, retryAfterMs, retryable } from "../../net/retry.ts";

/** The largest reply read by default: 4 MiB, far above any completion of a few choices. */
export const DEFAULT_MAX_CHAT_REPLY_BYTES = 4 * 1024 * 1024;

/** How much of an error body is read for its excerpt, and how many characters of it are shown. */
const ERROR_READ_BYTES = 1024;
const ERROR_EXCERPT_CHARS = 200;

/** The fence around untrusted text (documents, premises, questions) in a prompt. */
export const FENCE = "<<<>>>";

/** Fences a text so it cannot close its own fence: a fence inside it is defused. */
export function fence(text: string): string {
  return text.replaceAll(FENCE, "< < < > > >");
}

/** `text` between two fences, under a heading. */
export function fenced(heading: string, text: string): string {
  return `${heading}\n${FENCE}\n${fence(text)}\n${FENCE}`;
}

export interface ChatClientOptions {
  /** Names the caller in error messages: "judge", "resampler". */
  readonly label: string;
  /** Base URL of an OpenAI-compatible API, e.g. https://api.openai.com/v1. */
  readonly baseUrl: string;
  /** API key (sent as a bearer token); may be empty for local servers. */
  readonly apiKey?: string | undefined;
  /** Per-attempt timeout in ms (default 30 000). */
  readonly timeoutMs?: number | undefined;
  /** Attempts per call on network errors, timeouts, 429 and 5xx (default 3). */
  readonly attempts?: number | undefined;
  /** Base backoff in ms (default 500; doubles per attempt, or Retry-After, at most DEFAULT_MAX_RETRY_AFTER_MS, 30 s). */
  readonly backoffMs?: number | undefined;
  /** Most HTTP requests (attempts included) in the client's lifetime; see checkBudget (default: no limit). */
  readonly budget?: number | undefined;
  /**
   * Largest reply read, in bytes (default DEFAULT_MAX_CHAT_REPLY_BYTES, 4 MiB). A larger one is
   * refused (BodyTooLargeError, not retried) as soon as its Content-Length or its bytes pass the cap.
   * Not a positive whole number: ConfigError.
   */
  readonly maxReplyBytes?: number | undefined;
  /** The fetch used (default: the global one); injected in tests. */
  readonly fetch?: typeof fetch | undefined;
  /** How the client waits between attempts (default: a timer the call's signal cuts short); injected in tests. */
  readonly sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
}

/** One of a token's most likely alternatives, in OpenAI's `logprobs` shape. */
export interface ChatTopLogprob {
  readonly token: string;
  readonly logprob: number;
}

/** One generated token with its log probability and its most likely alternatives (OpenAI's `logprobs.content[]`; vLLM and Ollama ≥ 0.12.11 send it). */
export interface ChatTokenLogprob extends ChatTopLogprob {
  readonly top_logprobs: readonly ChatTopLogprob[];
}

/**
 * One choice of a chat completion, as the server sent it. The fields are unchecked: they carry the
 * OpenAI shapes a conforming server sends, and a reader checks each value before it uses it
 * (src/nli/judge/logprobs.ts reads `logprobs`).
 */
export interface ChatChoice {
  readonly index?: unknown;
  readonly message?: { readonly content?: unknown; readonly refusal?: unknown };
  readonly finish_reason?: unknown;
  /** Per-token log probabilities, when the request asked for them (`logprobs: true`, `top_logprobs`) and the server sent them. */
  readonly logprobs?: { readonly content?: readonly ChatTokenLogprob[] | null } | null;
}

/** A completion's choices (empty when the body had none) and the tokens it reported. */
export interface ChatCompletion {
  readonly choices: readonly ChatChoice[];
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** The body's `system_fingerprint` when it is a string: Ollama's /v1 always says "fp_ollama". */
  readonly systemFingerprint?: string;
}

export interface ChatUsage {
  /** HTTP requests made, retries included. */
  readonly calls: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
}

/** The endpoint answered a client error (4xx other than 429): not retried. */
export class ChatHttpError extends NonRetryable {
  override readonly name = "ChatHttpError";
  override readonly code = "chat_http";
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export interface ChatClient {
  /** The `/chat/completions` URL called. */
  readonly url: string;
  /**
   * One completion of `body` (model, messages, …): retried on network errors, per-attempt timeouts,
   * 429 and 5xx, after Retry-After or exponential backoff; a 4xx is a ChatHttpError at once, a reply
   * over maxReplyBytes a BodyTooLargeError at once (error texts redacted). When
   * `signal` fires, the call in flight (or the wait before a retry) stops at once and is not retried:
   * it rejects with the signal's reason.
   */
  complete(body: Readonly<Record<string, unknown>>, signal?: AbortSignal): Promise<ChatCompletion>;
  /** Throws unless `needed` more calls fit in the budget: check it before making the calls. */
  checkBudget(needed: number): void;
  usage(): ChatUsage;
}

const tokens = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : 0);

export function createChatClient(options: ChatClientOptions): ChatClient {
  const label = options.label;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const budget = options.budget ?? Infinity;
  const maxReplyBytes = positiveInteger("maxReplyBytes", options.maxReplyBytes, DEFAULT_MAX_CHAT_REPLY_BYTES);
  // The per-attempt timeout bounds the whole attempt: the headers, the body, and any silence in it.
  const http = createHttpClient({ fetch: options.fetch, headersMs: timeoutMs, idleMs: timeoutMs, totalMs: timeoutMs, maxBytes: maxReplyBytes, retry: { attempts: options.attempts ?? 3, backoffMs: options.backoffMs, sleep: options.sleep } });
  /** Remote text for an error message or log line, with the API key and anything shaped like a credential removed. */
  const redact = (text: string): string => redactSecrets(text, [options.apiKey]);
  const url = `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  let calls = 0;
  let promptTokens = 0;
  let completionTokens = 0;

  const callOnce = async (body: Readonly<Record<string, unknown>>, signal: AbortSignal | undefined): Promise<ChatCompletion> => {
    calls++;
    let res;
    try {
      res = await http.request(
        url,
        {
          method: "POST",
          headers: { "content-type": "application/json", ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) },
          body: JSON.stringify(body),
        },
        signal,
      );
    } catch (error) {
      // Aborted by the caller: not a failure to retry.
      if (signal?.aborted) throw abortReason(signal);
      throw new Error(`${label} call failed: ${redact((error as Error).message)}`);
    }
    if (retryable(res.status)) {
      // The body is not needed: release the connection.
      res.discard();
      throw new RetryLater(`${label} endpoint answered HTTP ${res.status}`, retryAfterMs(res.headers.get("retry-after")));
    }
    if (!res.ok) {
      const text = await res.text({ maxBytes: ERROR_READ_BYTES, truncate: true }).catch(() => "");
      throw new ChatHttpError(`${label} endpoint answered HTTP ${res.status}: ${redact(text).slice(0, ERROR_EXCERPT_CHARS)}`, res.status);
    }
    let text: string;
    try {
      text = await res.text({ tooLargeMessage: `${label} endpoint's reply is larger than ${maxReplyBytes} bytes (maxReplyBytes); the request was aborted` });
    } catch (error) {
      if (signal?.aborted) throw abortReason(signal);
      if (error instanceof BodyTooLargeError) throw error;
      throw new Error(`${label} call failed while reading the reply: ${redact((error as Error).message)}`);
    }
    let parsed: { choices?: unknown; usage?: { prompt_tokens?: unknown; completion_tokens?: unknown }; system_fingerprint?: unknown } | null;
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      throw new NonRetryable(`${label} endpoint returned a body that is not JSON`);
    }
    const reply = {
      choices: Array.isArray(parsed?.choices) ? (parsed.choices.filter((c) => c !== null && typeof c === "object") as ChatChoice[]) : [],
      promptTokens: tokens(parsed?.usage?.prompt_tokens),
      completionTokens: tokens(parsed?.usage?.completion_tokens),
      ...(typeof parsed?.system_fingerprint === "string" ? { systemFingerprint: parsed.system_fingerprint } : {}),
    };
    promptTokens += reply.promptTokens;
    completionTokens += reply.completionTokens;
    return reply;
  };

  return {
    url,
    complete: (body, signal) => http.retry(() => callOnce(body, signal), signal),
    checkBudget(needed) {
      if (calls + needed > budget) throw new Error(`${label} call budget exhausted: ${calls} calls made, ${needed} more needed, budget ${budget}`);
    },
    usage: () => ({ calls, promptTokens, completionTokens }),
  };
}
