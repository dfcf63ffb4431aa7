/**
 * A local OpenAI-compatible server that streams: POST /v1/chat/completions and /v1/responses with
 * `stream: true` answer in server-sent events as OpenAI does (chat-completion chunks ending in
 * `data: [DONE]`; Responses events from `response.created` to `response.completed`), without it in
 * one JSON body. The answer is picked deterministically from the last user message (`answers`: the
 * first key the message contains; the same question gets the same bytes, ids included), cut into pieces of `chunkChars` code points, one piece per event,
 * `delayMs` apart. It records every request, and every streamed response the client closed before
 * its end (an aborted openai request), so a test can see that a cancelled stream stopped upstream.
 */
import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeStreamOptions {
  /** Answers by question: the first key the last user message contains gives the answer. */
  readonly answers: Readonly<Record<string, string>>;
  /** The answer when no key matches. Default "I don't know." */
  readonly fallback?: string;
  /** Code points per streamed delta. Default 6. */
  readonly chunkChars?: number;
  /** Pause between two events, ms. Default 0 (each event on its own turn of the event loop). */
  readonly delayMs?: number;
}

export interface FakeStreamRequest {
  readonly path: string;
  readonly body: Record<string, unknown>;
}

export interface FakeStreamServer {
  /** Base URL, with /v1 (an openai client's baseURL). */
  readonly url: string;
  /** Every request, in arrival order. */
  readonly requests: FakeStreamRequest[];
  /** Streamed responses written to their end. */
  readonly completed: () => number;
  /** Streamed responses the client closed before their end (their timers stopped at once). */
  readonly disconnected: () => number;
  /** Streamed responses still being written. */
  readonly open: () => number;
  /** Changes the pause between events for the requests that come next. */
  setDelay(ms: number): void;
  close(): Promise<void>;
}

const MODEL = "gpt-4o-mini";
const CREATED = 1_700_000_000;

/** The text of a message's content: a string, or parts with text. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p: unknown) => (typeof p === "string" ? p : String((p as { text?: unknown })?.text ?? ""))).join("");
  return "";
}

/** The last user message of a chat's `messages` or a Responses `input`. */
function lastUserText(messages: unknown): string {
  if (typeof messages === "string") return messages;
  if (!Array.isArray(messages)) return "";
  const users = messages.filter((m: { role?: unknown }) => m?.role === "user");
  return users.length ? textOf((users.at(-1) as { content?: unknown }).content) : "";
}

/** The answer's pieces: `size` code points each (a surrogate pair is never cut). */
export function pieces(answer: string, size: number): string[] {
  const points = Array.from(answer);
  const out: string[] = [];
  for (let i = 0; i < points.length; i += size) out.push(points.slice(i, i + size).join(""));
  return out;
}

/** One `data:` frame. */
const data = (value: unknown): string => `data: ${typeof value === "string" ? value : JSON.stringify(value)}\n\n`;

/** The chat-completion chunk events of an answer, as OpenAI sends them. */
export function chatFrames(id: string, parts: readonly string[]): string[] {
  const chunk = (delta: Record<string, unknown>, finish: string | null): string =>
    data({ id, object: "chat.completion.chunk", created: CREATED, model: MODEL, system_fingerprint: "fp_fake", choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  return [chunk({ role: "assistant", content: "", refusal: null }, null), ...parts.map((p) => chunk({ content: p }, null)), chunk({}, "stop"), data("[DONE]")];
}

/** The Responses events of an answer, as OpenAI sends them (each `event:` and `data:` with its type). */
export function responseFrames(id: string, parts: readonly string[]): string[] {
  const answer = parts.join("");
  const msg = `msg_${id}`;
  let seq = 0;
  const event = (type: string, body: Record<string, unknown>): string => `event: ${type}\n${data({ type, sequence_number: seq++, ...body })}`;
  const response = (status: string, output: unknown[]): Record<string, unknown> => ({
    id: `resp_${id}`, object: "response", created_at: CREATED, status, model: MODEL, output, error: null, incomplete_details: null,
    instructions: null, metadata: {}, parallel_tool_calls: true, temperature: 1, top_p: 1, tool_choice: "auto", tools: [],
  });
  const part = (text: string): Record<string, unknown> => ({ type: "output_text", text, annotations: [] });
  const item = (status: string, content: unknown[]): Record<string, unknown> => ({ id: msg, type: "message", status, role: "assistant", content });
  const at = { item_id: msg, output_index: 0, content_index: 0 };
  return [
    event("response.created", { response: response("in_progress", []) }),
    event("response.in_progress", { response: response("in_progress", []) }),
    event("response.output_item.added", { output_index: 0, item: item("in_progress", []) }),
    event("response.content_part.added", { ...at, part: part("") }),
    ...parts.map((p) => event("response.output_text.delta", { ...at, delta: p })),
    event("response.output_text.done", { ...at, text: answer }),
    event("response.content_part.done", { ...at, part: part(answer) }),
    event("response.output_item.done", { output_index: 0, item: item("completed", [part(answer)]) }),
    event("response.completed", { response: { ...response("completed", [item("completed", [part(answer)])]), usage: { input_tokens: 10, output_tokens: 10, total_tokens: 20 } } }),
  ];
}

/** Starts the server on 127.0.0.1, a free port. */
export async function startFakeOpenAIStream(options: FakeStreamOptions): Promise<FakeStreamServer> {
  const requests: FakeStreamRequest[] = [];
  const counts = { completed: 0, disconnected: 0, open: 0, seq: 0 };
  let delayMs = options.delayMs ?? 0;
  const keys = Object.keys(options.answers);
  /** The answer to a message, and its key's index (-1 for the fallback): ids derive from it, so the same question streams the same bytes. */
  const answerFor = (text: string): { answer: string; index: number } => {
    const index = keys.findIndex((q) => text.includes(q));
    return { answer: index < 0 ? (options.fallback ?? "I don't know.") : (options.answers[keys[index] as string] as string), index };
  };

  /** Writes `frames` one per `delay` ms; stops when the client closes the response first. */
  const stream = (res: ServerResponse, frames: readonly string[], delay: number): void => {
    counts.open += 1;
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive", "x-request-id": `req_fake${counts.seq}` });
    let i = 0;
    let timer: NodeJS.Timeout | undefined;
    res.on("close", () => {
      if (timer) clearTimeout(timer);
      counts.open -= 1;
      if (res.writableEnded) counts.completed += 1;
      else counts.disconnected += 1;
    });
    const next = (): void => {
      timer = undefined;
      if (res.destroyed) return;
      if (i === frames.length) return void res.end();
      res.write(frames[i++]);
      timer = setTimeout(next, delay);
    };
    next();
  };

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string): void => {
    const path = (req.url ?? "").split("?")[0] ?? "";
    let body: Record<string, unknown> = {};
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      // an unreadable body asks nothing: the fallback answer
    }
    const chatRoute = path === "/v1/chat/completions";
    if (req.method !== "POST" || (!chatRoute && path !== "/v1/responses")) {
      res.writeHead(404, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}`, type: "invalid_request_error" } }));
    }
    requests.push({ path, body });
    counts.seq += 1;
    const { answer, index } = answerFor(lastUserText(chatRoute ? body.messages : body.input));
    const parts = pieces(answer, options.chunkChars ?? 6);
    const id = `fake${index + 1}`;
    if (body.stream === true) return stream(res, chatRoute ? chatFrames(`chatcmpl-${id}`, parts) : responseFrames(id, parts), delayMs);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify(
        chatRoute
          ? { id: `chatcmpl-${id}`, object: "chat.completion", created: CREATED, model: MODEL, choices: [{ index: 0, message: { role: "assistant", content: answer, refusal: null }, logprobs: null, finish_reason: "stop" }] }
          : { id: `resp_${id}`, object: "response", created_at: CREATED, status: "completed", model: MODEL, output: [{ type: "message", id: `msg_${id}`, status: "completed", role: "assistant", content: [{ type: "output_text", text: answer, annotations: [] }] }] },
      ),
    );
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handle(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    completed: () => counts.completed,
    disconnected: () => counts.disconnected,
    open: () => counts.open,
    setDelay: (ms) => {
      delayMs = ms;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
