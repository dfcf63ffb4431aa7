/** POST /v1/guard: Monitor.guard over HTTP for services in other languages — decisions, auth, validation, and saturation. */
import { describe, expect, it } from "vitest";
import { resolveCollectorOptions } from "../../src/collector/options.ts";
import { isConfigError } from "../../src/config/errors.ts";
import { DEFAULT_GUARD_REPLACEMENT } from "../../src/sdk/guard-options.ts";
import { COLLECTOR_TEST_ENV, postJson, startTestCollector } from "../helpers/collector.ts";
import { chat, startJudgeServer } from "../helpers/judge-server.ts";
import { metric } from "../helpers/serve.ts";
import { waitForCondition } from "../helpers/wait.ts";

/** The offline backend finds the first answer supported and the second contradicted (90 days for 30) by this context. */
const CONTEXT = ["Returns are accepted within 30 days of delivery for a full refund. Shipping is free on orders over $50."];
const GROUNDED = "Returns are accepted within 30 days of delivery.";
const INVENTED = "Returns are accepted within 90 days of delivery.";
/** Generous: a loaded machine still scores within it. */
const OPTIONS = { budgetMs: 20_000 };
const TOKEN = "s3cret-of-16-chars!";

describe("POST /v1/guard", () => {
  it("passes a grounded answer with its text unchanged and blocks an invented number, naming the claim's offsets", async () => {
    const c = await startTestCollector();
    const pass = await postJson(`${c.url}/v1/guard`, { route: "/api/returns", context: CONTEXT, answer: GROUNDED, options: OPTIONS });
    expect(pass.status).toBe(200);
    const passed = (await pass.json()) as Record<string, unknown>;
    expect(passed).toMatchObject({ decision: "pass", text: GROUNDED, route: "/api/returns" });
    expect(passed).not.toHaveProperty("evaluation");
    const block = (await (await postJson(`${c.url}/v1/guard`, { route: "/api/returns", context: CONTEXT, answer: INVENTED, options: OPTIONS })).json()) as Record<string, unknown>;
    expect(block).toMatchObject({ decision: "block", text: DEFAULT_GUARD_REPLACEMENT, claims: [{ verdict: "contradicted", start: 0, end: INVENTED.length }] });
    expect(JSON.stringify(block)).not.toContain("Shipping is free");
    expect(c.monitor.stats().guard).toMatchObject({ pass: 1, block: 1 });
  });

  it("corrects with the request's options: action correct, correction mark", async () => {
    const c = await startTestCollector();
    const answer = `${GROUNDED} Shipping is free on orders over $20.`;
    const res = await postJson(`${c.url}/v1/guard`, { context: CONTEXT, answer, options: { ...OPTIONS, action: "correct", correction: "mark" } });
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ decision: "correct", correction: "mark", text: `${GROUNDED} [unverified: Shipping is free on orders over $20.]`, route: "unknown" });
  });

  it("requires the bearer token when one is set", async () => {
    const c = await startTestCollector({ token: TOKEN });
    const body = { context: CONTEXT, answer: GROUNDED, options: OPTIONS };
    expect((await postJson(`${c.url}/v1/guard`, body)).status).toBe(401);
    const ok = await postJson(`${c.url}/v1/guard`, body, { "content-type": "application/json", authorization: `Bearer ${TOKEN}` });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ decision: "pass" });
  });

  it("answers a malformed body 400 naming the field: a missing answer, a bad option, an unknown option, not JSON", async () => {
    const c = await startTestCollector();
    const fields = async (body: string | object): Promise<unknown> => {
      const res = await postJson(`${c.url}/v1/guard`, body);
      expect(res.status).toBe(400);
      return res.json();
    };
    expect(await fields({ context: CONTEXT })).toMatchObject({ error: "invalid guard request", fields: [expect.stringContaining('missing "answer"')] });
    expect(await fields({ context: CONTEXT, answer: GROUNDED, options: { budgetMs: 0 } })).toMatchObject({ fields: [expect.stringMatching(/^options\.budgetMs: /)] });
    expect(await fields({ context: CONTEXT, answer: GROUNDED, options: { budget: 5 } })).toMatchObject({ fields: ['options: unknown field "budget"'] });
    expect(await fields([{ context: CONTEXT, answer: GROUNDED }])).toMatchObject({ fields: [expect.stringContaining("expected one object")] });
    expect(await fields("{not json")).toMatchObject({ error: expect.stringContaining("not valid JSON") });
    expect((await postJson(`${c.url}/v1/guard`, "x", { "content-type": "text/plain" })).status).toBe(415);
  });

  it("answers at once with a bypass, reason saturated, while guardConcurrency checks are in flight", async () => {
    let asked = 0;
    const judge = await startJudgeServer((req) => {
      asked++;
      // Every question about Zanzibar hangs far past any test's wait.
      return req.messages.some((m) => m.content.includes("Zanzibar")) ? { body: chat("ENTAILMENT"), delayMs: 60_000 } : { body: chat("ENTAILMENT") };
    });
    const c = await startTestCollector({
      env: { ...COLLECTOR_TEST_ENV, GROUNDWATCH_JUDGE_API_KEY: "k" },
      guardConcurrency: 1,
      monitor: { scoring: { backend: "judge", judgeUrl: judge.url, judgeModel: "m" } },
    });
    const client = new AbortController();
    const hanging = fetch(`${c.url}/v1/guard`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ context: ["Zanzibar is an island off the coast of Tanzania."], answer: "Zanzibar is an island.", options: { budgetMs: 60_000 } }),
      signal: client.signal,
    }).catch((error: unknown) => error);
    await waitForCondition("the judge asked about Zanzibar", () => asked > 0);
    const saturatedBlock = await postJson(`${c.url}/v1/guard`, { route: "/r", context: CONTEXT, answer: GROUNDED, options: OPTIONS });
    expect(await saturatedBlock.json()).toMatchObject({ decision: "bypass", reason: "saturated", outcome: "block", text: DEFAULT_GUARD_REPLACEMENT, route: "/r" });
    const saturatedPass = await postJson(`${c.url}/v1/guard`, { context: CONTEXT, answer: GROUNDED, options: { onFail: "pass" } });
    expect(await saturatedPass.json()).toMatchObject({ decision: "bypass", reason: "saturated", outcome: "pass", text: GROUNDED });
    // Counted as the monitor's own decisions are (stats, and through them the guard metrics and event).
    expect(c.monitor.stats().guard.bypass.saturated).toBe(2);
    const metricsText = await (await fetch(`${c.url}/metrics`)).text();
    expect(metric(metricsText, "groundwatch_guard_decisions_total", 'groundwatch_reason="saturated"')).toBe(2);
    client.abort();
    expect(await hanging).toMatchObject({ name: "AbortError" });
  });
});

describe("guardConcurrency", () => {
  it("defaults to 16 and is a ConfigError naming the field when out of range", () => {
    expect(resolveCollectorOptions({ env: {} }).guardConcurrency).toBe(16);
    expect(resolveCollectorOptions({ env: {}, guardConcurrency: 3 }).guardConcurrency).toBe(3);
    let error: unknown;
    try {
      resolveCollectorOptions({ env: {}, guardConcurrency: 0 });
    } catch (e) {
      error = e;
    }
    expect(isConfigError(error) && error.field).toBe("guardConcurrency");
  });
});
