import { describe, expect, it } from "vitest";
import { createMonitor } from "../../src/sdk/monitor.ts";
import { cooldownMs } from "../../src/sdk/scheduler.ts";
import { traceFraction } from "../../src/sdk/sampling.ts";
import { METRICS } from "../../src/telemetry/semconv.ts";
import { testOtel } from "../helpers/otel.ts";
import { onTestFinished } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/cli.ts";
import { MONITOR_TEST_ENV, identityHolds, testMonitor } from "../helpers/monitor.ts";

const GOOD = { context: ["Returns are accepted within 30 days of delivery for a full refund."], answer: "Returns are accepted within 30 days of delivery." };
const BAD = { context: ["Returns are accepted within 30 days of delivery for a full refund."], answer: "Returns are accepted within 90 days of delivery." };
const ENV = MONITOR_TEST_ENV;
const monitorWith = testMonitor;

describe("createMonitor", () => {
  it("scores off the request path and emits the span, the GenAI evaluation event and metrics", async () => {
    const otel = testOtel();
    const monitor = monitorWith(otel, { sampling: { default: 1 } });
    const requestTracer = otel.tracerProvider.getTracer("host");
    let requestTraceId = "";
    requestTracer.startActiveSpan("POST /api/returns", (span) => {
      requestTraceId = span.spanContext().traceId;
      monitor.observe({ route: "/api/returns", ...GOOD });
      monitor.observe({ route: "/api/returns", ...BAD });
      // observe() returns at once: scoring has not happened on this thread (its cost is measured by bench:sdk).
      expect(monitor.stats().scored).toBe(0);
      span.end();
    });
    await monitor.flush();

    const evals = otel.spans.getFinishedSpans().filter((s) => s.name === "groundwatch.evaluate");
    expect(evals).toHaveLength(2);
    for (const s of evals) {
      expect(s.spanContext().traceId).toBe(requestTraceId);
      expect(s.attributes).toMatchObject({ "groundwatch.route": "/api/returns", "groundwatch.backend.name": "offline", "groundwatch.backend.tier": "triage", "evaluations.0.evaluation.name": "groundedness" });
    }
    expect(evals.map((s) => s.attributes["groundwatch.verdict"]).sort()).toEqual(["grounded", "ungrounded"]);
    const bad = evals.find((s) => s.attributes["groundwatch.verdict"] === "ungrounded");
    expect(bad?.attributes["groundwatch.claims.contradicted"]).toBe(1);
    expect(bad?.attributes).not.toHaveProperty("groundwatch.content.unsupported_claims");

    const events = otel.logs.getFinishedLogRecords().filter((l) => l.eventName === "gen_ai.evaluation.result");
    expect(events).toHaveLength(2);
    for (const e of events) {
      expect(e.attributes["gen_ai.evaluation.name"]).toBe("groundedness");
      expect(typeof e.attributes["gen_ai.evaluation.score.value"]).toBe("number");
      expect(["grounded", "ungrounded"]).toContain(e.attributes["gen_ai.evaluation.score.label"]);
      expect(String(e.attributes["gen_ai.evaluation.explanation"])).toMatch(/claims: \d+ supported/);
      expect(e.spanContext?.traceId).toBe(requestTraceId);
    }

    const metrics = await otel.metrics();
    expect(metrics.get(METRICS.seen.name)?.[0]).toMatchObject({ attributes: { "groundwatch.route": "/api/returns" }, value: 2 });
    expect(metrics.get(METRICS.evaluations.name)?.filter((p) => Number(p.value) > 0).map((p) => p.attributes["groundwatch.verdict"]).sort()).toEqual(["grounded", "ungrounded"]);
    expect(metrics.get(METRICS.claims.name)?.some((p) => p.attributes["groundwatch.claim.verdict"] === "contradicted")).toBe(true);
    expect(metrics.has(METRICS.score.name)).toBe(true);
    expect(metrics.has(METRICS.duration.name)).toBe(true);
    for (const points of metrics.values()) for (const p of points) for (const v of Object.values(p.attributes)) expect(String(v)).not.toContain("90 days");
    expect(identityHolds(monitor.stats())).toBe(true);
  });

  it("samples deterministically on the trace id: a lower rate samples a subset of a higher rate", async () => {
    const otel = testOtel();
    const low = monitorWith(otel, { sampling: { default: 0.2 } });
    const high = monitorWith(otel, { sampling: { default: 0.6 } });
    const tracer = otel.tracerProvider.getTracer("host");
    const lowSampled: boolean[] = [];
    const highSampled: boolean[] = [];
    for (let i = 0; i < 200; i++) {
      tracer.startActiveSpan("req", (span) => {
        const before = [low.stats().sampled, high.stats().sampled];
        low.observe({ route: "/r", ...GOOD });
        high.observe({ route: "/r", ...GOOD });
        lowSampled.push(low.stats().sampled > (before[0] ?? 0));
        highSampled.push(high.stats().sampled > (before[1] ?? 0));
        span.end();
      });
    }
    expect(lowSampled.every((s, i) => !s || highSampled[i])).toBe(true);
    const lowRate = lowSampled.filter(Boolean).length / 200;
    expect(lowRate).toBeGreaterThan(0.1);
    expect(lowRate).toBeLessThan(0.3);
    await Promise.all([low.flush(), high.flush()]);
  });

  it("applies per-route rates and patterns, and always/never overrides", () => {
    const otel = testOtel();
    const monitor = monitorWith(otel, { sampling: { default: 0, routes: { "/api/advice/*": 1, "/api/advice/free": 0 } }, random: () => 0.5 });
    monitor.observe({ route: "/api/advice/tax", ...GOOD });
    monitor.observe({ route: "/api/advice/free", ...GOOD });
    monitor.observe({ route: "/api/other", ...GOOD });
    monitor.observe({ route: "/api/other", ...GOOD, sample: "always" });
    monitor.observe({ route: "/api/advice/tax", ...GOOD, sample: "never" });
    expect(monitor.stats()).toMatchObject({ seen: 5, sampled: 2, notSampled: 3 });
  });

  it("drops with a counted reason when the queue is full, never blocking", async () => {
    const otel = testOtel();
    const monitor = monitorWith(otel, { sampling: { default: 1 }, queueSize: 2, workers: 1 });
    for (let i = 0; i < 10; i++) monitor.observe({ route: "/r", ...GOOD });
    await monitor.flush();
    const s = monitor.stats();
    expect(s.dropped.queue_full).toBeGreaterThan(0);
    expect(s.scored + (s.dropped.queue_full ?? 0)).toBe(10);
    expect(identityHolds(s)).toBe(true);
    const dropped = (await otel.metrics()).get(METRICS.dropped.name);
    expect(dropped?.[0]).toMatchObject({ attributes: { "groundwatch.reason": "queue_full" } });
  });

  it("never throws into the host on bad input, and counts it as failed", async () => {
    const otel = testOtel();
    const monitor = monitorWith(otel, { sampling: { default: 1 } });
    expect(() => monitor.observe({ route: "/r", context: 42 as unknown as string, answer: "x" })).not.toThrow();
    expect(() => monitor.observe(null as unknown as never)).not.toThrow();
    await monitor.flush();
    expect(monitor.stats().failed.invalid_input).toBeGreaterThanOrEqual(1);
    expect(identityHolds(monitor.stats())).toBe(true);
  });

  it("fails an observation over its time budget with reason timeout and an error span", async () => {
    const otel = testOtel();
    const monitor = monitorWith(otel, { sampling: { default: 1 }, timeoutMs: 1 });
    await monitor.ready();
    monitor.observe({ route: "/r", context: GOOD.context[0]?.repeat(200) ?? "", answer: GOOD.answer.repeat(20) });
    await monitor.flush();
    expect(monitor.stats().failed.timeout).toBe(1);
    const span = otel.spans.getFinishedSpans().find((s) => s.name === "groundwatch.evaluate");
    expect(span?.status.code).toBe(2);
    expect(span?.attributes["error.type"]).toBe("timeout");
  });

  it("captures claim text only when opted in, capped and redacted", async () => {
    const otel = testOtel();
    const monitor = monitorWith(otel, { sampling: { default: 1 }, captureContent: true, contentMaxLength: 20, redact: (t) => t.replace(/\d+/g, "#") });
    monitor.observe({ route: "/r", ...BAD });
    await monitor.flush();
    const span = otel.spans.getFinishedSpans().find((s) => s.name === "groundwatch.evaluate");
    const claims = span?.attributes["groundwatch.content.unsupported_claims"] as string[];
    expect(claims[0]).toBe("Returns are accepte…");
    expect((span?.attributes["groundwatch.content.evidence"] as string[])[0]).not.toMatch(/\d/);
  });

  it("links instead of parenting when asked", async () => {
    const otel = testOtel();
    const monitor = monitorWith(otel, { sampling: { default: 1 }, spanRelation: "link" });
    let traceId = "";
    otel.tracerProvider.getTracer("host").startActiveSpan("req", (span) => {
      traceId = span.spanContext().traceId;
      monitor.observe({ route: "/r", ...GOOD });
      span.end();
    });
    await monitor.flush();
    const ev = otel.spans.getFinishedSpans().find((s) => s.name === "groundwatch.evaluate");
    expect(ev?.spanContext().traceId).not.toBe(traceId);
    expect(ev?.links[0]?.context.traceId).toBe(traceId);
  });

  it("emits the evaluation event in the evaluation span's trace when observe() runs outside any span", async () => {
    const otel = testOtel();
    const monitor = monitorWith(otel, { sampling: { default: 1 } });
    monitor.observe({ route: "/r", ...GOOD });
    await monitor.flush();
    const ev = otel.spans.getFinishedSpans().find((s) => s.name === "groundwatch.evaluate");
    const event = otel.logs.getFinishedLogRecords().find((l) => l.eventName === "gen_ai.evaluation.result");
    // Without a request span the event used to carry no trace id at all (a collector rejects it: invalid_id).
    expect(event?.spanContext?.traceId).toBe(ev?.spanContext().traceId);
    expect(event?.spanContext?.spanId).toBe(ev?.spanContext().spanId);
  });

  it("reports entropy and the combined verdict when resamples come with the answer", async () => {
    const otel = testOtel();
    const monitor = monitorWith(otel, { sampling: { default: 1 } });
    monitor.observe({ route: "/r", ...GOOD, question: "How long is the return window?", samples: ["30 days.", "30 days.", "30 days."] });
    await monitor.flush();
    const span = otel.spans.getFinishedSpans().find((s) => s.name === "groundwatch.evaluate");
    expect(span?.attributes).toMatchObject({ "groundwatch.entropy.reliable": false, "groundwatch.combined.verdict": "unscorable" });
    const degenerate = (await otel.metrics()).get(METRICS.degenerate.name);
    expect(degenerate?.[0]?.attributes["groundwatch.reason"]).toBe("identical_samples");
  });

  it("exports drift gauges once a route has enough scores", async () => {
    const otel = testOtel();
    const monitor = monitorWith(otel, { sampling: { default: 1 }, drift: { windowSize: 20, minScores: 20, reference: Array.from({ length: 40 }, () => 0.99) } });
    for (let i = 0; i < 25; i++) monitor.observe({ route: "/r", ...BAD });
    await monitor.flush();
    const metrics = await otel.metrics();
    expect(metrics.get(METRICS.driftStatistic.name)?.[0]).toMatchObject({ attributes: { "groundwatch.route": "/r" }, value: 1 });
    expect(Number(metrics.get(METRICS.driftPValue.name)?.[0]?.value)).toBeLessThan(0.01);
  });

  it("validates options at construction, naming the bad one", () => {
    expect(() => createMonitor({ env: ENV, sampling: { default: 2 } })).toThrow("invalid sampling.default: 2");
    expect(() => createMonitor({ env: ENV, queueSize: 0 })).toThrow("invalid queueSize: 0");
    expect(() => createMonitor({ env: { ...ENV, GROUNDWATCH_SAMPLE_ROUTES: "/a" } })).toThrow("GROUNDWATCH_SAMPLE_ROUTES");
    expect(() => createMonitor({ env: ENV, scoring: { backend: "onnx", model: "/nonexistent/model" } })).toThrow('invalid model: "/nonexistent/model"');
  });

  it("says whether a batch fits the queue, counting each observation by its sampling rate", () => {
    const otel = testOtel();
    const all = monitorWith(otel, { sampling: { default: 1 }, queueSize: 2 });
    expect(all.hasRoomFor(["/a", "/b"])).toBe(true);
    expect(all.hasRoomFor(["/a", "/b", "/c"])).toBe(false);
    const few = monitorWith(otel, { sampling: { default: 0.05 }, queueSize: 2 });
    expect(few.hasRoomFor(Array.from({ length: 30 }, () => "/a"))).toBe(true);
    expect(few.hasRoomFor(Array.from({ length: 60 }, () => "/a"))).toBe(false);
  });

  it("caps distinct route labels, reporting the rest as __other__", async () => {
    const otel = testOtel();
    const monitor = monitorWith(otel, { sampling: { default: 0 }, maxRoutes: 2 });
    for (const r of ["/a", "/b", "/users/123", "/users/456"]) monitor.observe({ route: r, ...GOOD });
    const seen = (await otel.metrics()).get(METRICS.seen.name);
    expect(seen?.map((p) => [p.attributes["groundwatch.route"], p.value]).sort()).toEqual([["/a", 1], ["/b", 1], ["__other__", 2]]);
  });

  it("reloads sampling rates from the config file without a restart", () => {
    const otel = testOtel();
    const file = join(tempDir(), "gw.json");
    writeFileSync(file, JSON.stringify({ sampling: { default: 0 } }));
    const monitor = monitorWith(otel, { configFile: file, random: () => 0.5 });
    monitor.observe({ route: "/r", ...GOOD });
    expect(monitor.stats().sampled).toBe(0);
    writeFileSync(file, JSON.stringify({ sampling: { default: 1 } }));
    monitor.reload();
    monitor.observe({ route: "/r", ...GOOD });
    expect(monitor.stats().sampled).toBe(1);
    writeFileSync(file, "{broken");
    monitor.reload();
    monitor.observe({ route: "/r", ...GOOD });
    expect(monitor.stats().sampled).toBe(2);
  });

  it("drops observations after shutdown, counted", async () => {
    const otel = testOtel();
    const monitor = monitorWith(otel, { sampling: { default: 1 } });
    await monitor.shutdown(1000);
    monitor.observe({ route: "/r", ...GOOD });
    expect(monitor.stats().dropped.shutdown).toBe(1);
  });
});

describe("traceFraction", () => {
  it("maps a trace id to [0, 1) and refuses invalid ids", () => {
    expect(traceFraction("0af7651916cd43dd8448eb211c80319c")).toBeGreaterThanOrEqual(0);
    expect(traceFraction("0af7651916cd43dd8448eb211c80319c")).toBeLessThan(1);
    expect(traceFraction("00000000000000000000000000000000")).toBeUndefined();
    expect(traceFraction("not-a-trace")).toBeUndefined();
  });
});

describe("scoring share", () => {
  it("waits d·(1/share − 1) after a job of d ms, and not at all at share 1", () => {
    expect(cooldownMs(100, 0.25)).toBe(300);
    expect(cooldownMs(100, 0.5)).toBe(100);
    expect(cooldownMs(100, 1)).toBe(0);
  });

  it("still scores every observation with a low share", async () => {
    const otel = testOtel();
    const monitor = monitorWith(otel, { sampling: { default: 1 }, scoringShare: 0.5 });
    for (let i = 0; i < 4; i++) monitor.observe({ route: "/r", ...GOOD });
    await monitor.flush();
    expect(monitor.stats()).toMatchObject({ scored: 4, pending: 0 });
  });
});

describe("hostile input and faults (issue 13)", () => {
  it("counts an attribute getter that throws as invalid input, while workers are busy, and keeps scoring", async () => {
    const otel = testOtel();
    const monitor = monitorWith(otel, { sampling: { default: 1 }, workers: 1 });
    await monitor.ready();
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown): void => void unhandled.push(e);
    process.on("unhandledRejection", onUnhandled);
    onTestFinished(() => void process.off("unhandledRejection", onUnhandled));
    for (let i = 0; i < 4; i++) monitor.observe({ route: "/r", ...GOOD });
    const hostile = {
      route: "/r",
      ...GOOD,
      get attributes(): Record<string, string> {
        throw new Error("getter says no");
      },
    };
    expect(() => monitor.observe(hostile)).not.toThrow();
    const throwingValue = { route: "/r", ...GOOD, attributes: Object.defineProperty({}, "tenant", { enumerable: true, get: () => { throw new Error("nope"); } }) };
    expect(() => monitor.observe(throwingValue)).not.toThrow();
    const proxyContext = { route: "/r", answer: GOOD.answer, context: new Proxy(["a"], { get: () => { throw new Error("trap"); } }) };
    expect(() => monitor.observe(proxyContext)).not.toThrow();
    monitor.observe({ route: "/r", ...GOOD });
    await monitor.flush();
    const s = monitor.stats();
    expect(s.failed.invalid_input).toBe(3);
    expect(s.scored).toBe(5);
    expect(s.pending).toBe(0);
    expect(identityHolds(s)).toBe(true);
    expect(unhandled).toEqual([]);
  });

  it("reads nothing but the route and the override of an observation that is not sampled (no copy on the hot path)", async () => {
    const otel = testOtel();
    const monitor = monitorWith(otel, { sampling: { default: 0 } });
    const read: string[] = [];
    const input = new Proxy({ route: "/r", ...GOOD }, { get: (t, key) => (read.push(String(key)), Reflect.get(t, key)) });
    monitor.observe(input);
    expect(read.sort()).toEqual(["route", "sample"]);
    expect(monitor.stats()).toMatchObject({ seen: 1, notSampled: 1, sampled: 0 });
  });

  it("copies the host's input: changing it after observe() changes nothing", async () => {
    const otel = testOtel();
    const monitor = monitorWith(otel, { sampling: { default: 1 } });
    const docs = [...GOOD.context];
    const attributes: Record<string, string> = { tenant: "a" };
    monitor.observe({ route: "/r", context: docs, answer: GOOD.answer, attributes });
    docs[0] = "Nothing about returns.";
    attributes.tenant = "b";
    await monitor.flush();
    const span = otel.spans.getFinishedSpans().find((x) => x.name === "groundwatch.evaluate");
    expect(span?.attributes["groundwatch.verdict"]).toBe("grounded");
    expect(span?.attributes.tenant).toBe("a");
  });

  it("never throws from the express helper when a field's getter throws, and counts it", async () => {
    const { observeRequest } = await import("../../src/sdk/express.ts");
    const otel = testOtel();
    const monitor = monitorWith(otel, { sampling: { default: 1 } });
    const input = {
      context: GOOD.context,
      get answer(): string {
        throw new Error("no answer for you");
      },
    };
    const req = { baseUrl: "/api", route: { path: "/advice/:id" } };
    expect(() => observeRequest(monitor, req, input)).not.toThrow();
    const badReq = Object.defineProperty({}, "route", { get: () => { throw new Error("bad req"); } });
    expect(() => observeRequest(monitor, badReq, GOOD)).not.toThrow();
    await monitor.flush();
    const s = monitor.stats();
    expect(s.failed.invalid_input).toBe(1);
    expect(s.scored).toBe(1);
    expect(identityHolds(s)).toBe(true);
  });

  it("strips control, ANSI and bidi characters from route labels", async () => {
    const otel = testOtel();
    const monitor = monitorWith(otel, { sampling: { default: 1 } });
    monitor.observe({ route: "/api/\u001b[31mred\u001b[0m\u202e/x\u0000\n", ...GOOD });
    await monitor.flush();
    const seen = (await otel.metrics()).get(METRICS.seen.name);
    expect(seen?.map((p) => p.attributes["groundwatch.route"])).toEqual(["/api/red/x"]);
  });

  it("drops what does not fit the queue's byte budget (queue_bytes) and says so in hasRoomFor", async () => {
    const otel = testOtel();
    const monitor = monitorWith(otel, { sampling: { default: 1 }, queueBytes: 4096 });
    const big = { route: "/r", context: ["x ".repeat(3000)], answer: GOOD.answer };
    expect(monitor.hasRoomFor(["/r"], 5000)).toBe(false);
    expect(monitor.hasRoomFor(["/r"], 100)).toBe(true);
    monitor.observe(big);
    monitor.observe({ route: "/r", ...GOOD });
    await monitor.flush();
    const s = monitor.stats();
    expect(s.dropped.queue_bytes).toBe(1);
    expect(s.scored).toBe(1);
    expect(monitor.health().queue.bytes).toBe(0);
    expect(identityHolds(s)).toBe(true);
  });

  it("times out a job whose backend hangs, gives it up on its worker (which stays), and scores what comes after", async () => {
    const { startJudgeServer, chat } = await import("../helpers/judge-server.ts");
    const judge = await startJudgeServer((req) => (req.messages.some((m) => m.content.includes("Zanzibar")) ? { body: chat("ENTAILMENT"), delayMs: 60_000 } : { body: chat("ENTAILMENT") }));
    const otel = testOtel();
    const monitor = monitorWith(otel, { sampling: { default: 1 }, timeoutMs: 1500, env: { ...ENV, GROUNDWATCH_JUDGE_API_KEY: "k" }, scoring: { backend: "judge", judgeUrl: judge.url, judgeModel: "m" } });
    await monitor.ready();
    monitor.observe({ route: "/r", context: ["Zanzibar is an island off the coast of Tanzania."], answer: "Zanzibar is an island." });
    for (let i = 0; i < 3; i++) monitor.observe({ route: "/r", ...GOOD });
    await monitor.flush();
    const s = monitor.stats();
    expect(s.failed.timeout).toBe(1);
    expect(s.scored).toBe(3);
    expect(identityHolds(s)).toBe(true);
    // The hanging call was aborted on the worker: nothing had to be replaced.
    expect(monitor.health()).toMatchObject({ ready: true, workers: { alive: 1, restarts: 0 } });
    monitor.observe({ route: "/r", ...GOOD });
    await monitor.flush();
    expect(monitor.stats().scored).toBe(4);
    expect(monitor.health().workers.restarts).toBe(0);
    expect((await otel.metrics()).get(METRICS.workerRestarts.name)).toBeUndefined();
  });

  it("times out only the hanging job among several in flight on one worker; the others on it are scored", async () => {
    const { startJudgeServer, chat } = await import("../helpers/judge-server.ts");
    const judge = await startJudgeServer((req) => (req.messages.some((m) => m.content.includes("Zanzibar")) ? { body: chat("ENTAILMENT"), delayMs: 60_000 } : { body: chat("ENTAILMENT") }));
    const otel = testOtel();
    const monitor = monitorWith(otel, { sampling: { default: 1 }, workers: 1, inFlightPerWorker: 6, timeoutMs: 1500, env: { ...ENV, GROUNDWATCH_JUDGE_API_KEY: "k" }, scoring: { backend: "judge", judgeUrl: judge.url, judgeModel: "m" } });
    await monitor.ready();
    // Not a verbatim sentence of its document: a verbatim claim is supported without asking the judge.
    monitor.observe({ route: "/r", context: ["Zanzibar is an island off the coast of Tanzania."], answer: "Zanzibar is an island." });
    for (let i = 0; i < 5; i++) monitor.observe({ route: "/r", ...GOOD });
    await monitor.flush();
    const s = monitor.stats();
    expect(s.failed.timeout).toBe(1);
    expect(s.scored).toBe(5);
    expect(identityHolds(s)).toBe(true);
  });

  it("counts a throwing redact hook once: scored, recorded without content", async () => {
    const otel = testOtel();
    const monitor = monitorWith(otel, {
      sampling: { default: 1 },
      captureContent: true,
      redact: () => {
        throw new Error("redactor down");
      },
    });
    monitor.observe({ route: "/r", ...BAD });
    await monitor.flush();
    const s = monitor.stats();
    expect(s.scored).toBe(1);
    expect(s.failed).toEqual({});
    expect(identityHolds(s)).toBe(true);
    const span = otel.spans.getFinishedSpans().find((x) => x.name === "groundwatch.evaluate");
    expect(span?.attributes["groundwatch.verdict"]).toBe("ungrounded");
    expect(span?.attributes).not.toHaveProperty("groundwatch.content.unsupported_claims");
  });

  it("counts jobs in flight at shutdown as shutdown, and nothing is pending once shutdown resolves", async () => {
    const { startJudgeServer, chat } = await import("../helpers/judge-server.ts");
    const judge = await startJudgeServer(() => ({ body: chat("ENTAILMENT"), delayMs: 30_000 }));
    const otel = testOtel();
    const monitor = monitorWith(otel, { sampling: { default: 1 }, env: { ...ENV, GROUNDWATCH_JUDGE_API_KEY: "k" }, scoring: { backend: "judge", judgeUrl: judge.url, judgeModel: "m" } });
    await monitor.ready();
    for (let i = 0; i < 3; i++) monitor.observe({ route: "/r", ...GOOD });
    await monitor.shutdown(200);
    const s = monitor.stats();
    expect(s.pending).toBe(0);
    expect(s.failed.scorer_error ?? 0).toBe(0);
    expect((s.failed.shutdown ?? 0) + (s.dropped.shutdown ?? 0)).toBe(3);
    expect(identityHolds(s)).toBe(true);
    expect(monitor.health()).toMatchObject({ ready: false, reason: "shut down" });
  });

  it("counts observations cut short by a size limit on groundwatch.observations.limited, and names the limits on the span", async () => {
    const otel = testOtel();
    const monitor = monitorWith(otel, { sampling: { default: 1 } });
    const samples = Array.from({ length: 30 }, (_, i) => `Returns are accepted within ${i + 1} days.`);
    monitor.observe({ route: "/r", ...GOOD, question: "How long?", samples });
    monitor.observe({ route: "/r", context: [`${GOOD.context[0]} ${"A".repeat(5000)}`], answer: GOOD.answer });
    monitor.observe({ route: "/r", ...GOOD });
    await monitor.flush();
    expect(monitor.stats().scored).toBe(3);
    const limited = (await otel.metrics()).get(METRICS.limited.name);
    expect(limited?.map((p) => [p.attributes["groundwatch.limit"], p.value]).sort()).toEqual([
      ["samples", 1],
      ["token_chars", 1],
    ]);
    const spans = otel.spans.getFinishedSpans().filter((x) => x.name === "groundwatch.evaluate");
    expect(spans.map((x) => x.attributes["groundwatch.limits"] ?? []).sort()).toEqual([[], ["samples"], ["token_chars"]].sort());
  });

  it("is not ready before its workers start, and ready once they are", async () => {
    const otel = testOtel();
    const monitor = monitorWith(otel, { sampling: { default: 1 } });
    expect(monitor.health()).toMatchObject({ ready: false, reason: "scoring workers are starting" });
    await monitor.ready();
    expect(monitor.health()).toMatchObject({ ready: true, workers: { alive: 1, size: 1, restarts: 0 } });
  });
});
