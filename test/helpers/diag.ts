import type { DiagLogger } from "@opentelemetry/api";
import { DiagLogLevel, diag } from "@opentelemetry/api";
import { onTestFinished } from "vitest";

/** Warnings that reach the OpenTelemetry diag logger while the test runs; the logger is removed when it ends. */
export function captureWarnings(): string[] {
  const warnings: string[] = [];
  const ignore = (): void => undefined;
  const logger: DiagLogger = { error: ignore, warn: (message) => warnings.push(message), info: ignore, debug: ignore, verbose: ignore };
  diag.setLogger(logger, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
  onTestFinished(() => diag.disable());
  return warnings;
}
