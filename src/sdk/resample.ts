import type { Context } from "@opentelemetry/api";
import { diag, context as otelContext } from "@opentelemetry/api";
import type { Sample } from "../core/entropy/semantic-entropy.ts";
import { BodyTooLargeError } from "../net/read-capped.ts";
import { copySamples } from "./copy.ts";
import type { ResampleRequest, ResolvedResampleOptions } from "./resample-options.ts";
import type { Sampler } from "./sampling.ts";
import { createSampler } from "./sampling.ts";

/**
 * How one resample ended, as `groundwatch.resample.outcome` labels it: `ok`; `short` (fewer answers
 * than asked); `error` (the sampler threw, rejected, or returned something that is not strings or
 * `{ text }` objects); `too_large` (the endpoint's reply was over its byte cap, so the request was
 * aborted: the collector's resampler, or any sampler that throws a BodyTooLargeError); `timeout`; `shutdown` (in flight when the monitor shut down: aborted). And three
 * where no call was made and the observation is scored without entropy: `budget` (maxCallsPerMinute
 * calls started in the last minute), `busy` (maxConcurrent calls in flight and as many waiting) and
 * `no_question` (picked, but the observation has no question: semantic entropy is defined over
 * answers to one question, and a sampler cannot redraw an answer without it).
 */
export type ResampleOutcome = "ok" | "short" | "error" | "too_large" | "timeout" | "shutdown" | "budget" | "busy" | "no_question";
export const RESAMPLE_OUTCOMES: readonly ResampleOutcome[] = ["ok", "short", "error", "too_large", "timeout", "shutdown", "budget", "busy", "no_question"];

/** Tokens the host's sampler reported using (non-negative integers only). */
export interface ResampleUsage {
  readonly promptTokens?: number;
  readonly completionTokens?: number;
}

/**
 * How one resample attempt ended. `skipped`: the resampler was closed before the call started (nothing
 * is counted). Every other kind is counted under its outcome; `durationS` is present when the
 * host's function was called.
 */
export type ResampleAttempt =
  | { readonly outcome: "ok" | "short"; readonly samples: readonly Sample[]; readonly usage: ResampleUsage | undefined; readonly durationS: number }
  | { readonly outcome: "error" | "too_large" | "timeout" | "shutdown"; readonly why: string; readonly message: string | undefined; readonly durationS: number }
  | { readonly outcome: "budget" | "busy" | "no_question" }
  | { readonly outcome: "skipped" };

/** What the monitor asks for: the observation's fields, copied (the host's sampler gets a frozen copy of its own). */
export interface ResampleInput {
  readonly route: string;
  readonly question: string | undefined;
  readonly context: string | readonly string[];
  readonly answer: string;
  /** Where the host's function runs (its spans join the request's trace, as the evaluation span does). */
  readonly parent: Context;
}

export interface Resampler {
  /**
   * Whether an observation sampled for scoring is resampled too: its route's rate, decided on the
   * trace id's high bits (the scoring decision uses the low bits), so the two are independent and
   * one trace always gets the same decision.
   */
  picks(route: string, traceId: string | undefined): boolean;
  /**
   * Asks the host's sampler for `n` answers, within the budget, the concurrency bound and the
   * timeout; `done` gets how it ended, exactly once, and never throws into it. Over budget, or with
   * every slot busy and as many calls waiting, `done` is called at once (`budget`, `busy`): a slow
   * model makes observations go without entropy, never wait without bound. The host's function
   * itself is always called later, from a setImmediate callback, never inside `submit`.
   */
  submit(input: ResampleInput, done: (attempt: ResampleAttempt) => void): void;
  /** Aborts calls in flight (outcome `shutdown`) and settles waiting calls as `skipped`; later ones are skipped. */
  close(): void;
  /** Calls running now. */
  readonly inFlight: number;
  readonly n: number;
}

/** A position in [0, 1) from a trace id's high 52 bits (traceFraction uses the low ones). */
export function resampleFraction(traceId: string): number | undefined {
  if (!/^[0-9a-f]{32}$/i.test(traceId) || /^0+$/.test(traceId)) return undefined;
  return parseInt(traceId.slice(0, 13), 16) / 2 ** 52;
}

/** A message from whatever the host threw, without letting a hostile error throw again. */
function messageOf(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return "an error whose message cannot be read";
  }
}

const count = (v: unknown): number | undefined => (typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : undefined);

/** Copies the host's result: `Sample[]`, or `{ samples, usage? }`. Undefined when it is neither. */
export function copyResampleResult(raw: unknown): { samples: Sample[]; usage: ResampleUsage | undefined } | undefined {
  if (Array.isArray(raw)) {
    const samples = copySamples(raw);
    return samples ? { samples, usage: undefined } : undefined;
  }
  if (!raw || typeof raw !== "object") return undefined;
  const samples = copySamples((raw as { samples?: unknown }).samples);
  if (!samples) return undefined;
  const u: unknown = (raw as { usage?: unknown }).usage;
  let usage: ResampleUsage | undefined;
  if (u && typeof u === "object") {
    const prompt = count((u as ResampleUsage).promptTokens);
    const completion = count((u as ResampleUsage).completionTokens);
    usage = { ...(prompt !== undefined ? { promptTokens: prompt } : {}), ...(completion !== undefined ? { completionTokens: completion } : {}) };
  }
  return { samples, usage };
}

const WINDOW_MS = 60_000;

/**
 * The resampling stage of the monitor. The host's function runs on the main thread (it is async
 * I/O: a model API call), never inside observe(): calls start from a setImmediate callback.
 */
export function createResampler(options: ResolvedResampleOptions, deps: { readonly now: () => number; readonly random: () => number }): Resampler {
  const { n, maxConcurrent, maxCallsPerMinute, timeoutMs } = options;
  const sample = options.sample;
  const rates: Sampler = createSampler(options.rate, deps.random);
  /** When the last maxCallsPerMinute calls were admitted (a ring): another is admitted once the oldest is a minute old. */
  const starts = new Float64Array(maxCallsPerMinute).fill(-Infinity);
  let next = 0;
  const waiting: Array<{ input: ResampleInput; resolve: (d: ResampleAttempt) => void }> = [];
  /** Calls that may wait for a slot: as many as run at once. */
  const maxWaiting = maxConcurrent;
  const running = new Set<(why: "shutdown") => void>();
  let closed = false;
  let scheduled = false;

  const schedule = (): void => {
    if (scheduled || waiting.length === 0 || running.size >= maxConcurrent) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      drain();
    });
  };
  const drain = (): void => {
    while (!closed && waiting.length > 0 && running.size < maxConcurrent) {
      const w = waiting.shift();
      if (w) call(w.input, w.resolve);
    }
  };

  const call = (input: ResampleInput, resolve: (d: ResampleAttempt) => void): void => {
    const started = deps.now();
    const controller = new AbortController();
    const elapsed = (): number => (deps.now() - started) / 1000;
    let done = false;
    const finish = (attempt: ResampleAttempt): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      running.delete(stop);
      resolve(attempt);
      schedule();
    };
    const stop = (why: "shutdown"): void => {
      // Aborting runs the host's abort listeners; what they throw is theirs (Node reports it), but it must not skip finish.
      finish({ outcome: why, why: "the resampler call was aborted at shutdown", message: undefined, durationS: elapsed() });
      try {
        controller.abort(new DOMException("groundwatch monitor shut down", "AbortError"));
      } catch {
        // nothing to do
      }
    };
    running.add(stop);
    // The slot is released at the timeout even if the host's function ignores the signal.
    const timer = setTimeout(() => {
      finish({ outcome: "timeout", why: `the resampler did not answer within ${timeoutMs} ms`, message: undefined, durationS: elapsed() });
      try {
        controller.abort(new DOMException(`groundwatch resample timed out after ${timeoutMs} ms`, "TimeoutError"));
      } catch {
        // nothing to do
      }
    }, timeoutMs);
    timer.unref?.();
    const context = typeof input.context === "string" ? [input.context] : [...input.context];
    const request: ResampleRequest = Object.freeze({ route: input.route, question: input.question, context: Object.freeze(context), answer: input.answer, n, signal: controller.signal });
    let pending: Promise<unknown>;
    try {
      // Promise.resolve reads `then` (and a promise's constructor): a getter that throws is caught here too.
      pending = Promise.resolve(otelContext.with(input.parent, () => sample(request)));
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.then(
      (value) => {
        if (done) return;
        let copied: ReturnType<typeof copyResampleResult>;
        try {
          copied = copyResampleResult(value);
        } catch (error) {
          return finish({ outcome: "error", why: "reading the resampler's result threw", message: messageOf(error), durationS: elapsed() });
        }
        if (!copied) return finish({ outcome: "error", why: "the resampler returned something other than strings or { text } objects", message: undefined, durationS: elapsed() });
        finish({ outcome: copied.samples.length < n ? "short" : "ok", samples: copied.samples.slice(0, n), usage: copied.usage, durationS: elapsed() });
      },
      (error: unknown) =>
        finish(
          error instanceof BodyTooLargeError
            ? { outcome: "too_large", why: `the resampler's endpoint sent a reply over its ${error.cap}-byte cap`, message: messageOf(error), durationS: elapsed() }
            : { outcome: "error", why: "the resampler threw or rejected", message: messageOf(error), durationS: elapsed() },
        ),
    );
  };

  return {
    picks(route: string, traceId: string | undefined): boolean {
      if (closed) return false;
      const rate = rates.rateFor(route);
      if (rate >= 1) return true;
      if (rate <= 0) return false;
      const u = traceId !== undefined ? resampleFraction(traceId) : undefined;
      return (u ?? deps.random()) < rate;
    },
    submit(input: ResampleInput, done: (attempt: ResampleAttempt) => void): void {
      let called = false;
      const resolve = (attempt: ResampleAttempt): void => {
        if (called) return;
        called = true;
        try {
          done(attempt);
        } catch (error) {
          diag.error(`groundwatch: handling a resample result failed: ${messageOf(error)}`);
        }
      };
      if (closed) return resolve({ outcome: "skipped" });
      // The budget counts calls admitted (the wait for a slot is short and bounded).
      const t = deps.now();
      if (t - (starts[next] ?? -Infinity) < WINDOW_MS) return resolve({ outcome: "budget" });
      if (running.size + waiting.length >= maxConcurrent + maxWaiting) return resolve({ outcome: "busy" });
      starts[next] = t;
      next = (next + 1) % maxCallsPerMinute;
      waiting.push({ input, resolve });
      schedule();
    },
    close(): void {
      closed = true;
      for (const w of waiting.splice(0)) w.resolve({ outcome: "skipped" });
      for (const stop of [...running]) stop("shutdown");
    },
    get inFlight(): number {
      return running.size;
    },
    n,
  };
}
