import { ConfigError } from "../config/errors.ts";
import type { ConfigFile } from "../config/file.ts";
import { loadConfigFile } from "../config/file.ts";
import type { AttributeMapping, PromptContext } from "./extract.ts";

/** Options of the collector service (`groundwatch serve`). Resolution: option/flag > env > config file > default. */
export interface CollectorOptions {
  /** Address to bind. Default 127.0.0.1; any other address requires `token`. Env GROUNDWATCH_HOST. */
  readonly host?: string;
  /** Port. Default 4319 (0 = any free port). Env GROUNDWATCH_PORT. */
  readonly port?: number;
  /**
   * Bearer token required on ingest and /metrics. Env GROUNDWATCH_TOKEN (never put it in a file you
   * commit). Binding another address than loopback needs one of at least 16 characters.
   */
  readonly token?: string;
  /** Largest request body, e.g. "1mb". Default 2mb. */
  readonly bodyLimit?: string;
  /** Most documents in one observation. Default 200. */
  readonly maxDocuments?: number;
  /** Longest answer in characters. Default 50 000. */
  readonly maxAnswerChars?: number;
  /** Most observations per /v1/observations request. Default 500. */
  readonly maxBatch?: number;
  /** How long a trace waits for its remaining spans, ms. Default 5000. */
  readonly traceTimeoutMs?: number;
  /** Traces held while joining. Default 10 000. */
  readonly maxTraces?: number;
  /** Text one trace may hold while joining (characters ≈ bytes); a trace over it is not scored (`trace_too_large`). Default 4 MiB. */
  readonly maxTraceBytes?: number;
  /**
   * Text all traces being joined may hold together; over it the oldest are settled early
   * (`buffer_full`) and trace and log requests that would not fit get 429. Default 64 MiB.
   */
  readonly maxBufferBytes?: number;
  /** On SIGTERM, how long to drain the queue before exiting, ms. Default 10 000. */
  readonly drainMs?: number;
  /** Log request bodies on errors (off by default: no raw text in logs). */
  readonly logContent?: boolean;
  /** Extra span attributes to read documents, question and answer from (also looked up in span events and log records). */
  readonly attributeMapping?: AttributeMapping;
  /**
   * Documents inside the prompt, for traces with an answer but no retrieved documents (opt-in):
   * "off" (default); "system": the system message(s) of the LLM input are the context; or a regular
   * expression with a named group `context` (and optionally `question`) applied to each input message,
   * e.g. "Documents:\n(?<context>[\s\S]*?)\n\nQuestion:". Env GROUNDWATCH_PROMPT_CONTEXT.
   */
  readonly promptContext?: string;
  readonly configFile?: string;
  readonly env?: NodeJS.ProcessEnv;
}

export interface ResolvedCollectorOptions {
  readonly host: string;
  readonly port: number;
  readonly token: string | undefined;
  readonly bodyLimit: string;
  readonly maxDocuments: number;
  readonly maxAnswerChars: number;
  readonly maxBatch: number;
  readonly traceTimeoutMs: number;
  readonly maxTraces: number;
  readonly maxTraceBytes: number;
  readonly maxBufferBytes: number;
  readonly drainMs: number;
  readonly logContent: boolean;
  readonly attributeMapping: AttributeMapping;
  readonly promptContext: PromptContext;
  readonly file: ConfigFile;
  readonly configFile: string | undefined;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);
/** The shortest bearer token accepted on an address other than loopback. */
export const MIN_TOKEN_LENGTH = 16;

function int(field: string, v: unknown, min: number, max: number): number | undefined {
  if (v === undefined || v === "") return undefined;
  const n = typeof v === "string" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max) throw new ConfigError(field, v, `expected an integer from ${min} to ${max}`);
  return n;
}

/** Validates a promptContext setting: "off", "system", or a regular expression with a named group `context`. */
export function parsePromptContext(field: string, v: unknown): PromptContext {
  if (typeof v !== "string" || v.trim() === "") throw new ConfigError(field, v, 'expected "off", "system" or a regular expression with a named group (?<context>...)');
  if (v === "off") return { mode: "off" };
  if (v === "system") return { mode: "system" };
  let pattern: RegExp;
  try {
    pattern = new RegExp(v);
  } catch (error) {
    throw new ConfigError(field, v, `not "off", "system" or a valid regular expression (${(error as Error).message})`);
  }
  // With an empty alternative the pattern always matches, and the groups object lists every named group.
  if (!("context" in (new RegExp(`${v}|`).exec("")?.groups ?? {}))) throw new ConfigError(field, v, "the regular expression needs a named group (?<context>...) that captures the documents");
  return { mode: "regex", pattern };
}

/** Resolves and validates; refuses a non-loopback bind without a token. */
export function resolveCollectorOptions(options: CollectorOptions = {}): ResolvedCollectorOptions {
  const env = options.env ?? process.env;
  const configFile = options.configFile ?? (env.GROUNDWATCH_CONFIG || undefined);
  const file = configFile ? loadConfigFile(configFile) : {};
  const c = file.collector ?? {};
  const pickInt = (key: keyof CollectorOptions & keyof typeof c, envName: string | undefined, min: number, max: number, fallback: number): number =>
    int(key, options[key], min, max) ?? int(envName ?? key, envName ? env[envName] : undefined, min, max) ?? int(`config file collector.${key}`, c[key], min, max) ?? fallback;
  const host = options.host ?? (env.GROUNDWATCH_HOST || undefined) ?? (typeof c.host === "string" ? c.host : undefined) ?? "127.0.0.1";
  // Surrounding whitespace (a newline from a secrets file) is not part of the token; a blank one is none.
  const token = (options.token ?? env.GROUNDWATCH_TOKEN)?.trim() || undefined;
  if (!LOOPBACK.has(host) && token === undefined) {
    throw new ConfigError("host", host, "binding an address other than 127.0.0.1 needs a bearer token: set GROUNDWATCH_TOKEN");
  }
  if (!LOOPBACK.has(host) && token !== undefined && token.length < MIN_TOKEN_LENGTH) {
    // The value is a secret: the message gives its length, never the token.
    throw new ConfigError(options.token !== undefined ? "token" : "GROUNDWATCH_TOKEN", `(${token.length} characters)`, `a bearer token on an address other than 127.0.0.1 must be at least ${MIN_TOKEN_LENGTH} characters; use a random one, e.g. \`openssl rand -hex 32\``);
  }
  const mapping = options.attributeMapping ?? (c.attributeMapping as AttributeMapping | undefined) ?? {};
  for (const key of ["documents", "question", "answer"] as const) {
    const v = mapping[key];
    if (v !== undefined && (!Array.isArray(v) || !v.every((x) => typeof x === "string"))) throw new ConfigError(`attributeMapping.${key}`, v, "expected an array of attribute names");
  }
  const promptContextField = options.promptContext !== undefined ? "promptContext" : env.GROUNDWATCH_PROMPT_CONTEXT ? "GROUNDWATCH_PROMPT_CONTEXT (promptContext)" : "config file collector.promptContext";
  const promptContext = parsePromptContext(promptContextField, options.promptContext ?? (env.GROUNDWATCH_PROMPT_CONTEXT || undefined) ?? c.promptContext ?? "off");
  const bodyLimit = options.bodyLimit ?? (typeof c.bodyLimit === "string" ? c.bodyLimit : undefined) ?? "2mb";
  if (!/^\d+(b|kb|mb)$/i.test(bodyLimit)) throw new ConfigError("bodyLimit", bodyLimit, 'expected a size such as "512kb" or "2mb"');
  const maxTraceBytes = pickInt("maxTraceBytes", undefined, 1024, 2 ** 40, 4 * 1024 * 1024);
  const maxBufferBytes = pickInt("maxBufferBytes", undefined, 1024, 2 ** 40, 64 * 1024 * 1024);
  if (maxTraceBytes > maxBufferBytes) throw new ConfigError("maxTraceBytes", maxTraceBytes, `expected at most maxBufferBytes (${maxBufferBytes})`);
  return {
    host,
    port: pickInt("port", "GROUNDWATCH_PORT", 0, 65535, 4319),
    token,
    bodyLimit,
    maxDocuments: pickInt("maxDocuments", undefined, 1, 100_000, 200),
    maxAnswerChars: pickInt("maxAnswerChars", undefined, 1, 10_000_000, 50_000),
    maxBatch: pickInt("maxBatch", undefined, 1, 100_000, 500),
    traceTimeoutMs: pickInt("traceTimeoutMs", undefined, 1, 3_600_000, 5000),
    maxTraces: pickInt("maxTraces", undefined, 1, 10_000_000, 10_000),
    maxTraceBytes,
    maxBufferBytes,
    drainMs: pickInt("drainMs", undefined, 0, 3_600_000, 10_000),
    logContent: options.logContent ?? (c.logContent === true),
    attributeMapping: mapping,
    promptContext,
    file,
    configFile,
  };
}
