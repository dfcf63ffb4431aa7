import { ROOT_CONTEXT, TraceFlags, trace } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { METRICS } from "../../src/telemetry/semconv.ts";
import { testOtel } from "../helpers/otel.ts";
import { testMonitor } from "../helpers/monitor.ts";

const CONTEXT = ["Returns are accepted within 30 days of delivery for a full refund."];
const GOOD = { context: CONTEXT, answer: "Returns are accepted within 30 days of delivery." };
const BAD = { context: CONTEXT, answer: "Returns are accepted within 90 days of delivery." };

describe("Monitor.flagged", () => {
  it("keeps an answer that is not grounded with its evaluation span's ids and claim offsets, and no text without capture", async () => {
    const otel = testOtel();
    const monitor = testMonitor(otel, { sampling: { default: 1 } });
    monitor.observe({ route: "/api/returns", ...GOOD });
    monitor.observe({ route: "/api/returns", ...BAD });
    await monitor.flush();

    const flagged = monitor.flagged();
    expect(flagged).toHaveLength(1);
    const span = otel.spans.getFinishedSpans().find((s) => s.attributes["groundwatch.verdict"] === "ungrounded");
    expect(flagged[0]).toMatchObject({ traceId: span?.spanContext().traceId, spanId: span?.spanContext().spanId, route: "/api/returns", verdict: "ungrounded" });
    expect(typeof flagged[0]?.score).toBe("number");
    expect(Number.isNaN(Date.parse(flagged[0]?.time ?? ""))).toBe(false);
    const claim = flagged[0]?.claims[0];
    expect(claim).toMatchObject({ verdict: "contradicted", evidence: { doc: 0 } });
    expect(BAD.answer.slice(claim?.start, claim?.end)).toContain("90 days");
    expect(JSON.stringify(flagged)).not.toContain("90 days");
    expect(claim).not.toHaveProperty("text");
  });

  it("carries claim and evidence text, redacted, with content capture on", async () => {
    const otel = testOtel();
    const monitor = testMonitor(otel, { sampling: { default: 1 }, captureContent: true, redact: (t) => t.replace(/\d+/g, "#") });
    monitor.observe({ route: "/api/returns", ...BAD });
    await monitor.flush();
    const [claim] = monitor.flagged()[0]?.claims ?? [];
    expect(claim?.text).toContain("# days");
    expect(claim?.evidenceText).toContain("# days");
    expect(JSON.stringify(monitor.flagged())).not.toMatch(/\d+ days/);
  });

  it("keeps no text when the redact hook throws", async () => {
    const otel = testOtel();
    const monitor = testMonitor(otel, { sampling: { default: 1 }, captureContent: true, redact: () => { throw new Error("no"); } });
    monitor.observe({ route: "/api/returns", ...BAD });
    await monitor.flush();
    expect(monitor.flagged()[0]?.claims[0]).not.toHaveProperty("text");
  });

  it("filters by route and counts what its per-route cap lets go on the metrics", async () => {
    const otel = testOtel();
    const monitor = testMonitor(otel, { sampling: { default: 1 }, flaggedPerRoute: 1 });
    monitor.observe({ route: "/a", ...BAD });
    monitor.observe({ route: "/a", ...BAD });
    monitor.observe({ route: "/b", ...BAD });
    await monitor.flush();
    expect(monitor.flagged({ route: "/a" })).toHaveLength(1);
    expect(monitor.flagged().map((f) => f.route).sort()).toEqual(["/a", "/b"]);
    expect(monitor.flagged({ limit: 1 })).toHaveLength(1);
    const metrics = await otel.metrics();
    expect(metrics.get(METRICS.flaggedDropped.name)).toEqual([{ attributes: { "groundwatch.reason": "route_full" }, value: 1 }]);
  });

  it("records under the parent context observe() is given, outside any active span", async () => {
    const otel = testOtel();
    const monitor = testMonitor(otel, { sampling: { default: 1 } });
    const traceId = "5b8efff798038103d269b633813fc60c";
    const parent = trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId: "aaaaaaaaaaaaaaaa", traceFlags: TraceFlags.SAMPLED, isRemote: true });
    monitor.observe(BAD, { route: "/api/returns", parent });
    await monitor.flush();
    expect(monitor.flagged()[0]?.traceId).toBe(traceId);
    expect(otel.spans.getFinishedSpans()[0]?.parentSpanContext?.spanId).toBe("aaaaaaaaaaaaaaaa");
  });

  it("rejects a bad flaggedPerRoute naming it", () => {
    expect(() => testMonitor(testOtel(), { flaggedPerRoute: -1 })).toThrow(/flaggedPerRoute/);
  });
});
