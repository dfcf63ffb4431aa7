import { diag } from "@opentelemetry/api";
import type { BackendSettings } from "../config/hub.ts";
import type { WorkerPool } from "../workers/worker-pool.ts";
import { PoolError, createWorkerPool, workerUrl } from "../workers/worker-pool.ts";
import type { Instruments } from "../telemetry/instruments.ts";
import { ATTR_REASON } from "../telemetry/semconv.ts";
import type { EvaluationSummary } from "../evaluation/types.ts";
import type { ResolvedMonitorOptions } from "./options.ts";
import { scoringWorkerData } from "./options.ts";
import type { WorkersState } from "./scheduler.ts";
import type { ScoringRequest } from "./worker.ts";

/**
 * The monitor's scoring workers through their life: started with the resolved scoring options (no
 * env crosses into a worker), ready or failed to start, replaced when one crashes or runs over
 * its time, closed at shutdown; and why a job got no result.
 */
export interface ScoringPoolOptions {
  readonly resolved: Pick<ResolvedMonitorOptions, "score" | "captureContent" | "review" | "workers" | "timeoutMs">;
  readonly backendSettings: BackendSettings;
  readonly instruments: () => Instruments;
  /** A worker came back or went, or the pool started or failed to: dispatching may resume. */
  readonly onChange: () => void;
}

export interface ScoringPool {
  /** Resolves once the workers started, rejects with why they could not. */
  ready(): Promise<void>;
  /** Whether jobs may start: starting (no workers yet), down (no live worker; one is being replaced), open. */
  state(): WorkersState;
  /**
   * Scores one observation in a worker; without workers, rejects with why (a PoolError, or the start
   * failure). `signal` gives it up (PoolError "aborted"; its worker withdraws its queued inference).
   */
  run(observation: ScoringRequest, signal?: AbortSignal): Promise<EvaluationSummary>;
  /** The failure reason for a job that got no result: shutdown, scorer_unavailable, timeout, worker_crashed, aborted (its signal) or scorer_error. */
  failureReason(error: unknown): string;
  /** Why the workers cannot take jobs now (undefined: they can). */
  notReadyReason(): string | undefined;
  /** Workers alive (undefined before they started). */
  alive(): number | undefined;
  /** Workers alive, the pool's size and the replacements so far. */
  workers(): { readonly alive: number; readonly size: number; readonly restarts: number };
  /** The scorer's warnings, carried back by the workers' "ready". */
  warnings(): readonly string[];
  /** Whether close() was called: jobs the closing pool gives back are counted "shutdown". */
  readonly closing: boolean;
  /** Closes the workers (once they started or failed to); what was in flight is rejected. */
  close(): Promise<void>;
}

export function createScoringPool(options: ScoringPoolOptions): ScoringPool {
  const { resolved } = options;
  let pool: WorkerPool<ScoringRequest, EvaluationSummary> | undefined;
  let poolError: Error | undefined;
  let scorerWarnings: readonly string[] = [];
  let closing = false;
  const started = createWorkerPool<ScoringRequest, EvaluationSummary>(workerUrl(import.meta.url), scoringWorkerData(resolved, options.backendSettings), {
    size: resolved.workers,
    timeoutMs: resolved.timeoutMs,
    // A worker came back (or went): resume dispatching.
    onChange: () => options.onChange(),
    onRestart: (cause, message) => {
      options.instruments().workerRestarts.add(1, { [ATTR_REASON]: cause });
      diag.warn(`groundwatch: a scoring worker was replaced (${cause}: ${message})`);
    },
  }).then(
    (p) => {
      pool = p;
      scorerWarnings = p.warnings;
      for (const warning of scorerWarnings) diag.warn(`groundwatch: ${warning}`);
      options.onChange();
    },
    (error: unknown) => {
      poolError = error instanceof Error ? error : new Error(String(error));
      diag.error(`groundwatch: scoring workers failed to start: ${poolError.message}`);
      options.onChange();
    },
  );
  return {
    async ready() {
      await started;
      if (poolError) throw poolError;
    },
    state: () => (!pool && !poolError ? "starting" : pool && pool.alive === 0 && !closing ? "down" : "open"),
    run(observation, signal) {
      if (!pool) return Promise.reject(poolError ?? new PoolError("unavailable", "scoring workers unavailable"));
      // The pool times the job out (and replaces its worker), so a runaway job cannot hold the queue.
      return pool.run(observation, signal ? { signal } : undefined);
    },
    failureReason(error) {
      if (error instanceof PoolError) {
        if (error.failure === "closed") return closing ? "shutdown" : "scorer_unavailable";
        if (error.failure === "unavailable") return "scorer_unavailable";
        return error.failure; // timeout, worker_crashed, aborted
      }
      return pool ? "scorer_error" : "scorer_unavailable";
    },
    notReadyReason() {
      if (poolError) return `scoring workers failed to start: ${poolError.message}`;
      if (!pool) return "scoring workers are starting";
      if (pool.alive === 0) return `no scoring worker is running; replacing it${pool.lastError ? ` (last start failed: ${pool.lastError})` : ""}`;
      return undefined;
    },
    alive: () => pool?.alive,
    workers: () => ({ alive: pool?.alive ?? 0, size: resolved.workers, restarts: pool?.restarts ?? 0 }),
    warnings: () => scorerWarnings,
    get closing() {
      return closing;
    },
    async close() {
      closing = true;
      await started;
      await pool?.close();
    },
  };
}
