import { DiagLogLevel } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { otelLogLevel } from "../../src/cli/shared/log-level.ts";

describe("OTEL_LOG_LEVEL, read once for every command", () => {
  it("takes the OpenTelemetry level names in any case, and warn when unset or unknown", () => {
    expect(otelLogLevel({ OTEL_LOG_LEVEL: " debug " })).toBe(DiagLogLevel.DEBUG);
    expect(otelLogLevel({ OTEL_LOG_LEVEL: "ALL" })).toBe(DiagLogLevel.ALL);
    expect(otelLogLevel({ OTEL_LOG_LEVEL: "none" })).toBe(DiagLogLevel.NONE);
    expect(otelLogLevel({})).toBe(DiagLogLevel.WARN);
    expect(otelLogLevel({ OTEL_LOG_LEVEL: "loud" })).toBe(DiagLogLevel.WARN);
  });
});
