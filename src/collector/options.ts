import { ConfigError } from "../config/errors.ts";
import type { ConfigFile } from "../config/file.ts";
import type { LoadedConfig } from "../config/file.ts";
import { loadConfig } from "../config/file.ts";
import { COLLECTOR_ENV } from "../config/env.ts";
import { compileLinearPattern } from "../config/linear-pattern.ts";
import { integerIn, numberIn, parseByteSize, parseBoolean, parseNonEmpty } from "../config/parse.ts";
import type { FieldReader, PickedValue } from "../config/resolve.ts";
import { fieldReader } from "../config/resolve.ts";
import { DEFAULT_HEAP_GROWTH_PERCENT, MAX_HEAP_GROWTH_PERCENT } from "./heap.ts";
import type { ResolvedPeerOptions } from "./peer-options.ts";
import { resolvePeerOptions } from "./peer-options.ts";
import type { ResolvedTls } from "./tls.ts";
import { resolveTls } from "./tls.ts";
import type { AttributeMapping, PromptContext } from "./trace-parts.ts";
import { MIN_TOKEN_LENGTH, bindRefusal, isLoopbackBind } from "../net/bind-policy.ts";

/** The port `groundwatch serve` (and `demo`) listens on when none is given. */
export const DEFAULT_COLLECTOR_PORT = 4319;

/** Options of the collector service (`groundwatch serve`). Resolution: option/flag > env > config file > default. */
export interface CollectorOptions {
  /** Address to bind. Default 127.0.0.1; any other address requires `token`. Env GROUNDWATCH_HOST. */
  readonly host?: string;
  /** Port. Default 4319 (0 = any free port). Env GROUNDWATCH_PORT. */
  readonly port?: number;
  /**
   * Port of a second listener, on the same address, that answers only GET /healthz and /readyz: the
   * orchestrator's probes, kept apart from ingest so that connections holding the main port cannot
   * fail them (and restart a healthy pod). It takes at most 64 connections, 8 from one address, and
   * waits at most 2 s for a request. Default: none (off); /healthz and /readyz are answered on
   * `port` either way. 0 = any free port. Env GROUNDWATCH_HEALTH_PORT.
   */
  readonly healthPort?: number;
  /**
   * TLS: the PEM certificate (chain, the server's own first) that `port` serves https with; needs
   * tlsKeyFile. Read at start (a file that cannot be read or is not a valid pair: ConfigError) and
   * checked again every tlsReloadMs. The probe listener (healthPort) stays plain http. Default: none
   * (plain http). Env GROUNDWATCH_TLS_CERT_FILE; in the config file, relative to the file's folder.
   */
  readonly tlsCertFile?: string;
  /** The PEM private key of tlsCertFile (unencrypted); needs it. Env GROUNDWATCH_TLS_KEY_FILE. */
  readonly tlsKeyFile?: string;
  /** How often the TLS files are checked for a new certificate (cert-manager's renewal), ms; 0 = only at start (and on SIGHUP to `serve`). Default 60 000. */
  readonly tlsReloadMs?: number;
  /**
   * Bearer token required on ingest and /metrics, at least 16 characters. Env GROUNDWATCH_TOKEN
   * (never put it in a file you commit). Binding another address than loopback needs one.
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
  /**
   * Most POST /v1/guard checks in flight at once, 1–10 000. A request over it is answered at once with
   * a bypass, reason `saturated` (its outcome as the request's onFail says), never queued. Default 16.
   */
  readonly guardConcurrency?: number;
  /** How long a trace waits for its remaining spans, ms. Default 5000. */
  readonly traceTimeoutMs?: number;
  /**
   * Longest a trace is held from its first record, ms, however recently a record arrived: then it is
   * scored if complete, else counted with its reason (later records count as `late`). At least
   * traceTimeoutMs. Default 6 × traceTimeoutMs (30 000).
   */
  readonly maxTraceAgeMs?: number;
  /**
   * Traces held while joining. Default 10 000. A new trace beyond it evicts the oldest incomplete one
   * (`buffer_full`); ingest answers 429 only when the buffer is full of complete traces waiting for
   * the scoring queue.
   */
  readonly maxTraces?: number;
  /** Text one trace may hold while joining (characters ≈ bytes); a trace over it is not scored (`trace_too_large`). Default 4 MiB. */
  readonly maxTraceBytes?: number;
  /**
   * Text all traces being joined may hold together; over it the oldest incomplete ones are evicted
   * (`buffer_full`); trace and log requests get 429 only when the text of complete traces waiting for
   * the scoring queue leaves no room. Default 64 MiB.
   */
  readonly maxBufferBytes?: number;
  /** Longest wait for a request's headers, ms (a slower client gets 408 and is disconnected; with TLS, a handshake not done by then is cut off). Default 10 000. At most requestTimeoutMs. */
  readonly headersTimeoutMs?: number;
  /** Longest wait for a whole request, headers and body, ms (a body trickling in is cut off with 408). Default 60 000. */
  readonly requestTimeoutMs?: number;
  /** How long an idle keep-alive connection stays open, ms. Default 5000. */
  readonly keepAliveTimeoutMs?: number;
  /** Most connections open at once; one over it is closed at once (counted as too_many_connections). Default 1024. */
  readonly maxConnections?: number;
  /**
   * Most connections open at once from one address (an IPv6 /64), at most maxConnections; one over
   * it is closed at once (counted as too_many_per_address), so that one peer cannot take every
   * connection. Default 256, or maxConnections when that is smaller.
   */
  readonly maxConnectionsPerAddress?: number;
  /** On SIGTERM, how long to drain the queue before exiting, ms. Default 10 000. */
  readonly drainMs?: number;
  /**
   * How far `groundwatch serve`'s JS heaps (the main thread's and each scoring worker's) may grow past
   * what a full garbage collection left live before the next full collection, in percent, 0–300.
   * Default 100 (DEFAULT_HEAP_GROWTH_PERCENT); 0 leaves it to V8, which lets a busy heap grow up to
   * 4× its live size on a machine with memory to spare. Applied by `groundwatch serve` only (a
   * process-wide V8 setting: startCollector embedded in another program leaves it alone). Env
   * GROUNDWATCH_HEAP_GROWTH_PERCENT.
   */
  readonly heapGrowthPercent?: number;
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
  /**
   * Live semantic entropy: the base URL of an OpenAI-compatible chat API (http or https, e.g.
   * https://api.openai.com/v1) that the collector asks to redraw answers from their trace's question
   * and retrieved documents (src/collector/resampler.ts). Off unless set. Env GROUNDWATCH_RESAMPLE_URL.
   * The API key is read from GROUNDWATCH_RESAMPLE_API_KEY only, never from an option or a file.
   */
  readonly resampleUrl?: string;
  /** The resampler's chat model; required with resampleUrl. Env GROUNDWATCH_RESAMPLE_MODEL. */
  readonly resampleModel?: string;
  /** Answers drawn per resampled observation, 2–20. Default 5. Env GROUNDWATCH_RESAMPLE_N. */
  readonly resampleN?: number;
  /** Share of the observations sampled for scoring that are also resampled, 0–1. Default 1. Env GROUNDWATCH_RESAMPLE_RATE. */
  readonly resampleRate?: number;
  /** Sampling temperature, 0–2 (below 0.5 warns: resamples would be near-identical). Default 1. Env GROUNDWATCH_RESAMPLE_TEMPERATURE. */
  readonly resampleTemperature?: number;
  /** max_tokens of each resampled answer, 1–100 000. Default 1024. */
  readonly resampleMaxTokens?: number;
  /** Resampler calls (one per resampled observation) in flight at once, 1–64. Default 2. */
  readonly resampleMaxConcurrent?: number;
  /** Most resampler calls per minute, 1–100 000; over it an observation is scored without entropy. Default 60. */
  readonly resampleMaxCallsPerMinute?: number;
  /** Time allowed per resampler call (retries included), ms. Default 30 000. */
  readonly resampleTimeoutMs?: number;
  /** Most HTTP requests to the resampler endpoint in the collector's lifetime (retries and separate calls included). Default: no limit. */
  readonly resampleBudget?: number;
  /**
   * The other replicas of this deployment, as base URLs (this one may be listed: it is recognised
   * and skipped): GET /v1/flagged then answers for all of them, merged. A list, or one string of
   * comma-separated URLs. Default: none (each replica answers for itself). Not with peersDns. Env
   * GROUNDWATCH_PEERS.
   */
  readonly peers?: string | readonly string[];
  /**
   * The replicas as a headless Service's `HOST:PORT`, resolved to every address at each call (https
   * when the collector serves TLS). Not with peers. Env GROUNDWATCH_PEERS_DNS.
   */
  readonly peersDns?: string;
  /** The name a peer's TLS certificate is checked for (peers dialled by address need it: no certificate names a pod's address). Default: the URL's host. Env GROUNDWATCH_PEERS_SERVER_NAME. */
  readonly peersServerName?: string;
  /** PEM CA certificates a peer's TLS certificate is checked against (the Secret's ca.crt). Default: Node's trust store. Env GROUNDWATCH_PEERS_CA_FILE; in the config file, relative to its folder. */
  readonly peersCaFile?: string;
  /** The longest one call to a peer may take, headers and body, ms, 1–600 000. Default 2000. Env GROUNDWATCH_PEER_TIMEOUT_MS. */
  readonly peerTimeoutMs?: number;
  /** The most bytes read of one peer's reply, 1024–1 GiB; a longer one is cut off (too_large). Default 8 MiB. Env GROUNDWATCH_PEER_MAX_BYTES. */
  readonly peerMaxBytes?: number;
  readonly configFile?: string;
  readonly env?: NodeJS.ProcessEnv;
}

export interface ResolvedCollectorOptions {
  readonly host: string;
  readonly port: number;
  /** The probe listener's port; undefined when off. */
  readonly healthPort: number | undefined;
  /** TLS on `port`; undefined: plain http. */
  readonly tls: ResolvedTls | undefined;
  readonly token: string | undefined;
  readonly bodyLimit: string;
  readonly maxDocuments: number;
  readonly maxAnswerChars: number;
  readonly maxBatch: number;
  readonly guardConcurrency: number;
  readonly traceTimeoutMs: number;
  readonly maxTraceAgeMs: number;
  readonly maxTraces: number;
  readonly maxTraceBytes: number;
  readonly maxBufferBytes: number;
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly maxConnections: number;
  readonly maxConnectionsPerAddress: number;
  readonly drainMs: number;
  readonly heapGrowthPercent: number;
  readonly logContent: boolean;
  readonly attributeMapping: AttributeMapping;
  readonly promptContext: PromptContext;
  /** The resampler for live semantic entropy; undefined when off (no resampleUrl). */
  readonly resample: ResolvedResampler | undefined;
  /** The other replicas (none configured: empty urls, no dns) and the bounds of a call to one. */
  readonly peers: ResolvedPeerOptions;
  readonly file: ConfigFile;
  readonly configFile: string | undefined;
}

/** The collector's resampler, resolved: see CollectorOptions.resample*. */
export interface ResolvedResampler {
  readonly url: string;
  readonly model: string;
  readonly n: number;
  readonly rate: number;
  readonly temperature: number;
  readonly maxTokens: number;
  readonly maxConcurrent: number;
  readonly maxCallsPerMinute: number;
  readonly timeoutMs: number;
  readonly budget: number | undefined;
  /** From GROUNDWATCH_RESAMPLE_API_KEY only; undefined when unset or blank. */
  readonly apiKey: string | undefined;
  /** Settings that work, but likely not as meant: a low temperature, a remote endpoint without a key, a key over plain http. */
  readonly warnings: readonly string[];
}

/** The environment variable the resampler's API key is read from (never a flag or a file). */
export const RESAMPLE_API_KEY_ENV = COLLECTOR_ENV.resampleApiKey;

/** The ranges of the resampler settings that have flags, for `serve`'s flag checks and resolveCollectorOptions. */
export const RESAMPLE_LIMITS = { n: { min: 2, max: 20 }, rate: { min: 0, max: 1 }, temperature: { min: 0, max: 2 } } as const;

/** Below it, resamples are near-identical: a warning. */
export const LOW_RESAMPLE_TEMPERATURE = 0.5;

const RESAMPLE_KEYS = ["resampleUrl", "resampleModel", "resampleN", "resampleRate", "resampleTemperature", "resampleMaxTokens", "resampleMaxConcurrent", "resampleMaxCallsPerMinute", "resampleTimeoutMs", "resampleBudget"] as const;
type ResampleKey = (typeof RESAMPLE_KEYS)[number];

export { MIN_TOKEN_LENGTH, isLoopbackBind } from "../net/bind-policy.ts";
/** maxConnectionsPerAddress when not set (or maxConnections, when that is smaller). */
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 256;

/** A URL with any password masked, for messages. */
function maskUrl(raw: string): string {
  try {
    const u = new URL(raw);
    if (u.password) u.password = "***";
    return u.href;
  } catch {
    return raw;
  }
}

/** The hostname of an http(s) URL without brackets, lower case. */
const hostOf = (u: URL): string => u.hostname.replace(/^\[|\]$/g, "").toLowerCase();

/**
 * The resampler's settings, option > env > config file (collector section) > default; undefined when
 * no URL is set. A resampler setting without a URL, or a bad value, is a ConfigError naming it.
 */
function resolveResampler(read: FieldReader<ResampleKey>, env: NodeJS.ProcessEnv): ResolvedResampler | undefined {
  /** The value in force and the field it came from, as a ConfigError names it. */
  const from = (key: ResampleKey): PickedValue | undefined => {
    const picked = read.picked(key);
    return picked.source === "default" ? undefined : picked;
  };
  const url = from("resampleUrl");
  if (!url) {
    const stray = RESAMPLE_KEYS.map(from).find((f) => f !== undefined);
    if (stray) throw new ConfigError(stray.field, stray.value, `a resampler setting without a resampler URL does nothing: set --resample-url (${COLLECTOR_ENV.resampleUrl}, config file collector.resampleUrl), or remove it`);
    return undefined;
  }
  let parsed: URL | undefined;
  try {
    parsed = typeof url.value === "string" ? new URL(url.value) : undefined;
  } catch {
    parsed = undefined;
  }
  const shown = typeof url.value === "string" ? maskUrl(url.value) : url.value;
  if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) throw new ConfigError(url.field, shown, "expected an http:// or https:// URL of an OpenAI-compatible API, e.g. https://api.openai.com/v1");
  if (parsed.username || parsed.password) throw new ConfigError(url.field, shown, `credentials in the URL are not sent: set ${RESAMPLE_API_KEY_ENV}`);
  const model = from("resampleModel");
  if (!model) throw new ConfigError("resampleModel", undefined, `the resampler needs a chat model name: --resample-model, ${COLLECTOR_ENV.resampleModel} or config file collector.resampleModel`);
  if (typeof model.value !== "string" || model.value.trim() === "") throw new ConfigError(model.field, model.value, "expected a chat model name");
  const integer = (key: ResampleKey, min: number, max: number): number | undefined => read(key, integerIn(min, max));
  const number = (key: ResampleKey, min: number, max: number, what: string): number | undefined => read(key, numberIn({ min, max, what }));
  const { n: nLimits, rate: rateLimits, temperature: tLimits } = RESAMPLE_LIMITS;
  const temperature = number("resampleTemperature", tLimits.min, tLimits.max, "a temperature") ?? 1;
  // Surrounding whitespace (a newline from a secrets file) is not part of the key; a blank one is none.
  const apiKey = parseNonEmpty(RESAMPLE_API_KEY_ENV, env[RESAMPLE_API_KEY_ENV]);
  const host = hostOf(parsed);
  const warnings: string[] = [];
  if (temperature < LOW_RESAMPLE_TEMPERATURE) {
    warnings.push(`the resampler's temperature is ${temperature}, below ${LOW_RESAMPLE_TEMPERATURE}: resamples at a low temperature are near-identical, so their entropy reads as confidence; use about 1`);
  }
  if (!apiKey && !isLoopbackBind(host)) warnings.push(`${RESAMPLE_API_KEY_ENV} is not set: calling ${parsed.origin} without an API key`);
  if (apiKey && parsed.protocol === "http:" && !isLoopbackBind(host)) warnings.push(`the resampler's API key is sent unencrypted over http to ${parsed.host}: use https`);
  return {
    url: parsed.href.replace(/\/+$/, ""),
    model: model.value.trim(),
    n: integer("resampleN", nLimits.min, nLimits.max) ?? 5,
    rate: number("resampleRate", rateLimits.min, rateLimits.max, "a rate") ?? 1,
    temperature,
    maxTokens: integer("resampleMaxTokens", 1, 100_000) ?? 1024,
    maxConcurrent: integer("resampleMaxConcurrent", 1, 64) ?? 2,
    maxCallsPerMinute: integer("resampleMaxCallsPerMinute", 1, 100_000) ?? 60,
    timeoutMs: integer("resampleTimeoutMs", 1, 3_600_000) ?? 30_000,
    budget: integer("resampleBudget", 1, 10_000_000),
    apiKey,
    warnings,
  };
}

/** Validates a promptContext setting: "off", "system", or a regular expression with a named group `context`. */
export function parsePromptContext(field: string, v: unknown): PromptContext {
  if (typeof v !== "string" || v.trim() === "") throw new ConfigError(field, v, 'expected "off", "system" or a regular expression with a named group (?<context>...)');
  if (v === "off") return { mode: "off" };
  if (v === "system") return { mode: "system" };
  // The pattern runs over prompts that callers send: it is compiled for the linear-time engine.
  const pattern = compileLinearPattern(field, v, '"off", "system" or a valid regular expression');
  // With an empty alternative the pattern always matches, and the groups object lists every named group.
  if (!("context" in (compileLinearPattern(field, `${v}|`).exec("")?.groups ?? {}))) throw new ConfigError(field, v, "the regular expression needs a named group (?<context>...) that captures the documents");
  return { mode: "regex", pattern };
}

/**
 * Resolves and validates; refuses a non-loopback bind without a token. `loaded`: the config file
 * when the caller has read it already (loadConfig with the same configFile and env), so it is read once.
 */
export function resolveCollectorOptions(options: CollectorOptions = {}, loaded?: LoadedConfig): ResolvedCollectorOptions {
  const env = options.env ?? process.env;
  const { path: configFile, file } = loaded ?? loadConfig(options.configFile, env);
  const c = file.collector ?? {};
  // The bearer token is read below from the option or the environment only: never from the file.
  const read = fieldReader<Exclude<keyof CollectorOptions, "token">>({ options, env, envNames: COLLECTOR_ENV, file: c, section: "collector" });
  const pickInt = (key: Exclude<keyof CollectorOptions, "token">, min: number, max: number, fallback: number): number => read(key, integerIn(min, max), fallback);
  const host = read("host", parseNonEmpty, "127.0.0.1");
  // Surrounding whitespace (a newline from a secrets file) is not part of the token; a blank one is none.
  const token = parseNonEmpty(options.token !== undefined ? "token" : COLLECTOR_ENV.token, options.token ?? env[COLLECTOR_ENV.token]);
  const refusal = bindRefusal(host, token);
  if (refusal === "token_required") {
    throw new ConfigError("host", host, `binding an address other than 127.0.0.1 needs a bearer token: set ${COLLECTOR_ENV.token}`);
  }
  if (refusal === "token_too_short" && token !== undefined) {
    // The value is a secret: the message gives its length, never the token.
    throw new ConfigError(options.token !== undefined ? "token" : COLLECTOR_ENV.token, `(${token.length} characters)`, `a bearer token must be at least ${MIN_TOKEN_LENGTH} characters; use a random one, e.g. \`openssl rand -hex 32\``);
  }
  const mapping = options.attributeMapping ?? (c.attributeMapping as AttributeMapping | undefined) ?? {};
  for (const key of ["documents", "question", "answer"] as const) {
    const v = mapping[key];
    if (v !== undefined && (!Array.isArray(v) || !v.every((x) => typeof x === "string"))) throw new ConfigError(`attributeMapping.${key}`, v, "expected an array of attribute names");
  }
  const promptContextPick = read.picked("promptContext");
  const promptContext = parsePromptContext(promptContextPick.source === "env" ? `${COLLECTOR_ENV.promptContext} (promptContext)` : promptContextPick.field, promptContextPick.value ?? "off");
  const bodyLimit = read("bodyLimit", parseByteSize, "2mb");
  const logContent = read("logContent", parseBoolean, false);
  const maxTraceBytes = pickInt("maxTraceBytes", 1024, 2 ** 40, 4 * 1024 * 1024);
  const maxBufferBytes = pickInt("maxBufferBytes", 1024, 2 ** 40, 64 * 1024 * 1024);
  if (maxTraceBytes > maxBufferBytes) throw new ConfigError("maxTraceBytes", maxTraceBytes, `expected at most maxBufferBytes (${maxBufferBytes})`);
  const traceTimeoutMs = pickInt("traceTimeoutMs", 1, 3_600_000, 5000);
  const maxTraceAgeMs = pickInt("maxTraceAgeMs", 1, 86_400_000, 6 * traceTimeoutMs);
  if (maxTraceAgeMs < traceTimeoutMs) throw new ConfigError("maxTraceAgeMs", maxTraceAgeMs, `expected at least traceTimeoutMs (${traceTimeoutMs})`);
  const headersTimeoutMs = pickInt("headersTimeoutMs", 100, 3_600_000, 10_000);
  const requestTimeoutMs = pickInt("requestTimeoutMs", 100, 3_600_000, 60_000);
  if (headersTimeoutMs > requestTimeoutMs) throw new ConfigError("headersTimeoutMs", headersTimeoutMs, `expected at most requestTimeoutMs (${requestTimeoutMs})`);
  const maxConnections = pickInt("maxConnections", 1, 1_000_000, 1024);
  const maxConnectionsPerAddress = pickInt("maxConnectionsPerAddress", 1, maxConnections, Math.min(DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, maxConnections));
  const port = pickInt("port", 0, 65535, DEFAULT_COLLECTOR_PORT);
  const health = read.field("healthPort", integerIn(0, 65535));
  const healthPort = health.value;
  if (healthPort !== undefined && healthPort !== 0 && healthPort === port) throw new ConfigError(health.field, healthPort, `expected another port than the collector's own (${port}): the probes need a listener of their own`);
  const tls = resolveTls(read, configFile);
  return {
    host,
    port,
    healthPort,
    tls,
    token,
    bodyLimit,
    maxDocuments: pickInt("maxDocuments", 1, 100_000, 200),
    maxAnswerChars: pickInt("maxAnswerChars", 1, 10_000_000, 50_000),
    maxBatch: pickInt("maxBatch", 1, 100_000, 500),
    guardConcurrency: pickInt("guardConcurrency", 1, 10_000, 16),
    traceTimeoutMs,
    maxTraceAgeMs,
    maxTraces: pickInt("maxTraces", 1, 10_000_000, 10_000),
    maxTraceBytes,
    maxBufferBytes,
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: pickInt("keepAliveTimeoutMs", 1, 3_600_000, 5000),
    maxConnections,
    maxConnectionsPerAddress,
    drainMs: pickInt("drainMs", 0, 3_600_000, 10_000),
    heapGrowthPercent: pickInt("heapGrowthPercent", 0, MAX_HEAP_GROWTH_PERCENT, DEFAULT_HEAP_GROWTH_PERCENT),
    logContent,
    attributeMapping: mapping,
    promptContext,
    resample: resolveResampler(read, env),
    peers: resolvePeerOptions(read, configFile, tls !== undefined),
    file,
    configFile,
  };
}
