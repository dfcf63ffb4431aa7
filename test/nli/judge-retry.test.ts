import { describe, expect, it } from "vitest";
import { createJudgeBackend } from "../../src/nli/judge/backend.ts";
import { chat, startJudgeServer } from "../helpers/judge-server.ts";
import { recordedSleep } from "../helpers/wait.ts";

const PAIR = { premise: "The museum opens at nine.", hypothesis: "The museum opens at nine." };


describe("judge backend: waits that cannot park a run", () => {
  it("waits at most 30 s when the endpoint answers Retry-After: 3600, not an hour", async () => {
    const server = await startJudgeServer((_r, n) => (n === 1 ? { status: 429, headers: { "retry-after": "3600" } } : { body: chat("NEUTRAL") }));
    const { waits, sleep } = recordedSleep();
    const judge = createJudgeBackend({ baseUrl: server.url, model: "m", sleep });
    expect(await judge.classify([PAIR])).toEqual([{ entailment: 0, neutral: 1, contradiction: 0 }]);
    expect(waits).toEqual([30_000]);
  });

  it("stops a call in flight when the backend is closed", async () => {
    const server = await startJudgeServer(() => ({ body: chat("NEUTRAL"), delayMs: 60_000 }));
    const judge = createJudgeBackend({ baseUrl: server.url, model: "m" });
    const batch = judge.classify([PAIR]);
    await expect.poll(() => server.requests.length).toBe(1);
    await judge.close();
    await expect(batch).rejects.toThrow("the judge backend was closed");
    await expect.poll(() => server.aborted()).toBe(1);
    expect(judge.usage().calls).toBe(1);
  });

  it("stops a wait before a retry when the backend is closed", async () => {
    const server = await startJudgeServer(() => ({ status: 503, headers: { "retry-after": "3600" } }));
    const judge = createJudgeBackend({ baseUrl: server.url, model: "m" });
    const batch = judge.classify([PAIR]);
    await expect.poll(() => server.requests.length).toBe(1);
    await judge.close();
    await expect(batch).rejects.toThrow("the judge backend was closed");
    expect(server.requests).toHaveLength(1);
  });

  it("stops the other calls of a batch once one pair has failed it", async () => {
    // The second request to arrive fails the batch, so the first is in flight at the server by then.
    const server = await startJudgeServer((_r, n) => (n === 2 ? { status: 400, body: { error: "bad request" } } : { body: chat("NEUTRAL"), delayMs: 60_000 }));
    const judge = createJudgeBackend({ baseUrl: server.url, model: "m", concurrency: 2 });
    const batch = judge.classify([PAIR, PAIR, PAIR]);
    await expect(batch).rejects.toMatchObject({ name: "ChatHttpError", status: 400 });
    await expect.poll(() => server.aborted()).toBe(1);
    expect(server.requests).toHaveLength(2);
  });
});
