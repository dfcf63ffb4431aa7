import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it, onTestFinished } from "vitest";
import { askTarget } from "../../src/cli/eval-target.ts";

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
