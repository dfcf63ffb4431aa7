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
