import type { Span } from "@opentelemetry/api";
import { ROOT_CONTEXT, diag } from "@opentelemetry/api";
import { resolveBackendSettings } from "../config/hub.ts";
import { countLiveMonitor } from "./live-monitors.ts";
import type { ObservableSources } from "../telemetry/instruments.ts";
import { createProviderBinding } from "../telemetry/providers.ts";
import { createFlaggedRing } from "../evaluation/flagged-ring.ts";
import { recordFailure, recordGuardDecision } from "../telemetry/record.ts";
import type { GuardDecision } from "./guard-types.ts";
import { ATTR_CONTENT_SINK, ATTR_REASON, ATTR_RESAMPLE_OUTCOME, ATTR_ROUTE, SPAN_EVALUATE } from "../telemetry/semconv.ts";
import type { MonitorOptions, ResolvedMonitorOptions } from "./options.ts";
import { resolveMonitorOptions } from "./options.ts";
import { createCalibrationState } from "./calibration-state.ts";
import type { Sampler } from "./sampling.ts";
import { createSampler } from "./sampling.ts";
import type { Resampler } from "./resample.ts";
import { createResampler } from "./resample.ts";
import { createObserve } from "./observe.ts";
import type { FlaggedAnswer } from "../evaluation/types.ts";
import type { FlaggedPage, FlaggedPageQuery, FlaggedQuery } from "../evaluation/flagged-ring.ts";
import type { Monitor, MonitorHealth, MonitorStats, StreamGuardInput } from "./types.ts";
import type { Job } from "./scheduler.ts";
import { Scheduler } from "./scheduler.ts";
import { createResampleStage } from "./resample-stage.ts";
import { createRouteTallies } from "./route-tally.ts";
import { checkStartup } from "./startup-checks.ts";
import { createReviewSpool } from "./review-spool.ts";
import { fillFlaggedRing } from "./flagged-restore.ts";
import { createRecording } from "./recording.ts";
import { createScoringPool } from "./scoring-pool.ts";
import { createContentPolicy } from "../telemetry/content-policy.ts";
import { createGuard, createGuardTally } from "./guard.ts";
import type { StreamGuardDeps } from "./guard-stream.ts";
import { createStreamGuard } from "./guard-stream.ts";
import type { StreamGuard, StreamGuardListener, StreamGuardOptions } from "./guard-stream-types.ts";
import { guardStreamEvents, signalOf } from "./guard-stream-wrap.ts";

/**
 * Creates a monitor. Options are validated here (a bad one throws a ConfigError naming
 * it); after that, nothing the monitor does throws into the host. An edge that has resolved
 * `options` already (the collector) passes that resolution, so that the monitor runs the
 * configuration the edge reported.
 */
export function createMonitor(options: MonitorOptions = {}, preResolved?: ResolvedMonitorOptions): Monitor {
  let resolved: ResolvedMonitorOptions = preResolved ?? resolveMonitorOptions(options);
  const env = options.env ?? process.env;
  const scoreOptions = resolved.score;
  // Guard mode's defaults, resolved with the other options (option > env > config file > built-in).
  const guardDefaults = resolved.guard;
  const backendSettings = resolveBackendSettings(env);
  checkStartup(resolved, scoreOptions, backendSettings.hubCacheDir);
  // Fitted on groundwatch's examples, or with another backend: warned about, and refused for drift.
  const calibrationState = createCalibrationState(resolved, scoreOptions.backend);
  const releaseLive = countLiveMonitor(resolved.workers);
  const random = options.random ?? Math.random;
  const now = options.now ?? (() => performance.now());
  let sampler: Sampler = createSampler(resolved.sampling, random);

  const counts = { seen: 0, notSampled: 0, sampled: 0, scored: 0, dropped: {} as Record<string, number>, failed: {} as Record<string, number> };
  let accepting = true;
  const resampler: Resampler | undefined = resolved.resample ? createResampler(resolved.resample, { now, random }) : undefined;
  const tallies = createRouteTallies({
    maxRoutes: resolved.maxRoutes,
    preset: Object.keys(resolved.sampling.routes ?? {}).filter((r) => !r.includes("*")),
    driftWindowSize: resolved.drift.windowSize,
    driftMinScores: resolved.drift.minScores,
    driftReference: (route) => calibrationState.driftReference(route),
  });
  const routeLabels = tallies.labels;
  const sources: ObservableSources & { workersAlive?: () => number | undefined; flagged?: ObservableSources["flagged"] } = { queueDepth: () => scheduler.waiting(), routes: tallies.routes, drift: tallies.drift, scoring: calibrationState.scoringInfo, driftRefused: calibrationState.driftRefused };
  const providers = createProviderBinding({ tracerProvider: options.tracerProvider, meterProvider: options.meterProvider, loggerProvider: options.loggerProvider, sources });

  const drop = (route: string, reason: string): void => {
    counts.dropped[reason] = (counts.dropped[reason] ?? 0) + 1;
    providers.instruments().dropped.add(1, { [ATTR_ROUTE]: route, [ATTR_REASON]: reason });
  };
  const fail = (route: string, reason: string): void => {
    counts.failed[reason] = (counts.failed[reason] ?? 0) + 1;
    providers.instruments().failed.add(1, { [ATTR_ROUTE]: route, [ATTR_REASON]: reason });
  };

  // The answers behind the page: the most recent flagged (and unscorable) ones per route label, bytes bounded.
  const flaggedRing = createFlaggedRing({ perRoute: resolved.flaggedPerRoute, maxBytes: resolved.flaggedMaxBytes, onDrop: (reason) => providers.instruments().flaggedDropped.add(1, { [ATTR_REASON]: reason }) });

  // With a review spool: the ring filled back from this replica's newest flagged records, before the first answer (bounded read).
  const restored = resolved.review ? fillFlaggedRing(flaggedRing, resolved, () => providers.instruments()) : { restored: 0, unreadable: 0 };
  sources.flagged = () => ({ sinceMs: flaggedRing.since(), oldestMs: flaggedRing.oldest(), restored: restored.restored, restoreSkipped: { unreadable: restored.unreadable } });

  // Which user text the span, the ring and the spool carry: one policy, one rule for a throwing redact hook.
  const contentPolicy = createContentPolicy({
    captureContent: resolved.captureContent,
    redact: options.redact,
    maxLength: resolved.contentMaxLength,
    onWithheld: (sink, route, error) => {
      providers.instruments().contentWithheld.add(1, { [ATTR_ROUTE]: route, [ATTR_REASON]: "redact_error", [ATTR_CONTENT_SINK]: sink });
      diag.error(`groundwatch: the redact hook threw (${error instanceof Error ? error.message : String(error)}); the ${sink} record of the evaluation on route ${route} is made without content`);
    },
  });

  // The review spool (review.dir, with content capture): flagged answers and a sample of grounded ones.
  const reviewSpool = resolved.review ? createReviewSpool({ review: resolved.review, random, content: contentPolicy, instruments: () => providers.instruments() }) : undefined;

  const scheduler: Scheduler = new Scheduler({
    now,
    scoringShare: resolved.scoringShare,
    workers: resolved.workers,
    inFlightPerWorker: resolved.inFlightPerWorker,
    queueSize: resolved.queueSize,
    queueBytes: resolved.queueBytes,
    workersState: () => scoringPool.state(),
    score: (job) => score(job),
  });
  // Resampling stage, between the queue and the workers, owned by the scheduler: jobs whose resample
  // is waiting or running, and jobs back from it, scored before the queue.
  const resampleStage = createResampleStage({ resampler, spanRelation: resolved.spanRelation, accepting: () => accepting, instruments: () => providers.instruments() });
  scheduler.attach(resampleStage);

  // The scoring workers: started now, ready (or failed) later; the scheduler dispatches once they are.
  const scoringPool = createScoringPool({ resolved, backendSettings, instruments: () => providers.instruments(), onChange: () => scheduler.pump() });
  sources.workersAlive = () => scoringPool.alive();

  /** Records a scored result through its views: telemetry, the ring, the review spool, onEvaluation. */
  const record = createRecording({
    resolved: () => resolved,
    content: contentPolicy,
    onEvaluation: options.onEvaluation,
    providers,
    flaggedRing,
    reviewSpool,
    scored: (route, result) => {
      counts.scored++;
      calibrationState.scored(result.backend, result.threshold);
      if (result.score !== null) tallies.addScore(route, result.score);
    },
  });

  // Guard mode: checks scored at once on the same workers, ranked before every observation; counted here.
  const guardTally = createGuardTally();
  const recordGuard = (decision: GuardDecision): void => {
    guardTally.add(decision);
    recordGuardDecision(decision, { logger: providers.logger(), instruments: providers.instruments(), content: contentPolicy });
  };
  const guard = createGuard({
    now,
    defaults: guardDefaults,
    routeLabel: (route) => routeLabels.label(route),
    accepting: () => accepting,
    pool: scoringPool,
    limits: { maxAnswerChars: scoreOptions.maxAnswerChars, maxContextChars: scoreOptions.maxContextChars, maxDocuments: scoreOptions.maxDocuments },
    // Every decision is counted (MonitorStats.guard) and recorded: a gen_ai.guardrail.result event
    // and the guard metrics (telemetry/record.ts), its text only under the content policy.
    onDecision: (decision) => recordGuard(decision),
  });

  // Guarded streams: checks through the same guard, not counted one by one; one decision per stream, counted here.
  const streamDeps: StreamGuardDeps = { now, assess: guard.assess, record: recordGuard, defaults: guardDefaults, routeLabel: (route) => routeLabels.label(route), maxAnswerChars: scoreOptions.maxAnswerChars };
  const openStreamGuard = (input: StreamGuardInput, streamOptions: StreamGuardOptions | undefined, listener: StreamGuardListener): StreamGuard => createStreamGuard(streamDeps, input, streamOptions, listener);

  const observe = createObserve({ providers, tallies, counts, sampler: () => sampler, accepting: () => accepting, scheduler, fail, drop });

  /** Scores one job in a worker under its evaluation span, and records the result or why there is none. */
  const score = async (job: Job): Promise<void> => {
    const started = now();
    let span: Span | undefined;
    try {
      const links = resolved.spanRelation === "link" && job.parentSpan ? [{ context: job.parentSpan }] : [];
      span = providers.tracer().startSpan(
        SPAN_EVALUATE,
        { links, attributes: { [ATTR_ROUTE]: job.route, ...job.attributes, ...(job.resampleOutcome ? { [ATTR_RESAMPLE_OUTCOME]: job.resampleOutcome } : {}) } },
        resolved.spanRelation === "child" ? job.parent : ROOT_CONTEXT,
      );
      const result = await scoringPool.run(job.observation);
      record(job, result, span, (now() - started) / 1000);
    } catch (error) {
      const reason = scoringPool.failureReason(error);
      const message = error instanceof Error ? error.message : String(error);
      fail(job.route, reason);
      if (span) recordFailure(span, reason, message);
      diag.warn(`groundwatch: evaluation failed (${reason}) on route ${job.route}: ${message}`);
    } finally {
      span?.end();
    }
  };

  return {
    reviewDir: resolved.review?.dir,
    observe,
    guard: (input, guardOptions) => guard.check(input, guardOptions),
    recordGuardDecision: (decision) => recordGuard(decision),
    openStreamGuard,
    guardStream: (source, input, streamOptions) => guardStreamEvents((listener) => openStreamGuard(input, streamOptions, listener), source, signalOf(streamOptions)),
    flush(): Promise<void> {
      return scheduler.flush();
    },
    async shutdown(deadlineMs = 10_000): Promise<void> {
      accepting = false;
      // Guard checks in flight are answered now (bypass, closed): a host waits on them.
      guard.close();
      // Resampler calls in flight are aborted (their observations are scored without entropy);
      // the draining below is for scoring, not for the host's model.
      resampler?.close();
      resampleStage.startResamples();
      for (const job of await scheduler.drain(deadlineMs)) drop(job.route, "shutdown");
      const closed = scoringPool.close();
      releaseLive();
      await closed;
      // The pool rejected what was in flight: wait until each of those is counted.
      await scheduler.settled();
      reviewSpool?.close();
    },
    reload(): void {
      try {
        const next = resolveMonitorOptions(options);
        sampler = createSampler(next.sampling, random);
        resolved = { ...resolved, sampling: next.sampling };
      } catch (error) {
        diag.error(`groundwatch: reload kept the previous sampling rates: ${(error as Error).message}`);
      }
    },
    stats(): MonitorStats {
      return { seen: counts.seen, notSampled: counts.notSampled, sampled: counts.sampled, scored: counts.scored, dropped: { ...counts.dropped }, failed: { ...counts.failed }, pending: scheduler.pending(), resample: { calls: { ...resampleStage.counts() }, inFlight: resampler?.inFlight ?? 0 }, warnings: [...scoringPool.warnings()], guard: guardTally.read() };
    },
    flagged(query?: FlaggedQuery): FlaggedAnswer[] {
      try {
        return flaggedRing.read(query);
      } catch (error) {
        diag.error(`groundwatch: flagged() failed: ${(error as Error).message}`);
        return [];
      }
    },
    flaggedPage(query?: FlaggedPageQuery): FlaggedPage {
      try {
        return flaggedRing.page(query);
      } catch (error) {
        diag.error(`groundwatch: flaggedPage() failed: ${(error as Error).message}`);
        // Nothing read: the reader tries again from where it was.
        return { flagged: [], cursor: query?.after ?? "", more: false, missed: 0 };
      }
    },
    routeLabel(route: string): string {
      return routeLabels.label(route);
    },
    hasRoomFor(routes: readonly string[], bytes = 0): boolean {
      const expected = Math.ceil(routes.reduce((n, r) => n + sampler.rateFor(r), 0));
      return scheduler.hasRoom(expected, bytes);
    },
    async ready(): Promise<void> {
      await scoringPool.ready();
    },
    health(): MonitorHealth {
      const workers = scoringPool.workers();
      const queueState = { depth: scheduler.pending(), bytes: scheduler.bytes() };
      const warnings = [...scoringPool.warnings()];
      const not = (reason: string): MonitorHealth => ({ ready: false, reason, workers, queue: queueState, warnings });
      if (scoringPool.closing || !accepting) return not("shut down");
      const workersNotReady = scoringPool.notReadyReason();
      if (workersNotReady !== undefined) return not(workersNotReady);
      return { ready: true, workers, queue: queueState, warnings };
    },
  };
}
