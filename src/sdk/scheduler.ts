import type { Attributes, Context, SpanContext } from "@opentelemetry/api";
import type { ResampleOutcome } from "./resample.ts";
import type { ScoringRequest } from "./worker.ts";
import { settleWithin } from "../workers/settle-within.ts";

/** An observation on its way to scoring: copied, with where it came from. */
export interface Job {
  readonly route: string;
  readonly observation: ScoringRequest;
  readonly parent: Context;
  readonly parentSpan: SpanContext | undefined;
  readonly attributes: Attributes | undefined;
  /** Text the job holds (≈ bytes), counted against queueBytes until it settles; resamples add theirs once they arrive. */
  readonly bytes: number;
  /** Whether it is resampled before scoring: decided once, when it reaches the head of the queue. */
  resamplePicked?: boolean;
  /** How its resample call ended, for the evaluation span. */
  readonly resampleOutcome?: ResampleOutcome;
}

/** Idle time after a job of `durationMs` so that scoring keeps at most `share` of a core busy. */
export function cooldownMs(durationMs: number, share: number): number {
  return share >= 1 ? 0 : durationMs * (1 / share - 1);
}

/** Whether jobs may start: `starting` (no workers yet) and `down` (no live worker; one is being replaced) keep them queued. */
export type WorkersState = "starting" | "down" | "open";

/** A stage between the queue and scoring (the resample stage): it takes jobs from the queue's head and returns them. */
export interface SchedulerStage {
  /** Jobs taken by the stage and not returned yet. */
  pending(): number;
  /** Moves the jobs at the head of the queue that it wants into the stage; called before each dispatch. */
  advance(): void;
  /** Whether the queue's head waits for the stage instead of being scored now. */
  holds(job: Job): boolean;
  /** Gives up every job the stage holds and has not handed on (at shutdown, once the deadline passed). */
  takeAll(): Job[];
}

/** What a scheduler dispatches to, and its bounds. */
export interface SchedulerOptions {
  /** The clock (ms) cooldowns are measured on. */
  readonly now: () => number;
  /** The share of a core scoring may keep busy; below 1 each job is followed by an idle cooldown. */
  readonly scoringShare: number;
  /** Scoring workers: jobs scored at once are as many (share below 1) or `inFlightPerWorker` times as many. */
  readonly workers: number;
  /** Jobs each worker scores at once when the scoring share is 1. Default 2. */
  readonly inFlightPerWorker?: number;
  /** Most observations waiting: queued, in the stage, or back from it. */
  readonly queueSize: number;
  /** Most text (≈ bytes) held by waiting and in-flight jobs. */
  readonly queueBytes: number;
  /** Whether jobs may start now. */
  readonly workersState: () => WorkersState;
  /** Scores one job; it counts in flight until the promise settles, which must never reject. */
  readonly score: (job: Job) => Promise<void>;
  /** The stage jobs pass through before scoring, if any (given by a function: it may need the scheduler itself). */
  readonly stage?: () => SchedulerStage;
}

/**
 * The monitor's queue: jobs wait here (bounded by count and by text), pass through the stage,
 * and are dispatched to scoring, at most `slots` at once, with a cooldown after each when
 * scoring may keep only a share of a core busy. Nothing here throws into the caller's host.
 */
export class Scheduler {
  /** Jobs scored at once: the pump's dispatch limit. */
  readonly slots: number;
  private readonly options: SchedulerOptions;
  private readonly queue: Job[] = [];
  /** Jobs back from the stage, scored before the queue. */
  private readonly returned: Job[] = [];
  private inFlight = 0;
  /** Text held by queued and in-flight jobs (≈ bytes), against queueBytes. */
  private queuedBytes = 0;
  /** With a scoring share below 1, no job starts before this time (ms, on `now`). */
  private resumeAt = 0;
  private resumeTimer: NodeJS.Timeout | undefined;
  private readonly idleWaiters: Array<() => void> = [];
  /** Settlement of every job in flight, so a drain returns only once each is counted. */
  private readonly running = new Set<Promise<void>>();

  constructor(options: SchedulerOptions) {
    this.options = options;
    this.slots = options.scoringShare < 1 ? options.workers : options.workers * (options.inFlightPerWorker ?? 2);
  }

  /** Observations waiting to be scored: queued, in the stage, or back from it. */
  waiting(): number {
    return this.queue.length + (this.options.stage?.().pending() ?? 0) + this.returned.length;
  }

  /** Observations waiting or being scored. */
  pending(): number {
    return this.waiting() + this.inFlight;
  }

  /** Text held by waiting and in-flight jobs (≈ bytes). */
  bytes(): number {
    return this.queuedBytes;
  }

  /** Whether `expected` more observations and `bytes` more text fit. */
  hasRoom(expected: number, bytes: number): boolean {
    return this.waiting() + expected <= this.options.queueSize && this.queuedBytes + bytes <= this.options.queueBytes;
  }

  /** Queues a job, or says why it does not fit; call pump() after. */
  enqueue(job: Job): "queue_full" | "queue_bytes" | undefined {
    if (this.waiting() >= this.options.queueSize) return "queue_full";
    if (this.queuedBytes + job.bytes > this.options.queueBytes) return "queue_bytes";
    this.queuedBytes += job.bytes;
    this.queue.push(job);
    return undefined;
  }

  /** The job at the head of the queue (for the stage). */
  head(): Job | undefined {
    return this.queue[0];
  }

  /** Takes the job at the head of the queue (for the stage). */
  takeHead(): Job | undefined {
    return this.queue.shift();
  }

  /** Jobs back from the stage and not dispatched yet. */
  returnedCount(): number {
    return this.returned.length;
  }

  /** A job back from the stage: scored before the queue (call pump() after). */
  returnJob(job: Job): void {
    this.returned.push(job);
  }

  /** Counts `extra` text (≈ bytes) against queueBytes, if it fits. */
  reserve(extra: number): boolean {
    if (this.queuedBytes + extra > this.options.queueBytes) return false;
    this.queuedBytes += extra;
    return true;
  }

  /** Dispatches what can start now. */
  pump(): void {
    const state = this.options.workersState();
    if (state === "starting") return;
    // No live worker (one is being replaced): keep the jobs queued; the pool calls back when one is up.
    if (state === "down") return this.settleIdle();
    const stage = this.options.stage?.();
    stage?.advance();
    const wait = this.resumeAt - this.options.now();
    if (wait > 0 && (this.queue.length > 0 || this.returned.length > 0)) {
      this.resumeTimer ??= setTimeout(() => {
        this.resumeTimer = undefined;
        this.pump();
      }, wait);
      return;
    }
    while (this.inFlight < this.slots) {
      // A head the stage holds waits for it (advance() moves it once there is room).
      const head = this.queue[0];
      const job = this.returned.shift() ?? (head && stage?.holds(head) ? undefined : this.queue.shift());
      if (!job) break;
      this.runJob(job);
      stage?.advance();
    }
    this.settleIdle();
  }

  /** Resolves when every job so far has been scored or given up. */
  flush(): Promise<void> {
    if (this.waiting() === 0 && this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Waits up to `deadlineMs` for the jobs to finish, then gives up the ones not started (returned, for counting). */
  async drain(deadlineMs: number): Promise<Job[]> {
    await settleWithin(this.flush(), deadlineMs);
    clearTimeout(this.resumeTimer);
    const left = [...this.returned.splice(0), ...(this.options.stage?.().takeAll() ?? []), ...this.queue.splice(0)];
    for (const job of left) this.queuedBytes -= job.bytes;
    return left;
  }

  /** Resolves once every job in flight has settled (after the workers are closed). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.running]);
    this.settleIdle();
  }

  private settleIdle(): void {
    if (this.waiting() === 0 && this.inFlight === 0) for (const w of this.idleWaiters.splice(0)) w();
  }

  private runJob(job: Job): void {
    this.inFlight++;
    const { now, scoringShare } = this.options;
    const started = now();
    const settled = (async (): Promise<void> => {
      try {
        await this.options.score(job);
      } finally {
        this.inFlight--;
        this.queuedBytes -= job.bytes;
        if (scoringShare < 1) this.resumeAt = Math.max(this.resumeAt, now() + cooldownMs(now() - started, scoringShare));
      }
    })();
    this.running.add(settled);
    void settled.finally(() => {
      this.running.delete(settled);
      this.pump();
      this.settleIdle();
    });
  }
}
