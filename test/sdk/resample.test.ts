import { describe, expect, it, onTestFinished, vi } from "vitest";
import type { createMonitor } from "../../src/sdk/monitor.ts";
import type { Monitor } from "../../src/sdk/types.ts";
import type { CompletedEvaluation } from "../../src/sdk/options.ts";
import type { ResampleOptions, ResampleRequest, ResampleResult } from "../../src/sdk/resample-options.ts";
import { METRICS } from "../../src/telemetry/semconv.ts";
import { testOtel } from "../helpers/otel.ts";
import type { TestOtel } from "../helpers/otel.ts";
import { identityHolds, testMonitor } from "../helpers/monitor.ts";
const CONTEXT = ["Returns are accepted within 30 days of delivery for a full refund."];
const OBS = { route: "/api/returns", context: CONTEXT, answer: "Returns are accepted within 30 days of delivery.", question: "How long is the return window?" };
const CONSISTENT = ["Returns are accepted within 30 days.", "returns are accepted within 30 days", "Returns are accepted within 30 days!", "RETURNS ARE ACCEPTED WITHIN 30 DAYS.", "Returns are accepted within 30 days."];
const CONFABULATING = ["Returns are accepted within 30 days.", "Returns are accepted within 90 days.", "Returns are accepted within 7 days.", "Returns are not accepted.", "Returns are accepted within one year."];

type Sampler = ResampleOptions["sample"];

function monitorWith(otel: TestOtel, resample: Partial<ResampleOptions> & { sample: Sampler }, extra: Parameters<typeof createMonitor>[0] = {}): Monitor {
  return testMonitor(otel, { sampling: { default: 1 }, resample, ...extra });
}

/** Collects unhandled rejections and uncaught exceptions while a test runs. */
function hostProblems(): unknown[] {
  const seen: unknown[] = [];
  const on = (e: unknown): void => void seen.push(e);
  process.on("unhandledRejection", on);
  process.on("uncaughtException", on);
  onTestFinished(() => {
    process.off("unhandledRejection", on);
    process.off("uncaughtException", on);
  });
  return seen;
}

const evaluateSpans = (otel: TestOtel) => otel.spans.getFinishedSpans().filter((s) => s.name === "groundwatch.evaluate");

async function resampleCalls(otel: TestOtel): Promise<Array<[unknown, unknown, unknown]>> {
  const points = (await otel.metrics()).get(METRICS.resampleCalls.name) ?? [];
  return points.map((p) => [p.attributes["groundwatch.route"], p.attributes["groundwatch.resample.outcome"], p.value]);
}

/** Resolves once `check` holds (vi.waitFor polls; the timeout is a bound, not a timing assertion). */
async function until(check: () => boolean, what: string): Promise<void> {
  await vi.waitFor(
    () => {
      if (!check()) throw new Error(`not reached: ${what}`);
    },
    { timeout: 10_000, interval: 5 },
  );
}

describe("createMonitor({ resample })", () => {
  it("asks the host's sampler off the request path and records a low entropy for consistent resamples", async () => {
    const otel = testOtel();
    const requests: ResampleRequest[] = [];
    const monitor = monitorWith(otel, {
      sample: (req) => {
        requests.push(req);
        return Promise.resolve({ samples: CONSISTENT, usage: { promptTokens: 120, completionTokens: 40 } });
      },
    });
    await monitor.ready();
    monitor.observe(OBS);
    await monitor.flush();

    expect(requests).toHaveLength(1);
    const req = requests[0]!;
    expect(req).toMatchObject({ route: "/api/returns", question: OBS.question, context: CONTEXT, answer: OBS.answer, n: 5 });
    expect(req.signal).toBeInstanceOf(AbortSignal);
    expect(req.signal.aborted).toBe(false);
    expect(Object.isFrozen(req) && Object.isFrozen(req.context)).toBe(true);

    const span = evaluateSpans(otel)[0];
    expect(span?.attributes).toMatchObject({ "groundwatch.entropy.reliable": true, "groundwatch.entropy.clusters": 1, "groundwatch.entropy.normalized": 0, "groundwatch.resample.outcome": "ok" });
    const s = monitor.stats();
    expect(s).toMatchObject({ scored: 1, pending: 0, resample: { calls: { ok: 1, error: 0, timeout: 0, short: 0, budget: 0, shutdown: 0 }, inFlight: 0 } });
    expect(identityHolds(s)).toBe(true);

    const metrics = await otel.metrics();
    expect(await resampleCalls(otel)).toEqual([["/api/returns", "ok", 1]]);
    expect(metrics.get(METRICS.entropy.name)?.[0]?.attributes["groundwatch.route"]).toBe("/api/returns");
    expect(metrics.get(METRICS.resampleTokens.name)?.map((p) => [p.attributes["groundwatch.token.kind"], p.value]).sort()).toEqual([
      ["completion", 40],
      ["prompt", 120],
    ]);
    expect(metrics.get(METRICS.resampleDuration.name)?.[0]?.attributes).toEqual({ "groundwatch.route": "/api/returns" });
  });

  it("records a high entropy when the resamples disagree", async () => {
    const otel = testOtel();
    const monitor = monitorWith(otel, { sample: () => Promise.resolve(CONFABULATING) });
    monitor.observe(OBS);
    await monitor.flush();
    const span = evaluateSpans(otel)[0];
    expect(span?.attributes["groundwatch.entropy.reliable"]).toBe(true);
    expect(Number(span?.attributes["groundwatch.entropy.normalized"])).toBeGreaterThanOrEqual(0.5);
    expect(span?.attributes["groundwatch.combined.verdict"]).toBe("fail");
  });

  it("marks identical resamples unreliable, with the reason (the call itself was ok)", async () => {
    const otel = testOtel();
    const monitor = monitorWith(otel, { sample: () => Promise.resolve(Array.from({ length: 5 }, () => "Returns are accepted within 30 days.")) });
    monitor.observe(OBS);
    await monitor.flush();
    const span = evaluateSpans(otel)[0];
    expect(span?.attributes).toMatchObject({ "groundwatch.entropy.reliable": false, "groundwatch.combined.verdict": "unscorable", "groundwatch.resample.outcome": "ok" });
    const degenerate = (await otel.metrics()).get(METRICS.degenerate.name);
    expect(degenerate?.[0]?.attributes["groundwatch.reason"]).toBe("identical_samples");
    const event = otel.logs.getFinishedLogRecords().find((l) => l.attributes["gen_ai.evaluation.name"] === "semantic_entropy");
    expect(String(event?.attributes["gen_ai.evaluation.explanation"] ?? "")).toMatch(/identical/);
    expect(monitor.stats().resample.calls.ok).toBe(1);
  });

  const failures: Array<{ name: string; outcome: string; reason: RegExp; options?: Partial<ResampleOptions>; sample: Sampler }> = [
    {
      name: "throws synchronously",
      outcome: "error",
      reason: /threw or rejected/,
      sample: () => {
        throw new Error("model down");
      },
    },
    { name: "rejects", outcome: "error", reason: /threw or rejected/, sample: () => Promise.reject(new Error("429")) },
    { name: "rejects with something that is not an Error", outcome: "error", reason: /threw or rejected/, sample: () => Promise.reject(Object.create(null) as Error) },
    { name: "returns garbage", outcome: "error", reason: /other than strings/, sample: () => Promise.resolve([{ content: "x" }] as unknown as ResampleResult) },
    { name: "returns nothing", outcome: "error", reason: /other than strings/, sample: () => Promise.resolve(undefined as unknown as ResampleResult) },
    {
      name: "returns a Proxy that throws when read",
      outcome: "error",
      reason: /reading the resampler's result threw/,
      sample: () => Promise.resolve({ samples: new Proxy(["a"], { get: () => { throw new Error("trap"); } }) }),
    },
    {
      name: "returns a thenable whose then getter throws",
      outcome: "error",
      reason: /threw or rejected/,
      sample: () => Object.defineProperty({}, "then", { get: () => { throw new Error("no then"); } }) as Promise<ResampleResult>,
    },
    { name: "returns fewer answers than asked (short)", outcome: "short", reason: /received 2 of 5 requested samples/, sample: () => Promise.resolve(["Returns within 30 days.", "Returns within 90 days."]) },
    { name: "returns an empty list (short)", outcome: "short", reason: /received 0 of 5 requested samples/, sample: () => Promise.resolve([]) },
  ];
  for (const f of failures) {
    it(`scores the answer when the sampler ${f.name}: counted ${f.outcome}, entropy unreliable with the reason, host untouched`, async () => {
      const problems = hostProblems();
      const otel = testOtel();
      const evaluations: CompletedEvaluation[] = [];
      const monitor = monitorWith(otel, { sample: f.sample, ...f.options }, { onEvaluation: (e) => void evaluations.push(e) });
      expect(() => monitor.observe(OBS)).not.toThrow();
      await monitor.flush();
      // The reason travels with the result (never the host's error message).
      const entropy = evaluations[0]?.result.entropy;
      expect(entropy?.reliable).toBe(false);
      expect(entropy?.reasons.join("; ")).toMatch(f.reason);
      expect(entropy?.reasons.join("; ")).not.toMatch(/model down|429|trap|no then/);
      expect(evaluations[0]?.result.combined?.verdict).toBe("unscorable");
      const s = monitor.stats();
      expect(s.scored).toBe(1);
      expect(s.failed).toEqual({});
      expect(s.resample.calls[f.outcome as "error"]).toBe(1);
      expect(identityHolds(s)).toBe(true);
      const span = evaluateSpans(otel)[0];
      expect(span?.attributes).toMatchObject({ "groundwatch.verdict": "grounded", "groundwatch.entropy.reliable": false, "groundwatch.combined.verdict": "unscorable", "groundwatch.resample.outcome": f.outcome });
      expect(span?.status.code).not.toBe(2);
      const event = otel.logs.getFinishedLogRecords().find((l) => l.attributes["gen_ai.evaluation.name"] === "semantic_entropy");
      // An entropy event is emitted only for a measured (if unreliable) value, e.g. on a short set.
      if (event) expect(String(event.attributes["gen_ai.evaluation.explanation"])).toMatch(f.reason);
      expect(await resampleCalls(otel)).toEqual([["/api/returns", f.outcome, 1]]);
      const degenerate = (await otel.metrics()).get(METRICS.degenerate.name);
      expect(degenerate?.[0]?.value).toBe(1);
      expect(problems).toEqual([]);
    });
  }

  it("times out a call, aborting its signal, and scores the answer", async () => {
    const otel = testOtel();
    let reason: unknown;
    const monitor = monitorWith(otel, {
      timeoutMs: 50,
      sample: ({ signal }) =>
        new Promise((_, reject) =>
          signal.addEventListener("abort", () => {
            reason = signal.reason;
            reject(signal.reason as Error);
          }),
        ),
    });
    monitor.observe(OBS);
    await monitor.flush();
    expect((reason as DOMException).name).toBe("TimeoutError");
    const s = monitor.stats();
    expect(s).toMatchObject({ scored: 1, resample: { calls: { timeout: 1, error: 0 } } });
    expect(identityHolds(s)).toBe(true);
    expect(evaluateSpans(otel)[0]?.attributes).toMatchObject({ "groundwatch.entropy.reliable": false, "groundwatch.resample.outcome": "timeout" });
  });

  it("gives up on a sampler that ignores its signal at the timeout, freeing the slot", async () => {
    const otel = testOtel();
    const monitor = monitorWith(otel, { timeoutMs: 30, maxConcurrent: 1, sample: () => new Promise(() => undefined) });
    await monitor.ready();
    for (let i = 0; i < 3; i++) monitor.observe(OBS);
    await monitor.flush();
    // One call runs, one waits for its slot, the third finds both taken (busy): scored without entropy.
    expect(monitor.stats()).toMatchObject({ scored: 3, resample: { calls: { timeout: 2, busy: 1 }, inFlight: 0 } });
  });

  it("scores without entropy over the calls-per-minute budget, counted budget", async () => {
    const otel = testOtel();
    let calls = 0;
    const monitor = monitorWith(otel, {
      maxCallsPerMinute: 2,
      maxConcurrent: 8,
      sample: () => {
        calls++;
        return Promise.resolve(CONSISTENT);
      },
    });
    await monitor.ready();
    for (let i = 0; i < 5; i++) monitor.observe(OBS);
    await monitor.flush();
    expect(calls).toBe(2);
    const s = monitor.stats();
    expect(s).toMatchObject({ scored: 5, resample: { calls: { ok: 2, budget: 3 } } });
    expect(identityHolds(s)).toBe(true);
    const spans = evaluateSpans(otel);
    expect(spans.filter((x) => x.attributes["groundwatch.resample.outcome"] === "budget")).toHaveLength(3);
    for (const x of spans.filter((y) => y.attributes["groundwatch.resample.outcome"] === "budget")) expect(x.attributes).not.toHaveProperty("groundwatch.entropy.reliable");
    expect((await resampleCalls(otel)).sort()).toEqual([
      ["/api/returns", "budget", 3],
      ["/api/returns", "ok", 2],
    ]);
    // Over budget, no call is made, so no duration either.
    expect((await otel.metrics()).get(METRICS.resampleDuration.name)?.[0]?.value).toMatchObject({ count: 2 });
  });

  it("is not called for unsampled observations, at rate 0, or for observations that bring their own samples", async () => {
    const otel = testOtel();
    let calls = 0;
    const sample: Sampler = () => {
      calls++;
      return Promise.resolve(CONSISTENT);
    };
    const unsampled = monitorWith(otel, { sample }, { sampling: { default: 0 } });
    const rateZero = monitorWith(otel, { sample, rate: 0 });
    const own = monitorWith(otel, { sample });
    unsampled.observe(OBS);
    rateZero.observe(OBS);
    own.observe({ ...OBS, samples: CONFABULATING });
    await Promise.all([unsampled.flush(), rateZero.flush(), own.flush()]);
    expect(calls).toBe(0);
    expect(unsampled.stats()).toMatchObject({ notSampled: 1, scored: 0 });
    expect(rateZero.stats()).toMatchObject({ scored: 1, resample: { calls: { ok: 0, budget: 0 } } });
    expect(own.stats()).toMatchObject({ scored: 1, resample: { calls: { ok: 0 } } });
    expect(evaluateSpans(otel).filter((s) => s.attributes["groundwatch.resample.outcome"] !== undefined)).toEqual([]);
  });

  it("applies per-route rates and patterns, most specific first", async () => {
    const otel = testOtel();
    const routes: string[] = [];
    const monitor = monitorWith(otel, {
      rate: { default: 0, routes: { "/api/*": 1, "/api/free": 0 } },
      sample: (req) => {
        routes.push(req.route);
        return Promise.resolve(CONSISTENT);
      },
    });
    for (const route of ["/api/advice", "/api/free", "/other", "/api/returns"]) monitor.observe({ ...OBS, route });
    await monitor.flush();
    expect(routes.sort()).toEqual(["/api/advice", "/api/returns"]);
    expect(monitor.stats().scored).toBe(4);
  });

  it("never calls the sampler inside observe(): observe returns first", async () => {
    const otel = testOtel();
    let insideObserve = false;
    let calledInside = false;
    let calls = 0;
    const monitor = monitorWith(otel, {
      sample: () => {
        calls++;
        calledInside ||= insideObserve;
        return Promise.resolve(CONSISTENT);
      },
    });
    // With the workers up, observe() dispatches at once: that is where a synchronous call would happen.
    await monitor.ready();
    insideObserve = true;
    monitor.observe(OBS);
    insideObserve = false;
    expect(calls).toBe(0);
    await Promise.resolve();
    expect(calls).toBe(0);
    await monitor.flush();
    expect(calls).toBe(1);
    expect(calledInside).toBe(false);
  });

  it("keeps at most maxConcurrent calls in flight and as many waiting; the rest are scored without entropy (busy)", async () => {
    const otel = testOtel();
    let running = 0;
    let most = 0;
    let calls = 0;
    // The calls wait for the test, not for a timer: how many are turned away must not depend on how busy the machine is.
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const monitor = monitorWith(otel, {
      maxConcurrent: 2,
      sample: async () => {
        calls++;
        running++;
        most = Math.max(most, running);
        await gate;
        running--;
        return CONSISTENT;
      },
    });
    await monitor.ready();
    for (let i = 0; i < 6; i++) monitor.observe(OBS);
    await until(() => running === 2, "two calls in flight");
    await until(() => monitor.stats().resample.calls.busy === 2, "two turned away (busy)");
    expect(monitor.stats().resample.inFlight).toBe(2);
    release();
    await monitor.flush();
    expect(calls).toBe(4);
    expect(most).toBe(2);
    const s = monitor.stats();
    expect(s).toMatchObject({ scored: 6, resample: { calls: { ok: 4, busy: 2 } } });
    expect(identityHolds(s)).toBe(true);
    const busy = evaluateSpans(otel).filter((x) => x.attributes["groundwatch.resample.outcome"] === "busy");
    expect(busy).toHaveLength(2);
    for (const x of busy) expect(x.attributes).not.toHaveProperty("groundwatch.entropy.reliable");
  });

  it("draws as observations near the workers: a deep queue waits as it is, not turned away (busy) all at once", async () => {
    const otel = testOtel();
    let release: () => void = () => undefined;
    const gate = new Promise<string[]>((r) => (release = () => r(CONSISTENT)));
    // A tiny scoring share: after each scored job the worker idles ~1000× as long, so the backlog stays.
    const monitor = monitorWith(otel, { maxConcurrent: 2, sample: () => gate }, { scoringShare: 0.001 });
    await monitor.ready();
    for (let i = 0; i < 20; i++) monitor.observe(OBS);
    // Steady state: two calls run, two wait, and the stage has met the resampler's bound (a busy turn-away).
    await until(() => monitor.stats().resample.inFlight === 2 && monitor.stats().resample.calls.busy >= 1, "two calls in flight and one turned away");
    const s = monitor.stats();
    // Two calls run and two wait (held by the gate); at most a job or two more reached the resampler.
    expect(s.resample.inFlight).toBe(2);
    expect(s.resample.calls.busy).toBeLessThanOrEqual(2);
    expect(s.pending).toBeGreaterThanOrEqual(16);
    release();
    await monitor.shutdown(200);
    expect(identityHolds(monitor.stats())).toBe(true);
    expect(monitor.stats().pending).toBe(0);
  });

  it("aborts calls in flight at shutdown, counted shutdown, and still scores the answer", async () => {
    const problems = hostProblems();
    const otel = testOtel();
    let signal: AbortSignal | undefined;
    const monitor = monitorWith(otel, {
      sample: (req) => {
        signal = req.signal;
        return new Promise((_, reject) => req.signal.addEventListener("abort", () => reject(req.signal.reason as Error)));
      },
    });
    monitor.observe(OBS);
    await until(() => signal !== undefined, "the sampler was called");
    expect(signal?.aborted).toBe(false);
    await monitor.shutdown(5000);
    expect(signal?.aborted).toBe(true);
    expect((signal?.reason as DOMException).name).toBe("AbortError");
    const s = monitor.stats();
    expect(s).toMatchObject({ scored: 1, pending: 0, resample: { calls: { shutdown: 1 }, inFlight: 0 } });
    expect(identityHolds(s)).toBe(true);
    expect(evaluateSpans(otel)[0]?.attributes).toMatchObject({ "groundwatch.entropy.reliable": false, "groundwatch.resample.outcome": "shutdown" });
    expect(problems).toEqual([]);
  });

  it("counts drawn samples in the queue's byte budget, and scores without them when they do not fit", async () => {
    const otel = testOtel();
    const big = Array.from({ length: 5 }, (_, i) => `Returns are accepted within ${i + 30} days. ${"x".repeat(400)}`);
    const evaluations: CompletedEvaluation[] = [];
    const monitor = monitorWith(otel, { sample: () => Promise.resolve(big) }, { queueBytes: 1024, onEvaluation: (e) => void evaluations.push(e) });
    monitor.observe(OBS);
    await monitor.flush();
    expect(evaluateSpans(otel)[0]?.attributes).toMatchObject({ "groundwatch.entropy.reliable": false, "groundwatch.resample.outcome": "ok" });
    expect(evaluations[0]?.result.entropy?.reasons[0]).toMatch(/did not fit the queue's byte budget \(queueBytes\)/);
    expect(monitor.health().queue.bytes).toBe(0);

    // Samples that fit are held in the byte count until the observation is scored: with a low
    // scoring share, the second observation waits (samples drawn) while the first one's cooldown runs.
    const held = monitorWith(otel, { sample: () => Promise.resolve(CONSISTENT) }, { scoringShare: 0.01 });
    await held.ready();
    held.observe(OBS);
    held.observe(OBS);
    await until(() => held.stats().resample.calls.ok === 2, "both drawn");
    const withSamples = OBS.answer.length + CONTEXT[0]!.length + OBS.question.length + CONSISTENT.join("").length;
    expect([withSamples, 2 * withSamples]).toContain(held.health().queue.bytes);
  });

  it("does not let the sampler change the observation: the request is a frozen copy", async () => {
    const otel = testOtel();
    let refused = false;
    const monitor = monitorWith(otel, {
      sample: (req) => {
        try {
          (req.context as string[])[0] = "Returns are accepted within 90 days.";
        } catch {
          refused = true;
        }
        return Promise.resolve(CONSISTENT);
      },
    });
    monitor.observe(OBS);
    await monitor.flush();
    expect(refused).toBe(true);
    expect(evaluateSpans(otel)[0]?.attributes["groundwatch.verdict"]).toBe("grounded");
  });
});

describe("observations without a question", () => {
  it("are not resampled: counted no_question, scored without entropy, the sampler never called", async () => {
    const otel = testOtel();
    let calls = 0;
    const monitor = monitorWith(otel, {
      sample: () => {
        calls++;
        return Promise.resolve(CONSISTENT);
      },
    });
    monitor.observe({ route: OBS.route, context: OBS.context, answer: OBS.answer });
    monitor.observe({ ...OBS, question: "   " });
    await monitor.flush();
    expect(calls).toBe(0);
    expect(monitor.stats()).toMatchObject({ scored: 2, resample: { calls: { no_question: 2, ok: 0 } } });
    expect(await resampleCalls(otel)).toEqual([[OBS.route, "no_question", 2]]);
    expect(evaluateSpans(otel).every((s) => s.attributes["groundwatch.entropy.reliable"] === undefined)).toBe(true);
  });
});
