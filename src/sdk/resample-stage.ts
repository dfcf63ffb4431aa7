import { ROOT_CONTEXT, diag } from "@opentelemetry/api";
import { contextTexts } from "../core/context.ts";
import type { Instruments } from "../telemetry/instruments.ts";
import { ATTR_RESAMPLE_OUTCOME, ATTR_ROUTE, ATTR_TOKEN_KIND } from "../telemetry/semconv.ts";
import { sampleChars } from "../core/observation-bytes.ts";
import type { ResampleAttempt, ResampleOutcome, Resampler } from "./resample.ts";
import { RESAMPLE_OUTCOMES } from "./resample.ts";
import type { Job, SchedulerStage, StagePort } from "./scheduler.ts";

/** What the resample stage works with. */
export interface ResampleStageOptions {
  /** The host's sampler behind its budget and bounds; without one nothing is resampled. */
  readonly resampler: Resampler | undefined;
  /** Where the host's function runs: in the request's context ("child") or outside any ("link"). */
  readonly spanRelation: "child" | "link";
  /** False once shutdown began: nothing more is resampled. */
  readonly accepting: () => boolean;
  /** The instruments resampler calls are counted on. */
  readonly instruments: () => Instruments;
}

/** The resampling stage, between the queue and the workers. */
export interface ResampleStage extends SchedulerStage {
  /** Resampler calls by outcome (every outcome present). */
  counts(): Readonly<Record<ResampleOutcome, number>>;
  /** Hands every job waiting for the resampler over now (at shutdown, once the resampler is closed: they come back skipped). */
  startResamples(): void;
}

/**
 * Jobs picked for resampling wait here for their resampler call, then go back (through the port
 * the owning scheduler attached: scored before the queue) with the samples, or with why there are none.
 */
export function createResampleStage(options: ResampleStageOptions): ResampleStage {
  const { resampler } = options;
  const resampleCounts = Object.fromEntries(RESAMPLE_OUTCOMES.map((o) => [o, 0])) as Record<ResampleOutcome, number>;
  /** Picked for resampling, handed to the resampler from a setImmediate callback (never inside observe()). */
  const toResample: Job[] = [];
  let resampleScheduled = false;
  /** Handed to the resampler and not back yet. */
  let resampling = 0;
  /** The way back, given by the scheduler that owns the stage. */
  let port: StagePort | undefined;
  const back = (): StagePort => {
    if (!port) throw new Error("the resample stage is not attached to a scheduler");
    return port;
  };

  /** Counts a resampler call by outcome, with its duration and the tokens it reported. */
  const recordResample = (route: string, attempt: Exclude<ResampleAttempt, { outcome: "skipped" }>): void => {
    resampleCounts[attempt.outcome]++;
    const instruments = options.instruments();
    instruments.resampleCalls.add(1, { [ATTR_ROUTE]: route, [ATTR_RESAMPLE_OUTCOME]: attempt.outcome });
    if (!("durationS" in attempt)) return;
    instruments.resampleDuration.record(attempt.durationS, { [ATTR_ROUTE]: route });
    if ("samples" in attempt) {
      if (attempt.usage?.promptTokens) instruments.resampleTokens.add(attempt.usage.promptTokens, { [ATTR_ROUTE]: route, [ATTR_TOKEN_KIND]: "prompt" });
      if (attempt.usage?.completionTokens) instruments.resampleTokens.add(attempt.usage.completionTokens, { [ATTR_ROUTE]: route, [ATTR_TOKEN_KIND]: "completion" });
    } else {
      const said = `groundwatch: resampling on route ${route} failed (${attempt.outcome}): ${attempt.why}${attempt.message !== undefined ? `: ${attempt.message}` : ""}; the answer is scored without a reliable entropy`;
      // Aborting at shutdown is expected, not a fault to warn about.
      if (attempt.outcome === "shutdown") diag.debug(said);
      else diag.warn(said);
    }
  };

  /** The job as it goes to scoring after its resample: with the samples (counted in queueBytes), or with why there are none. */
  const afterResample = (job: Job, attempt: ResampleAttempt, n: number): Job => {
    // No call was made (over budget, busy, or skipped at shutdown): scored without entropy, as if not picked.
    if (attempt.outcome === "skipped") return job;
    if (!("durationS" in attempt)) return { ...job, resampleOutcome: attempt.outcome };
    if (!("samples" in attempt)) return { ...job, resampleOutcome: attempt.outcome, observation: { ...job.observation, resample: { requested: n, failure: attempt.why } } };
    const extra = sampleChars(attempt.samples);
    if (!back().reserve(extra)) {
      const failure = `the resamples (${extra} characters) did not fit the queue's byte budget (queueBytes)`;
      return { ...job, resampleOutcome: attempt.outcome, observation: { ...job.observation, resample: { requested: n, failure } } };
    }
    return { ...job, bytes: job.bytes + extra, resampleOutcome: attempt.outcome, observation: { ...job.observation, samples: attempt.samples, resample: { requested: n } } };
  };

  /** Sends a job to the resampler; it comes back to the scheduler (exactly once) and is scored from there. */
  const startResample = (r: Resampler, job: Job): void => {
    const o = job.observation;
    resampling++;
    r.submit({ route: job.route, question: o.question, context: contextTexts(o.context), answer: o.answer, parent: options.spanRelation === "child" ? job.parent : ROOT_CONTEXT }, (attempt) => {
      resampling--;
      try {
        if (attempt.outcome !== "skipped") recordResample(job.route, attempt);
      } catch (error) {
        diag.error(`groundwatch: recording a resample failed: ${(error as Error).message}`);
      }
      back().returnJob(afterResample(job, attempt, r.n));
      back().pump();
    });
  };
  const startResamples = (): void => {
    resampleScheduled = false;
    for (const job of toResample.splice(0)) {
      if (resampler) startResample(resampler, job);
      else back().returnJob(job);
    }
    back().pump();
  };

  return {
    attach(given) {
      port = given;
    },
    counts: () => resampleCounts,
    startResamples,
    pending: () => toResample.length + resampling,
    /**
     * Moves the jobs at the head of the queue that are picked for resampling toward the resampler,
     * once they are about to be scored: no more than the workers' slots stand ready or wait to be
     * handed over (the calls themselves are bounded by the resampler), so a deep queue waits
     * as it is and each call, and its budget decision, happens just before the job is scored. On the
     * request path (pump runs in observe()) this is the pick and a push; the resampler is reached
     * from a setImmediate callback. Observations that came with their own samples are never resampled.
     */
    advance(queue): void {
      // After shutdown begins nothing more is resampled: what is left is scored as it is.
      if (!resampler || !options.accepting()) return;
      for (let job = queue.head(); job; job = queue.head()) {
        if (job.resamplePicked === undefined) {
          const wanted = !job.observation.samples?.length && resampler.picks(job.route, job.parentSpan?.traceId);
          // Without a question there is nothing to resample an answer to: counted, scored without entropy.
          if (wanted && (job.observation.question ?? "").trim() === "") recordResample(job.route, { outcome: "no_question" });
          job.resamplePicked = wanted && (job.observation.question ?? "").trim() !== "";
        }
        if (!job.resamplePicked || toResample.length + queue.returnedCount() >= queue.slots) return;
        queue.takeHead();
        toResample.push(job);
        if (!resampleScheduled) {
          resampleScheduled = true;
          setImmediate(startResamples);
        }
      }
    },
    // A head picked for resampling waits for its call (advance() moves it once there is room).
    holds: (job) => job.resamplePicked === true && options.accepting(),
    takeAll: () => toResample.splice(0),
  };
}
