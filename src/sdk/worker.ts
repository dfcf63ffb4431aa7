import { parentPort, workerData } from "node:worker_threads";
import type { ScoreOptions } from "../config/score-options.ts";
import { serveWorker } from "../nli/worker-pool.ts";
import type { Observation, ScoredAnswer } from "../nli/scorer.ts";
import { createScorer } from "../nli/scorer.ts";

/** What a scoring worker is started with. */
export interface ScoringWorkerData {
  readonly scoring: ScoreOptions;
  readonly env: Record<string, string | undefined>;
}

if (!parentPort) throw new Error("groundwatch scoring worker: must run in a worker thread");
await serveWorker<Observation, ScoredAnswer>(parentPort, async () => {
  const data = workerData as ScoringWorkerData;
  const scorer = await createScorer(data.scoring, { env: data.env });
  return (observation) => scorer.score(observation);
});
