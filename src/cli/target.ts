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

/** Asks the endpoint once per question, retrying timeouts, 429 and 5xx with backoff. */
export async function askTarget(options: TargetOptions, question: string): Promise<{ answer: string; samples?: string[] }> {
  const doFetch = options.fetch ?? fetch;
  let last: Error | undefined;
  for (let attempt = 1; attempt <= options.attempts; attempt++) {
    try {
      const res = await doFetch(options.url, {
        method: "POST",
        headers: { "content-type": "application/json", ...options.headers },
        body: renderRequest(options.requestTemplate, question),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      if (res.status === 429 || res.status >= 500) throw new Error(`HTTP ${res.status}`);
      if (!res.ok) throw Object.assign(new Error(`HTTP ${res.status}: ${(await res.text()).slice(0, 200)}`), { final: true });
      const body = (await res.json()) as unknown;
      const answer = at(body, options.answerPath);
      if (typeof answer !== "string") throw Object.assign(new Error(`the reply has no string at "${options.answerPath}"`), { final: true });
      const samples = options.samplesPath ? at(body, options.samplesPath) : undefined;
      if (options.samplesPath && !(Array.isArray(samples) && samples.every((s) => typeof s === "string"))) {
        throw Object.assign(new Error(`the reply has no array of strings at "${options.samplesPath}"`), { final: true });
      }
      return { answer, ...(Array.isArray(samples) ? { samples: samples as string[] } : {}) };
    } catch (error) {
      last = error as Error;
      if ((error as { final?: boolean }).final) break;
      if (attempt < options.attempts) await new Promise((r) => setTimeout(r, 250 * 2 ** (attempt - 1)));
    }
  }
  throw new Error(`target ${options.url}: ${last?.message ?? "failed"}`);
}
