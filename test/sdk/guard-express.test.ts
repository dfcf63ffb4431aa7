/** guardJson: a real express app whose JSON answers are checked before they are sent. */
import type { AddressInfo } from "node:net";
import express from "express";
import type { Request } from "express";
import { describe, expect, it, onTestFinished } from "vitest";
import { isConfigError } from "../../src/config/errors.ts";
import type { GuardJsonInput, GuardMiddlewareOptions } from "../../src/sdk/guard-express.ts";
import { guardJson } from "../../src/sdk/guard-express.ts";
import { DEFAULT_GUARD_REPLACEMENT } from "../../src/sdk/guard-options.ts";
import type { GuardDecision } from "../../src/sdk/guard-types.ts";
import type { Monitor } from "../../src/sdk/types.ts";
import { chat, startJudgeServer } from "../helpers/judge-server.ts";
import { MONITOR_TEST_ENV, testMonitor } from "../helpers/monitor.ts";
import { testOtel } from "../helpers/otel.ts";

/** The offline backend finds GROUNDED supported and INVENTED contradicted (90 days for 30) by this context. */
const CONTEXT = ["Returns are accepted within 30 days of delivery for a full refund. Shipping is free on orders over $50."];
const GROUNDED = "Returns are accepted within 30 days of delivery.";
const INVENTED = "Returns are accepted within 90 days of delivery.";
/** A supported sentence, then a contradicted one ($20 for $50). */
const MIXED = `${GROUNDED} Shipping is free on orders over $20.`;
/** Generous: a loaded machine still scores within it. */
const BUDGET_MS = 20_000;

interface AnswerBody {
  readonly answer: string;
  readonly sources: readonly string[];
  readonly price: number;
}

const ANSWERS: Readonly<Record<string, string>> = { grounded: GROUNDED, invented: INVENTED, mixed: MIXED };
/** The app's handler answers `?a=` (grounded, invented, mixed) with extra fields whose serialization must survive untouched. */
const answerFor = (req: Request): AnswerBody => ({ answer: ANSWERS[String(req.query.a)] ?? GROUNDED, sources: ["returns.md"], price: 1.5 });
const extractAnswer = (_req: Request, body: AnswerBody): GuardJsonInput => ({ context: CONTEXT, answer: body.answer, question: "How long do I have?" });

/** An express app with guardJson on /api/returns/:id, listening on a free port, closed when the test ends. */
async function app(monitor: Monitor, options: Partial<GuardMiddlewareOptions<Request, AnswerBody>> = {}): Promise<string> {
  const a = express();
  a.get("/api/returns/:id", guardJson<Request, AnswerBody>(monitor, { extract: extractAnswer, budgetMs: BUDGET_MS, ...options }), (req, res) => {
    res.json(answerFor(req));
  });
  const server = a.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("guardJson", () => {
  it("sends a grounded answer's body byte for byte, checked under the route template", async () => {
    const monitor = testMonitor(testOtel());
    const decisions: GuardDecision[] = [];
    const url = await app(monitor, { onDecision: (d) => decisions.push(d) });
    const res = await fetch(`${url}/api/returns/7?a=grounded`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(JSON.stringify({ answer: GROUNDED, sources: ["returns.md"], price: 1.5 }));
    expect(decisions.map((d) => [d.decision, d.route])).toEqual([["pass", "/api/returns/:id"]]);
    expect(monitor.stats().guard.routes["/api/returns/:id"]).toMatchObject({ pass: 1 });
  });

  it("blocks an invented number: the body's answer becomes the replacement, its other fields kept", async () => {
    const monitor = testMonitor(testOtel());
    const url = await app(monitor);
    const res = await fetch(`${url}/api/returns/7?a=invented`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ answer: DEFAULT_GUARD_REPLACEMENT, sources: ["returns.md"], price: 1.5 });
  });

  it("lets the host's replace build the body of a correction", async () => {
    const monitor = testMonitor(testOtel());
    const url = await app(monitor, {
      action: "correct",
      correction: "mark",
      replace: (body, decision) => ({ ...body, answer: decision.text, checked: decision.decision }),
    });
    const res = await fetch(`${url}/api/returns/7?a=mixed`);
    expect(await res.json()).toEqual({ answer: `${GROUNDED} [unverified: Shipping is free on orders over $20.]`, sources: ["returns.md"], price: 1.5, checked: "correct" });
  });

  it("sends the body untouched, unchecked, when the extractor skips the request or throws, and reports the throw", async () => {
    const monitor = testMonitor(testOtel());
    const errors: unknown[] = [];
    const skip = await app(monitor, { extract: () => undefined });
    expect(await (await fetch(`${skip}/api/returns/1?a=invented`)).json()).toMatchObject({ answer: INVENTED });
    const throws = await app(monitor, {
      extract: () => {
        throw new Error("no answer here");
      },
      onError: (e) => errors.push(e),
    });
    const res = await fetch(`${throws}/api/returns/1?a=invented`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ answer: INVENTED });
    expect(errors).toEqual([expect.objectContaining({ message: "no answer here" })]);
    expect(monitor.stats().guard).toMatchObject({ pass: 0, block: 0 });
  });

  it("falls back to the default body when the host's replace throws, still failing closed", async () => {
    const monitor = testMonitor(testOtel());
    const errors: unknown[] = [];
    const url = await app(monitor, {
      replace: () => {
        throw new Error("replace failed");
      },
      onError: (e) => errors.push(e),
    });
    expect(await (await fetch(`${url}/api/returns/1?a=invented`)).json()).toMatchObject({ answer: DEFAULT_GUARD_REPLACEMENT });
    expect(errors).toEqual([expect.objectContaining({ message: "replace failed" })]);
  });

  it("fails closed when the scorer hangs: the body carries the replacement once the budget is spent", async () => {
    // Every judge question hangs far past any wait here.
    const judge = await startJudgeServer(() => ({ body: chat("ENTAILMENT"), delayMs: 60_000 }));
    const monitor = testMonitor(testOtel(), { env: { ...MONITOR_TEST_ENV, GROUNDWATCH_JUDGE_API_KEY: "k" }, scoring: { backend: "judge", judgeUrl: judge.url, judgeModel: "m" } });
    await monitor.ready();
    const decisions: GuardDecision[] = [];
    const url = await app(monitor, { budgetMs: 300, onDecision: (d) => decisions.push(d) });
    expect(await (await fetch(`${url}/api/returns/1?a=grounded`)).json()).toMatchObject({ answer: DEFAULT_GUARD_REPLACEMENT });
    expect(decisions).toEqual([expect.objectContaining({ decision: "bypass", reason: "budget_exceeded", outcome: "block" })]);
  });

  it("refuses bad guard options at setup with a ConfigError naming the field", () => {
    const monitor = testMonitor(testOtel());
    let error: unknown;
    try {
      guardJson(monitor, { extract: () => undefined, budgetMs: 0 });
    } catch (e) {
      error = e;
    }
    expect(isConfigError(error) && error.field).toBe("guard.budgetMs");
  });
});
