import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { onTestFinished } from "vitest";

/** One /chat/completions request as the server received it. */
export interface ChatRequest {
  readonly model: string;
  readonly temperature: number;
  readonly n?: number;
  readonly max_tokens?: number;
  readonly messages: Array<{ role: string; content: string }>;
  /** Per-token log probabilities asked for (the judge's logprob recipes). */
  readonly logprobs?: boolean;
  readonly top_logprobs?: number;
  /** Arguments for the chat template and RAG documents, as vLLM takes them (Ollama ignores both). */
  readonly chat_template_kwargs?: Record<string, unknown>;
  readonly documents?: Array<Record<string, string>>;
  readonly authorization: string | undefined;
  readonly path: string;
}

/** What the server does with one request: a status, a JSON body (or raw text), a delay, headers. */
export interface ChatReply {
  readonly status?: number;
  readonly body?: unknown;
  readonly raw?: string;
  readonly delayMs?: number;
  readonly headers?: Record<string, string>;
}

/** A chat-completions body with one choice per text, and the usage the server reports. */
export function completion(texts: readonly string[], usage: { prompt_tokens: number; completion_tokens: number } = { prompt_tokens: 120, completion_tokens: 10 * texts.length }): unknown {
  return {
    id: "chatcmpl-test",
    object: "chat.completion",
    choices: texts.map((content, index) => ({ index, message: { role: "assistant", content }, finish_reason: "stop" })),
    usage,
  };
}

/** Answers that differ in meaning: what a model guessing would say. */
export const GUESSES = ["It opened in 1998.", "It opened in 2004.", "It opened in 1987.", "It opened in 2011.", "It opened in 1975.", "It opened in 1969.", "It opened in 2020."] as const;

/**
 * The deterministic answers of request `seed` (1 for the first request…): `count` answers, each a
 * function of the seed and its index only, so a test can say which answers a run must return.
 */
export function drawn(seed: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => GUESSES[(seed * 3 + i) % GUESSES.length] as string);
}

/**
 * A server that samples "honestly": `n` choices when asked for n (unless `ignoreN`, when it always
 * answers one), each drawn deterministically from the request's number; usage 120 prompt tokens and
 * 10 completion tokens a choice.
 */
export function sampling(options: { ignoreN?: boolean; rejectN?: boolean } = {}): (req: ChatRequest, seed: number) => ChatReply {
  return (req, seed) => {
    if (options.rejectN && req.n !== undefined) return { status: 400, body: { error: { message: "'n' is not supported with this model", type: "invalid_request_error", param: "n" } } };
    const count = options.ignoreN ? 1 : (req.n ?? 1);
    return { body: completion(drawn(seed, count)) };
  };
}

export interface ChatServer {
  /** The base URL, ending in /v1. */
  readonly url: string;
  readonly requests: ChatRequest[];
  /** The most requests in flight at once. */
  maxInFlight(): number;
  /** Requests whose client went away before the answer (aborted or timed out). */
  aborted(): number;
}

/** A local OpenAI-compatible endpoint that answers with `reply(request, its number)`; closed when the test ends. */
export async function startChatServer(reply: (req: ChatRequest, seed: number) => ChatReply): Promise<ChatServer> {
  const requests: ChatRequest[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let aborted = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Omit<ChatRequest, "authorization" | "path">;
      const r: ChatRequest = { ...body, authorization: req.headers.authorization, path: req.url ?? "" };
      requests.push(r);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const out = reply(r, requests.length);
      let answered = false;
      res.on("close", () => {
        if (!answered) aborted++;
      });
      setTimeout(() => {
        inFlight--;
        if (res.destroyed) return;
        answered = true;
        res.writeHead(out.status ?? 200, { "content-type": "application/json", ...out.headers });
        res.end(out.raw ?? JSON.stringify(out.body ?? {}));
      }, out.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests, maxInFlight: () => maxInFlight, aborted: () => aborted };
}
