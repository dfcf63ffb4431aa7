import type { CallOptions, ScoredToken, SpanDetection, SpanDetector, SpanInput } from "../../src/core/backend.ts";

/** A scripted span detector that records every input it is asked about. */
export interface FakeSpanDetector extends SpanDetector {
  readonly inputs: SpanInput[];
  readonly options: Array<CallOptions | undefined>;
}

export interface FakeSpanDetectorOptions {
  /** Probability of a word (lowercased, without punctuation) being unsupported; every other word 0.05. */
  readonly words?: Readonly<Record<string, number>>;
  /** Model inputs reported per answer (default 1). */
  readonly runs?: number;
  /** Rejects every call with this error. */
  readonly fail?: Error;
  /** Replaces the reply (for broken replies). */
  readonly reply?: (inputs: readonly SpanInput[]) => unknown;
  readonly recommendedSpanThreshold?: number;
}

/**
 * Deterministic: one token per whitespace-separated word of each answer (a word longer than 6
 * characters is two sub-word pieces), each scored by `words`.
 */
export function createFakeSpanDetector(options: FakeSpanDetectorOptions = {}): FakeSpanDetector {
  const inputs: SpanInput[] = [];
  const calls: Array<CallOptions | undefined> = [];
  const words = options.words ?? {};
  const tokensOf = (answer: string): ScoredToken[] => {
    const out: ScoredToken[] = [];
    for (const m of answer.matchAll(/\S+/g)) {
      const p = words[m[0].replace(/[^\p{L}\p{N}$-]/gu, "").toLowerCase()] ?? 0.05;
      const start = m.index;
      const end = start + m[0].length;
      if (m[0].length > 6) out.push({ start, end: start + 4, probability: p }, { start: start + 4, end, probability: p });
      else out.push({ start, end, probability: p });
    }
    return out;
  };
  return {
    name: "fake-spans",
    version: "1",
    tier: "production",
    inputs,
    options: calls,
    ...(options.recommendedSpanThreshold !== undefined ? { recommendedSpanThreshold: options.recommendedSpanThreshold } : {}),
    detect(batch: readonly SpanInput[], callOptions?: CallOptions): Promise<SpanDetection[]> {
      inputs.push(...batch);
      calls.push(callOptions);
      if (options.fail) return Promise.reject(options.fail);
      if (options.reply) return Promise.resolve(options.reply(batch) as SpanDetection[]);
      return Promise.resolve(batch.map((i) => ({ tokens: tokensOf(i.answer), runs: options.runs ?? 1 })));
    },
    close: () => Promise.resolve(),
  };
}
