import { parentPort } from "node:worker_threads";
import type { BackendSettings } from "../config/hub.ts";
import type { ResolvedScoreOptions } from "../config/score-options.ts";
import { workerPayload } from "../workers/native-gate.ts";
import { serveWorker } from "../workers/serve-worker.ts";
import type { Observation } from "../scoring/scorer.ts";
import { createResolvedScorer } from "../scoring/scorer.ts";
import type { EvaluationSummary } from "../evaluation/types.ts";
import { summarize } from "../evaluation/summary.ts";
import type { ResampleNote } from "../scoring/resample-shortfall.ts";
import { createJobRanks } from "./job-rank.ts";

/** What a scoring worker is started with. */
export interface ScoringWorkerData {
  /** Scoring options as createMonitor resolved them (option > env > config file > default, calibrated threshold). */
  readonly score: ResolvedScoreOptions;
  /** The model cache and the judge's API key (the one secret scoring needs), as values: a worker never sees the process environment. */
  readonly settings: BackendSettings;
  /** Send unsupported claim text and evidence back (content capture is on). */
  readonly captureContent: boolean;
  /** Send every claim with its text and offsets back (the review spool is on). */
  readonly review?: boolean;
}

/** What the monitor sends a worker: the observation, and the resample note when it asked the host's sampler. */
export interface ScoringRequest extends Observation {
  readonly resample?: ResampleNote;
  /** A guard check (Monitor.guard): its inference is served before every observation's (a lower rank), guard checks oldest first. */
  readonly guard?: true;
}

if (!parentPort) throw new Error("groundwatch scoring worker: must run in a worker thread");
// No top-level await: the same module also compiles to CommonJS.
void serveWorker<ScoringRequest, EvaluationSummary>(parentPort, async () => {
  const data = workerPayload<ScoringWorkerData>();
  const scorer = await createResolvedScorer(data.score, { settings: data.settings });
  /** Each job's inference queues by when it started (the pool times the oldest first); guard checks before every observation. */
  const ranks = createJobRanks();
  // The scorer's warnings (a fallback to the triage backend, a judge without an API key) go back with "ready".
  const handle = async ({ resample, guard, ...observation }: ScoringRequest, signal: AbortSignal): Promise<EvaluationSummary> => {
    const rank = ranks.next(guard === true);
    // With a resample note the scorer fails closed on a short or failed set itself (scoring/resample-shortfall.ts).
    const asked: Partial<Observation> = resample ? { requested: resample.requested, ...(resample.failure !== undefined ? { resampleFailure: resample.failure } : {}) } : {};
    return summarize(await scorer.score({ ...observation, ...asked }, { signal, rank }), data.captureContent, data.review === true);
  };
  // Closing (once no job runs here) releases the backend: its inference workers end their batches and release their sessions.
  return { handle, warnings: scorer.warnings, close: () => scorer.close() };
});
