import { readFileSync } from "node:fs";
import { ConfigError } from "./errors.ts";
import type { ScoreOptions } from "./score-options.ts";
import { SCORE_OPTION_KEYS } from "./score-options.ts";

/** The parts of a groundwatch config file this version reads. */
export interface ConfigFile {
  readonly scoring?: ScoreOptions;
}

/** Reads a JSON config file; unknown keys are errors, so a typo never passes silently. */
export function loadConfigFile(path: string): ConfigFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new ConfigError("--config", path, `cannot read it as JSON: ${(error as Error).message}`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new ConfigError("--config", path, "expected a JSON object");
  for (const key of Object.keys(parsed)) {
    if (key !== "scoring") throw new ConfigError(`config file key "${key}"`, (parsed as Record<string, unknown>)[key], "unknown key; expected \"scoring\"");
  }
  const scoring = (parsed as { scoring?: unknown }).scoring;
  if (scoring === undefined) return {};
  if (!scoring || typeof scoring !== "object" || Array.isArray(scoring)) throw new ConfigError("config file scoring", scoring, "expected an object");
  for (const key of Object.keys(scoring)) {
    if (!SCORE_OPTION_KEYS.has(key)) throw new ConfigError(`config file scoring.${key}`, (scoring as Record<string, unknown>)[key], `unknown key; expected one of ${[...SCORE_OPTION_KEYS].join(", ")}`);
  }
  return { scoring: scoring as ScoreOptions };
}
