import { parentPort, workerData } from "node:worker_threads";
import type { ScoreOptions } from "../config/score-options.ts";
import { serveWorker } from "../nli/worker-pool.ts";
import type { Observation } from "../scoring/scorer.ts";
import { createScorer } from "../scoring/scorer.ts";
import type { EvaluationSummary } from "../telemetry/summary.ts";
import { summarize } from "../telemetry/summary.ts";

/** What a scoring worker is started with. */
export interface ScoringWorkerData {
  readonly scoring: ScoreOptions;
  /** The config file's scoring section (below options and the environment). */
  readonly scoringFile?: ScoreOptions;
  readonly env: Record<string, string | undefined>;
  /** Send unsupported claim text and evidence back (content capture is on). */
  readonly captureContent: boolean;
}

if (!parentPort) throw new Error("groundwatch scoring worker: must run in a worker thread");
// No top-level await: the same module also compiles to CommonJS.
void serveWorker<Observation, EvaluationSummary>(parentPort, async () => {
  const data = workerData as ScoringWorkerData;
  const scorer = await createScorer(data.scoring, { env: data.env, ...(data.scoringFile ? { file: data.scoringFile } : {}) });
  return async (observation) => summarize(await scorer.score(observation), data.captureContent);
});
