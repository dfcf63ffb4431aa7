import { createHttpClient } from "../../net/bounded-fetch.ts";
import { redactSecrets } from "../../net/redact.ts";
import { NonRetryable, RetryLater, retryAfterMs, retryable } from "../../net/retry.ts";
import { isPlainObject } from "../../core/plain-object.ts";

/** The largest reply `eval --target` reads by default: 10 MB, far above any answer. */
export const DEFAULT_MAX_REPLY_BYTES = 10_000_000;

/** How to ask the user's RAG endpoint for an answer, and where the answer is in its reply. */
export interface TargetOptions {
  readonly url: string;
  /** JSON request body with {{question}} where the question goes. */
  readonly requestTemplate: string;
  /** Path of the answer in the JSON reply (see parseReplyPath), e.g. "answer" or "choices[0].message.content". */
  readonly answerPath: string;
  /** Path of an array of resampled answers, if the endpoint returns them. */
  readonly samplesPath?: string;
  /** Path of the documents the service retrieved: a string, strings, or "docs[*].text" for a field of each object. */
  readonly contextPath?: string;
  readonly timeoutMs: number;
  readonly attempts: number;
  /** Largest reply read, in bytes (default DEFAULT_MAX_REPLY_BYTES); a larger one fails the row. */
  readonly maxReplyBytes?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly fetch?: typeof fetch;
}

/** One step of a reply path: an object key, an array index, or every element of an array. */
type PathStep = { readonly key: string } | { readonly index: number } | { readonly each: true };

/**
 * Parses a reply path. Keys are separated by dots; an array element is `[N]` or a number between
 * dots (`choices[0].message.content`, `choices.0.message.content`); `[*]` (or `*`) takes every
 * element of an array, so `documents[*].text` is the text field of each retrieved document, as
 * JSONPath writes it without the leading `$.`. Keys with dots or brackets in them cannot be named.
 * Returns the steps, or why the path is not one.
 */
export function parseReplyPath(path: string): PathStep[] | string {
  const steps: PathStep[] = [];
  if (path.trim() === "") return "it is empty";
  for (const part of path.replace(/^\$\.?/, "").split(".")) {
    const m = /^([^[\]]*)((?:\[(?:\d+|\*)\])*)$/.exec(part);
    if (!m || (m[1] === "" && m[2] === "")) return `"${part}" is not a key, [N] or [*]`;
    const key = m[1] ?? "";
    if (key === "*") steps.push({ each: true });
    else if (/^\d+$/.test(key)) steps.push({ index: Number(key) });
    else if (key !== "") steps.push({ key });
    for (const b of (m[2] ?? "").match(/\[(\d+|\*)\]/g) ?? []) steps.push(b === "[*]" ? { each: true } : { index: Number(b.slice(1, -1)) });
  }
  return steps;
}

/** Whether the path takes every element of an array somewhere (and so yields an array). */
export function pathHasWildcard(path: string): boolean {
  const steps = parseReplyPath(path);
  return typeof steps !== "string" && steps.some((s) => "each" in s);
}

const MISSING = Symbol("missing");

/** The value at `path` in a reply, or MISSING; a `[*]` step yields an array, missing if any element lacks the rest. */
function at(value: unknown, path: string): unknown {
  const steps = parseReplyPath(path);
  if (typeof steps === "string") return MISSING;
  const walk = (v: unknown, i: number): unknown => {
    if (i === steps.length) return v;
    const step = steps[i] as PathStep;
    if ("each" in step) {
      if (!Array.isArray(v)) return MISSING;
      const out = v.map((e) => walk(e, i + 1));
      return out.includes(MISSING) ? MISSING : out;
    }
    if ("index" in step) {
      if (Array.isArray(v)) return step.index < v.length ? walk(v[step.index], i + 1) : MISSING;
      // A number between dots also names an object key ("0"), as it always has.
      if (v === null || typeof v !== "object" || !Object.hasOwn(v, String(step.index))) return MISSING;
      return walk((v as Record<string, unknown>)[String(step.index)], i + 1);
    }
    if (!isPlainObject(v) || !Object.hasOwn(v, step.key)) return MISSING;
    return walk(v[step.key], i + 1);
  };
  return walk(value, 0);
}

/** What a reply value is, for an error message. */
function kind(v: unknown): string {
  if (v === MISSING) return "nothing";
  if (v === null) return "null";
  if (Array.isArray(v)) return v.length === 0 ? "an empty array" : v.every((x) => typeof x === "string") ? "an array of strings" : v.every(isPlainObject) ? "an array of objects" : "a mixed array";
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}

/** The retrieved documents from the reply: a string is one document, an array of strings several. */
function contextAt(body: unknown, path: string): string[] {
  const v = at(body, path);
  if (typeof v === "string") return [v];
  if (Array.isArray(v) && v.every((d) => typeof d === "string")) return v as string[];
  const hint = kind(v) === "an array of objects" ? `; to take a field of each object, end the path with [*].FIELD, e.g. "${path}[*].text"` : "";
  throw final(`the reply has no string or array of strings at "${path}" (found ${kind(v)})${hint}`);
}

/** Fills {{question}} with the question JSON-escaped, so the template stays valid JSON. */
export function renderRequest(template: string, question: string): string {
  const body = template.replaceAll("{{question}}", JSON.stringify(question).slice(1, -1));
  JSON.parse(body);
  return body;
}

/** An error that retrying will not fix. */
function final(message: string): Error {
  return new NonRetryable(message);
}

/** What the endpoint answered: the answer, and the resamples and retrieved documents when their paths are given. */
export interface TargetReply {
  readonly answer: string;
  readonly samples?: string[];
  readonly context?: string[];
}

/** The first wait between attempts at the eval target, doubling after each: shorter than the default, a row is cheap to retry. */
const EVAL_TARGET_BACKOFF_BASE_MS = 250;

/**
 * Asks the endpoint once per question, retrying network errors, timeouts, 429 and 5xx with
 * exponential backoff (or the reply's Retry-After, at most 30 s; src/net/retry.ts). The reply is
 * read as a stream and never past `maxReplyBytes`: a huge reply fails the row, not the process.
 */
export async function askTarget(options: TargetOptions, question: string): Promise<TargetReply> {
  const cap = options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES;
  // One deadline for each attempt, headers and body, and no longer a silence in the body.
  const t = options.timeoutMs;
  const http = createHttpClient({ fetch: options.fetch, headersMs: t, idleMs: t, totalMs: t, maxBytes: cap, retry: { attempts: options.attempts, backoffMs: EVAL_TARGET_BACKOFF_BASE_MS } });
  // The request's own header values (an Authorization or API key header) never reach a message.
  const secrets = Object.values(options.headers ?? {});
  const attempt = async (): Promise<TargetReply> => {
    const res = await http.request(options.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...options.headers },
      body: renderRequest(options.requestTemplate, question),
    });
    if (retryable(res.status)) {
      res.discard();
      throw new RetryLater(`HTTP ${res.status}`, retryAfterMs(res.headers.get("retry-after")));
    }
    if (!res.ok) throw final(`HTTP ${res.status}: ${redactSecrets(await res.text({ maxBytes: 1024, truncate: true }), secrets).slice(0, 200)}`);
    // Over the cap: a BodyTooLargeError, which is not retried.
    const text = await res.text({ tooLargeMessage: `the reply is larger than ${cap} bytes (--max-reply-bytes); the request was aborted` });
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`the reply is not JSON (${text.length === 0 ? "empty" : `${Buffer.byteLength(text)} bytes`})`);
    }
    const answer = at(body, options.answerPath);
    if (typeof answer !== "string") throw final(`the reply has no string at "${options.answerPath}"`);
    const samples = options.samplesPath ? at(body, options.samplesPath) : undefined;
    if (options.samplesPath && !(Array.isArray(samples) && samples.every((s) => typeof s === "string"))) {
      throw final(`the reply has no array of strings at "${options.samplesPath}"`);
    }
    const context = options.contextPath ? contextAt(body, options.contextPath) : undefined;
    return { answer, ...(Array.isArray(samples) ? { samples: samples as string[] } : {}), ...(context ? { context } : {}) };
  };
  try {
    return await http.retry(attempt);
  } catch (error) {
    throw new Error(`target ${options.url}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
