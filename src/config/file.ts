import { createRequire } from "node:module";
import type { parse as ParseYaml } from "yaml";
import { COLLECTOR_ENV, CONFIG_FILE_ENV } from "./env.ts";
import { ConfigError } from "./errors.ts";
import type { ScoreOptions } from "./score-options.ts";
import { SCORE_OPTION_KEYS } from "./score-options.ts";
import { readTextFile } from "./text-file.ts";
import { isPlainObject } from "../core/plain-object.ts";

/**
 * One config file for the CLI, the SDK and the collector: "scoring" (backend, model,
 * thresholds…), "sampling" (default rate and per-route rates), "monitor" (queue, workers,
 * capture…) and "collector" (bind address, limits, trace joining).
 */
export interface ConfigFile {
  readonly scoring?: ScoreOptions;
  readonly sampling?: { readonly default?: number; readonly routes?: Readonly<Record<string, number>> };
  readonly monitor?: Readonly<Record<string, unknown>>;
  readonly collector?: Readonly<Record<string, unknown>>;
  /** The release gate of `groundwatch eval` (flags override it). */
  readonly eval?: { readonly maxHallucinationRate?: number; readonly minGroundedShare?: number; readonly minMeanScore?: number; readonly maxUnscorableShare?: number; readonly maxCitationErrorRate?: number };
}

const SECTIONS: Record<keyof ConfigFile, ReadonlySet<string>> = {
  scoring: SCORE_OPTION_KEYS,
  sampling: new Set(["default", "routes"]),
  collector: new Set([
    ...["host", "port", "bodyLimit", "maxDocuments", "maxAnswerChars", "maxBatch", "guardConcurrency", "traceTimeoutMs", "maxTraceAgeMs", "maxTraces", "maxTraceBytes", "maxBufferBytes", "drainMs", "logContent", "attributeMapping", "promptContext"],
    // The HTTP server's timeouts and connection caps, and the probe listener.
    ...["headersTimeoutMs", "requestTimeoutMs", "keepAliveTimeoutMs", "maxConnections", "maxConnectionsPerAddress", "healthPort"],
    // TLS: the certificate and key files (their paths: the key itself is never in the config file).
    ...["tlsCertFile", "tlsKeyFile", "tlsReloadMs"],
    // How far `groundwatch serve`'s JS heaps grow between full collections.
    "heapGrowthPercent",
    // The resampler (live semantic entropy); its API key is read from GROUNDWATCH_RESAMPLE_API_KEY only.
    ...["resampleUrl", "resampleModel", "resampleN", "resampleRate", "resampleTemperature", "resampleMaxTokens", "resampleMaxConcurrent", "resampleMaxCallsPerMinute", "resampleTimeoutMs", "resampleBudget"],
    // The other replicas (GET /v1/flagged over the deployment) and the bounds of a call to one.
    ...["peers", "peersDns", "peersServerName", "peersCaFile", "peerTimeoutMs", "peerMaxBytes"],
  ]),
  eval: new Set(["maxHallucinationRate", "minGroundedShare", "minMeanScore", "maxUnscorableShare", "maxCitationErrorRate"]),
  monitor: new Set(["calibrationFile", "queueSize", "queueBytes", "workers", "inFlightPerWorker", "timeoutMs", "scoringShare", "maxRoutes", "captureContent", "contentMaxLength", "flaggedPerRoute", "flaggedMaxBytes", "spanEvent", "openInference", "spanRelation", "drift", "requireValidCalibration", "review", "guard"]),
};

/** The YAML parser, loaded only for YAML files: it costs ~40 ms of start-up that JSON users never need. */
function parseYaml(text: string): unknown {
  const { parse } = createRequire(import.meta.url)("yaml") as { parse: typeof ParseYaml };
  return parse(text);
}

/** Reads a JSON or YAML (.yaml, .yml) config file; unknown sections and keys are errors, so a typo never passes silently. */
export function loadConfigFile(path: string): ConfigFile {
  const yaml = /\.ya?ml$/i.test(path);
  let parsed: unknown;
  try {
    const text = readTextFile(path);
    parsed = yaml ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    throw new ConfigError("config file", path, `cannot read it as ${yaml ? "YAML" : "JSON"}: ${(error as Error).message}`);
  }
  if (!isPlainObject(parsed)) throw new ConfigError("config file", path, "expected a JSON object");
  const file = parsed as Record<string, unknown>;
  for (const [section, value] of Object.entries(file)) {
    const keys = SECTIONS[section as keyof ConfigFile] as ReadonlySet<string> | undefined;
    if (!keys) throw new ConfigError(`config file key "${section}"`, value, `unknown section; expected ${Object.keys(SECTIONS).join(", ")}`);
    if (!isPlainObject(value)) throw new ConfigError(`config file ${section}`, value, "expected an object");
    for (const key of Object.keys(value)) {
      // A secret is never read from a file, nor echoed from one in an error.
      if (!keys.has(key) && section === "collector" && /api.?key|token|secret|password/i.test(key)) {
        throw new ConfigError(`config file collector.${key}`, "***", `secrets are read from the environment only: ${COLLECTOR_ENV.resampleApiKey} for the resampler, ${COLLECTOR_ENV.token} for the collector's bearer token`);
      }
      if (!keys.has(key)) throw new ConfigError(`config file ${section}.${key}`, (value as Record<string, unknown>)[key], `unknown key; expected one of ${[...keys].join(", ")}`);
    }
  }
  return file as ConfigFile;
}

/** The config file in force: its path (the option, else GROUNDWATCH_CONFIG) and its content, read once. */
export interface LoadedConfig {
  readonly path: string | undefined;
  readonly file: ConfigFile;
}

/**
 * Reads the config file an edge names (its option, else GROUNDWATCH_CONFIG), once: an edge that
 * resolves several option sets (serve: the collector's and the monitor's) hands the same one to each.
 */
export function loadConfig(option: string | undefined, env: NodeJS.ProcessEnv): LoadedConfig {
  const path = option ?? (env[CONFIG_FILE_ENV] || undefined);
  return { path, file: path ? loadConfigFile(path) : {} };
}
