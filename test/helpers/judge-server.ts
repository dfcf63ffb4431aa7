import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { onTestFinished } from "vitest";

export interface JudgeRequest {
  readonly model: string;
  readonly temperature: number;
  readonly messages: Array<{ role: string; content: string }>;
  readonly authorization: string | undefined;
}

/** What the server does with one request: a status, a JSON body (or raw text), a delay. */
export interface JudgeReply {
  readonly status?: number;
  readonly body?: unknown;
  readonly raw?: string;
  readonly delayMs?: number;
  readonly headers?: Record<string, string>;
}

/** A chat-completions body with one choice. */
export function chat(content: string, extra: { finish_reason?: string; refusal?: string } = {}): unknown {
  return {
    choices: [{ message: { role: "assistant", content, ...(extra.refusal ? { refusal: extra.refusal } : {}) }, finish_reason: extra.finish_reason ?? "stop" }],
    usage: { prompt_tokens: 100, completion_tokens: 2 },
  };
}

/** A local OpenAI-compatible endpoint that replays scripted replies; closed when the test ends. */
export async function startJudgeServer(reply: (req: JudgeRequest, n: number) => JudgeReply): Promise<{ url: string; requests: JudgeRequest[]; maxInFlight: () => number }> {
  const requests: JudgeRequest[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Omit<JudgeRequest, "authorization">;
      const r: JudgeRequest = { ...body, authorization: req.headers.authorization };
      requests.push(r);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const out = reply(r, requests.length);
      setTimeout(() => {
        inFlight--;
        if (res.destroyed) return;
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
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests, maxInFlight: () => maxInFlight };
}
