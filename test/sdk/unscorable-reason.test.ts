import { describe, expect, it, onTestFinished } from "vitest";
import { createMonitor } from "../../src/sdk/monitor.ts";
import { METRICS } from "../../src/telemetry/semconv.ts";
import { testOtel } from "../helpers/otel.ts";

const ENGLISH = ["Returns: unopened items can be returned within 30 days of delivery for a full refund."];

describe("an unscorable answer on the monitor's telemetry", () => {
  it("counts a Chinese answer to English documents as unscorable with reason language_mismatch, on the span and the evaluations metric", async () => {
    const otel = testOtel();
    const monitor = createMonitor({
      env: { HF_HOME: "/nonexistent/groundwatch-test-hf-home" },
      scoring: { backend: "offline" },
      sampling: { default: 1 },
      tracerProvider: otel.tracerProvider,
      meterProvider: otel.meterProvider,
      loggerProvider: otel.loggerProvider,
    });
    onTestFinished(() => monitor.shutdown(1000));
    monitor.observe({ route: "/ask", context: ENGLISH, answer: "未开封的商品可在交货后30天内退货，并获得全额退款。" });
    monitor.observe({ route: "/ask", context: ENGLISH, answer: "Unopened items can be returned within 30 days of delivery for a full refund." });
    await monitor.flush();

    const spans = otel.spans.getFinishedSpans().filter((s) => s.name === "groundwatch.evaluate");
    expect(spans.map((s) => [s.attributes["groundwatch.verdict"], s.attributes["groundwatch.reason"]]).sort()).toEqual([
      ["grounded", undefined],
      ["unscorable", "language_mismatch"],
    ]);
    const points = (await otel.metrics()).get(METRICS.evaluations.name) ?? [];
    expect(points.map((p) => [p.attributes["groundwatch.verdict"], p.attributes["groundwatch.reason"], p.value]).sort()).toEqual([
      ["grounded", undefined, 1],
      ["unscorable", "language_mismatch", 1],
    ]);
  });
});
