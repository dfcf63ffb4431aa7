import { GroundwatchError } from "../errors/groundwatch-error.ts";

/** A configuration value is missing or invalid; the message names the field and the value. */
export class ConfigError extends GroundwatchError {
  override readonly name = "ConfigError";
  override readonly code: "config" | "onnx_runtime_missing" = "config";
  constructor(
    readonly field: string,
    readonly value: unknown,
    /** What was expected, or what is wrong, in words (without the field and value). */
    readonly expected: string,
  ) {
    super(`invalid ${field}: ${JSON.stringify(value)} (${expected})`);
  }
}

export function isConfigError(error: unknown): error is ConfigError {
  return error instanceof Error && error.name === "ConfigError" && "field" in error;
}
