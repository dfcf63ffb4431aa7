import type { Attributes, Context } from "@opentelemetry/api";
import type { ContextInput } from "../core/context.ts";
import type { Sample } from "../core/entropy/semantic-entropy.ts";
import type { FlaggedAnswer } from "../evaluation/types.ts";
import type { FlaggedPage, FlaggedPageQuery, FlaggedQuery } from "../evaluation/flagged-ring.ts";
import type { ResampleOutcome } from "./resample.ts";

/** What the host passes at the point where it has the retrieved context and the answer. */
export interface ObserveInput {
  /** Route template (e.g. "/api/advice/:id"), never the URL: it labels metrics. */
  readonly route: string;
  readonly context: ContextInput;
  readonly answer: string;
  readonly question?: string;
  /** Resamples of the same question, for semantic entropy. */
  readonly samples?: readonly Sample[];
  /** Extra attributes for the evaluation span (not for metrics). */
  readonly attributes?: Attributes;
  /** "always" or "never" overrides the sampling rate for this call. */
  readonly sample?: "always" | "never";
}

/**
 * Where every observation went. seen = sampled + notSampled; sampled = scored + dropped + failed + pending.
 * `resample` counts calls to the host's sampler, apart from that identity: an observation whose
 * resample failed is still scored (without a reliable entropy).
 */
export interface MonitorStats {
  readonly seen: number;
  readonly notSampled: number;
  readonly sampled: number;
  readonly scored: number;
  readonly dropped: Readonly<Record<string, number>>;
  readonly failed: Readonly<Record<string, number>>;
  /** Queued, being resampled, or being scored. */
  readonly pending: number;
  /**
   * Resampler calls by outcome (every outcome present, 0 when none), and how many run now; all
   * zero without the `resample` option. `budget` and `busy` count observations picked for
   * resampling but scored without entropy, no call made: the calls-per-minute budget was spent,
   * or maxConcurrent calls were running with as many waiting.
   */
  readonly resample: { readonly calls: Readonly<Record<ResampleOutcome, number>>; readonly inFlight: number };
  /** What the scorer said the user must know when the workers started (as in health()); empty until then. */
  readonly warnings: readonly string[];
}

/** Per-call options of observe(), kept apart from the host's data. */
export interface ObserveOptions {
  /** Route template the observation is recorded under; given here, `input.route` is not read (the express helper passes the request's). */
  readonly route?: string;
  /** The trace context the evaluation belongs to (its span's parent); default the active context. A collector passes the context of the trace it read, which holds without a registered context manager. */
  readonly parent?: Context;
}

export interface Monitor {
  /** The review spool directory in force (docs/review.md), or undefined when review is off. */
  readonly reviewDir: string | undefined;
  /**
   * Returns at once and never throws; scoring happens off the request path. The route is
   * `options.route` when given, otherwise `input.route`.
   */
  observe(input: ObserveInput): void;
  observe(input: Omit<ObserveInput, "route">, options: ObserveOptions & { readonly route: string }): void;
  /** Resolves when every observation sampled so far has been scored, dropped or failed. */
  flush(): Promise<void>;
  /**
   * Stops accepting observations, drains within `deadlineMs` (default 10 s), gives up the rest (counted),
   * then stops the workers: no new inference starts, the batch running finishes, models are released.
   * So it may resolve up to one inference batch after the deadline; a worker is never ended inside a
   * model run (that would abort the process).
   */
  shutdown(deadlineMs?: number): Promise<void>;
  /**
   * The label this monitor records a route under on its metrics: the route sanitised, or
   * `__other__` once maxRoutes distinct routes are labelled. Every metric labelled by a route goes
   * through it (a collector's own counters too), so the cap is the same everywhere.
   */
  routeLabel(route: string): string;
  /**
   * The most recent scored answers that are not grounded: flagged (verdict ungrounded) and unscorable
   * (verdict unscorable, with its reason). Newest first, at most `limit` (default 100,
   * capped at 1000), by route label, cause and time: trace and span ids, verdict, score, and the claims
   * with their evidence's document (its index in the context) and offsets; the question, the answer,
   * claim and evidence text and the evidence documents' id, title and url only with captureContent,
   * after `redact`.
   */
  flagged(query?: FlaggedQuery): FlaggedAnswer[];
  /**
   * The same answers a page at a time, to read on without missing any: pass a page's `cursor` back as
   * `after` (same route and cause) for the answers kept since, oldest first; `more` says another page
   * is ready, `missed` how many the monitor let go (flaggedPerRoute, flaggedMaxBytes) before they
   * were read. Without `after`, the newest first, as `flagged`.
   */
  flaggedPage(query?: FlaggedPageQuery): FlaggedPage;
  /** Re-reads sampling rates from the config file and environment, without a restart. */
  reload(): void;
  stats(): MonitorStats;
  /**
   * Whether the queue has room for the observations of these routes, counting each by its
   * sampling rate (the expected number sampled, rounded up), and for `bytes` more text in the
   * queue's byte budget (queueBytes). A service answers 429 when not.
   */
  hasRoomFor(routes: readonly string[], bytes?: number): boolean;
  /** Resolves once the scoring workers are ready (or rejects with why they could not start). */
  ready(): Promise<void>;
  /**
   * Whether the monitor can score now: false while its workers start, when they failed to start,
   * while no worker is running (a dead one is being replaced), and after shutdown; `reason` says which.
   */
  health(): MonitorHealth;
}

/** What health() reports; readiness endpoints answer from `ready`. */
export interface MonitorHealth {
  readonly ready: boolean;
  /** Why not ready (absent when ready). */
  readonly reason?: string;
  readonly workers: { readonly alive: number; readonly size: number; readonly restarts: number };
  /** Observations queued or being scored, and the text they hold (≈ bytes). */
  readonly queue: { readonly depth: number; readonly bytes: number };
  /**
   * What the scorer said the user must know when the workers started: a fallback to the
   * triage-grade offline backend, a judge called without an API key. Each is also said once with
   * diag.warn. Empty until the workers are ready, and when there is nothing to say.
   */
  readonly warnings: readonly string[];
}
