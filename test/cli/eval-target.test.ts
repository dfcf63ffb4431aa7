import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it, onTestFinished } from "vitest";
import { askTarget } from "../../src/cli/eval/target.ts";

/** A RAG endpoint that refuses every request and echoes its headers back in the error body. */
async function echoingEndpoint(): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: "unauthorized", received: req.headers })));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/ask`;
}

describe("eval --target: what an endpoint's error body may show", () => {
  it("keeps the request's credentials out of the excerpt when the endpoint echoes them", async () => {
    const url = await echoingEndpoint();
    const options = { url, requestTemplate: '{"q":"{{question}}"}', answerPath: "answer", timeoutMs: 5000, attempts: 1, headers: { authorization: "Bearer target-token-0123456789", "x-custom-key": "custom-secret-0123456789" } };
    const error = (await askTarget(options, "q").catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(new RegExp(`^target ${url}: HTTP 401: .*unauthorized`));
    expect(error.message).not.toContain("target-token-0123456789");
    expect(error.message).not.toContain("custom-secret-0123456789");
  });
});

/** A RAG endpoint answering with `reply(request number)`: a status, a body, headers. */
async function scriptedEndpoint(reply: (n: number) => { status?: number; body?: string; headers?: Record<string, string> }): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const out = reply(++requests);
      res.writeHead(out.status ?? 200, { "content-type": "application/json", ...out.headers }).end(out.body ?? "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/ask`, requests: () => requests };
}

const ASK = { requestTemplate: '{"q":"{{question}}"}', answerPath: "answer", timeoutMs: 5000, attempts: 3 };

describe("eval --target: retries (src/net/retry.ts)", () => {
  it("retries 429 and 5xx, after the reply's Retry-After, then answers", async () => {
    const target = await scriptedEndpoint((n) => (n === 1 ? { status: 503 } : n === 2 ? { status: 429, headers: { "retry-after": "0.01" } } : { body: JSON.stringify({ answer: "Nine." }) }));
    await expect(askTarget({ ...ASK, url: target.url }, "q")).resolves.toEqual({ answer: "Nine." });
    expect(target.requests()).toBe(3);
  });

  it("does not retry what another attempt cannot fix: a 4xx, a reply over its cap, a reply without the answer", async () => {
    for (const reply of [{ status: 404, body: "{}" }, { body: JSON.stringify({ answer: "x".repeat(2000) }) }, { body: JSON.stringify({ text: "Nine." }) }]) {
      const target = await scriptedEndpoint(() => reply);
      await expect(askTarget({ ...ASK, url: target.url, maxReplyBytes: 1000 }, "q")).rejects.toThrow(new RegExp(`^target ${target.url}: `));
      expect(target.requests(), JSON.stringify(reply).slice(0, 40)).toBe(1);
    }
  });
});
