import { describe, expect, it } from "vitest";
import { groundwatchMiddleware, observeRequest } from "../../src/sdk/express.ts";
import type { ObserveInput } from "../../src/sdk/types.ts";
import { METRICS } from "../../src/telemetry/semconv.ts";
import { testOtel } from "../helpers/otel.ts";
import type { TestOtel } from "../helpers/otel.ts";
import { testMonitor as monitorWith } from "../helpers/monitor.ts";

const GOOD = { context: ["Returns are accepted within 30 days of delivery for a full refund."], answer: "Returns are accepted within 30 days of delivery." };

async function seenRoutes(otel: TestOtel): Promise<Record<string, unknown>> {
  const points = (await otel.metrics()).get(METRICS.seen.name) ?? [];
  return Object.fromEntries(points.map((p) => [String(p.attributes["groundwatch.route"]), p.value]));
}

describe("observe(input, { route }): the route apart from the host's input", () => {
  it("records under the given route, and still under input.route when none is given", async () => {
    const otel = testOtel();
    const monitor = monitorWith(otel, { sampling: { default: 1 } });
    monitor.observe(GOOD, { route: "/given" });
    monitor.observe({ route: "/in-input", ...GOOD });
    // Given both ways, the option wins: the express helper's route is the request's, whatever the input holds.
    monitor.observe({ route: "/ignored", ...GOOD } as ObserveInput, { route: "/given" });
    await monitor.flush();
    expect(await seenRoutes(otel)).toEqual({ "/given": 2, "/in-input": 1 });
    expect(monitor.stats()).toMatchObject({ seen: 3, scored: 3 });
  });

  it("counts a route option whose getter throws as invalid input, never throwing into the host", async () => {
    const otel = testOtel();
    const monitor = monitorWith(otel, { sampling: { default: 1 } });
    const hostile = Object.defineProperty({}, "route", {
      get: () => {
        throw new Error("no route for you");
      },
    }) as { route: string };
    expect(() => monitor.observe(GOOD, hostile)).not.toThrow();
    await monitor.flush();
    expect(monitor.stats()).toMatchObject({ seen: 1, sampled: 1, failed: { invalid_input: 1 } });
  });
});

describe("express helpers pass the request's route apart from the input", () => {
  it("observeRequest reads every field of the input as observe() does: the sample override, the question, span attributes", async () => {
    const otel = testOtel();
    const monitor = monitorWith(otel, { sampling: { default: 0 } });
    const req = { baseUrl: "/api", route: { path: "/advice/:id" } };
    observeRequest(monitor, req, { ...GOOD, question: "How long do I have to return an item?", attributes: { "app.tenant": "t1" }, sample: "always" });
    observeRequest(monitor, req, GOOD);
    await monitor.flush();
    expect(monitor.stats()).toMatchObject({ seen: 2, sampled: 1, notSampled: 1, scored: 1 });
    expect(await seenRoutes(otel)).toEqual({ "/api/advice/:id": 2 });
    const span = otel.spans.getFinishedSpans().find((s) => s.name === "groundwatch.evaluate");
    expect(span?.attributes).toMatchObject({ "groundwatch.route": "/api/advice/:id", "app.tenant": "t1" });
  });

  it("the middleware's req.groundwatch.observe records under the matched route template", async () => {
    const otel = testOtel();
    const monitor = monitorWith(otel, { sampling: { default: 1 } });
    const req: Parameters<ReturnType<typeof groundwatchMiddleware>>[0] = { baseUrl: "/api", route: { path: "/returns" } };
    let nexted = false;
    groundwatchMiddleware(monitor)(req, {}, () => (nexted = true));
    expect(nexted).toBe(true);
    req.groundwatch?.observe(GOOD);
    await monitor.flush();
    expect(await seenRoutes(otel)).toEqual({ "/api/returns": 1 });
    expect(monitor.stats().scored).toBe(1);
  });
});
