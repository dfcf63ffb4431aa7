import { DiagLogLevel } from "@opentelemetry/api";

const DIAG_LEVELS: Readonly<Record<string, DiagLogLevel>> = {
  NONE: DiagLogLevel.NONE,
  ERROR: DiagLogLevel.ERROR,
  WARN: DiagLogLevel.WARN,
  INFO: DiagLogLevel.INFO,
  DEBUG: DiagLogLevel.DEBUG,
  VERBOSE: DiagLogLevel.VERBOSE,
  ALL: DiagLogLevel.ALL,
};

/** OTEL_LOG_LEVEL (none, error, warn, info, debug, verbose, all; any case), else warn: read once here for every command. */
export function otelLogLevel(env: NodeJS.ProcessEnv): DiagLogLevel {
  return DIAG_LEVELS[String(env.OTEL_LOG_LEVEL ?? "").trim().toUpperCase()] ?? DiagLogLevel.WARN;
}
