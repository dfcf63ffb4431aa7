/** The largest reply `eval --target` reads by default: 10 MB, far above any answer. */
export const DEFAULT_MAX_REPLY_BYTES = 10_000_000;

/** How to ask the user's RAG endpoint for an answer, and where the answer is in its reply. */
export interface TargetOptions {
  readonly url: string;
  /** JSON request body with {{question}} where the question goes. */
  readonly requestTemplate: string;
  /** Dot path of the answer in the JSON reply, e.g. "answer" or "choices.0.message.content". */
  readonly answerPath: string;
  /** Dot path of an array of resampled answers, if the endpoint returns them. */
  readonly samplesPath?: string;
  readonly timeoutMs: number;
  readonly attempts: number;
  /** Largest reply read, in bytes (default DEFAULT_MAX_REPLY_BYTES); a larger one fails the row. */
  readonly maxReplyBytes?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly fetch?: typeof fetch;
}

function at(value: unknown, path: string): unknown {
  let v = value;
  for (const part of path.split(".").filter((p) => p !== "")) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

/** Fills {{question}} with the question JSON-escaped, so the template stays valid JSON. */
export function renderRequest(template: string, question: string): string {
  const body = template.replaceAll("{{question}}", JSON.stringify(question).slice(1, -1));
  JSON.parse(body);
  return body;
}

/** An error that retrying will not fix. */
function final(message: string): Error {
  return Object.assign(new Error(message), { final: true });
}

/**
 * Reads a reply body as it streams, up to `cap` bytes. Over the cap it cancels the body and
 * aborts the request, then throws — or, with `truncate`, returns what it has (for an error
 * excerpt). The declared Content-Length is checked first, so an honest large reply is refused
 * before any of it is read.
 */
async function readBody(res: Response, cap: number, abort: () => void, truncate = false): Promise<string> {
  const tooLarge = (): Error => final(`the reply is larger than ${cap} bytes (--max-reply-bytes); the request was aborted`);
  const declared = Number(res.headers.get("content-length"));
  if (!truncate && Number.isFinite(declared) && declared > cap) {
    abort();
    throw tooLarge();
  }
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > cap) {
      chunks.push(value.subarray(0, cap - size));
      await reader.cancel().catch(() => undefined);
      abort();
      if (truncate) break;
      throw tooLarge();
    }
    chunks.push(value);
    size += value.byteLength;
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Asks the endpoint once per question, retrying timeouts, 429 and 5xx with backoff. The reply
 * is read as a stream and never past `maxReplyBytes`: a huge reply fails the row, not the process.
 */
export async function askTarget(options: TargetOptions, question: string): Promise<{ answer: string; samples?: string[] }> {
  const doFetch = options.fetch ?? fetch;
  const cap = options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES;
  let last: Error | undefined;
  for (let attempt = 1; attempt <= options.attempts; attempt++) {
    const controller = new AbortController();
    // One deadline for the request and the body, as AbortSignal.timeout gave before.
    const timer = setTimeout(() => controller.abort(Object.assign(new Error(`no reply within ${options.timeoutMs} ms`), { name: "TimeoutError" })), options.timeoutMs);
    const abort = (): void => controller.abort(new Error("reply too large"));
    try {
      const res = await doFetch(options.url, {
        method: "POST",
        headers: { "content-type": "application/json", ...options.headers },
        body: renderRequest(options.requestTemplate, question),
        signal: controller.signal,
      });
      if (res.status === 429 || res.status >= 500) {
        await res.body?.cancel().catch(() => undefined);
        throw new Error(`HTTP ${res.status}`);
      }
      if (!res.ok) throw final(`HTTP ${res.status}: ${(await readBody(res, 200, abort, true)).slice(0, 200)}`);
      const text = await readBody(res, cap, abort);
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
      return { answer, ...(Array.isArray(samples) ? { samples: samples as string[] } : {}) };
    } catch (error) {
      last = controller.signal.aborted && controller.signal.reason instanceof Error && controller.signal.reason.name === "TimeoutError" ? controller.signal.reason : (error as Error);
      if ((error as { final?: boolean }).final) break;
      if (attempt < options.attempts) await new Promise((r) => setTimeout(r, 250 * 2 ** (attempt - 1)));
    } finally {
      clearTimeout(timer);
    }
  }
  throw new Error(`target ${options.url}: ${last?.message ?? "failed"}`);
}
