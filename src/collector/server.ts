import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ROOT_CONTEXT, TraceFlags, trace } from "@opentelemetry/api";
import express from "express";
import type { Monitor } from "../sdk/types.ts";
import { createMonitor } from "../sdk/monitor.ts";
import { ATTR_REASON } from "../telemetry/semconv.ts";
import { reviewFilesSkippedCounter } from "../telemetry/providers.ts";
import { parseSize } from "./body.ts";
import { createCollectorMetrics } from "./metrics.ts";
import { registerReviewLabelsGauge } from "../review/labels-gauge.ts";
import { labelsPath } from "../review/spool-files.ts";
import type { ObservationInfo, TracedObservation } from "./joiner-types.ts";
import { createTraceJoiner } from "./joiner.ts";
import { createAdmission } from "./admission.ts";
import { createRefusal } from "./refuse.ts";
import { createLogRecordCounter } from "./log-records.ts";
import { createObservationParser } from "./observations.ts";
import type { CollectorSetupOptions, ResolvedCollectorSetup } from "./setup.ts";
import { resolveCollectorSetup } from "./setup.ts";
import { listen, loopbackHostGuard, serverUrl, stopNow } from "./http.ts";
import { listenForProbes } from "./health.ts";
import { createOtlpCodecs } from "./otlp-proto.ts";
import { createProviders } from "./providers.ts";
import { loadTlsCredentials, watchServedCertificate } from "./tls.ts";
import type { RunningCollector } from "./running.ts";
import { addOtlpRoutes } from "./routes/otlp.ts";
import { addObservationsRoute } from "./routes/observations.ts";
import { addGuardRoute } from "./routes/guard.ts";
import { addReviewRoutes } from "./routes/review.ts";
import { addErrorHandlers, addOpsRoutes, collectorReadiness } from "./routes/ops.ts";
import { endpointOf } from "./metrics.ts";
import { settleWithin } from "../workers/settle-within.ts";
import { isLoopbackBind } from "../net/bind-policy.ts";
import { collectorReplica } from "./peer-options.ts";
import { REPLICA_HEADER, createPeers, localAddresses } from "./peers.ts";

export type { RunningCollector } from "./running.ts";
export { METRICS_ELSEWHERE } from "./running.ts";
export { ListenError } from "./http.ts";

/** Lets other callbacks (a health check, another request) run between steps of a large request. */
const pause = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Starts the collector: OTLP/HTTP trace and log ingest (protobuf or JSON, gzip), JSON observations,
 * /metrics, /healthz and /readyz, scoring through the SDK's pipeline. Resolves once it listens and
 * its scorer is ready; rejects (having stopped what it started) when the port cannot be bound or
 * the scorer cannot start.
 */
export async function startCollector(options: CollectorSetupOptions & { readonly resolved?: ResolvedCollectorSetup } = {}): Promise<RunningCollector> {
  const env = options.env ?? process.env;
  // Resolved once: by the caller (serve, which reported this value), else here.
  const setup = options.resolved ?? resolveCollectorSetup(options);
  const resolved = setup.collector;
  // Read before anything starts: a certificate and key that cannot be served are a ConfigError.
  const credentials = resolved.tls ? loadTlsCredentials(resolved.tls) : undefined;
  const bodyLimit = parseSize(resolved.bodyLimit);
  const providers = createProviders(env, resolved.drainMs);
  const { prometheus, meterProvider, tracerProvider, loggerProvider } = providers;
  let monitor: Monitor;
  try {
    monitor = createMonitor({ ...setup.monitorOptions, tracerProvider, meterProvider, loggerProvider }, setup.monitor);
  } catch (error) {
    await providers.shutdown(0);
    throw error;
  }
  const meter = meterProvider.getMeter("groundwatch-collector");
  const logRecords = createLogRecordCounter(meter, resolved.attributeMapping);
  const metrics = createCollectorMetrics(meter, {
    routeLabel: (route) => monitor.routeLabel(route),
    levels: () => ({ traces: joiner.size, waiting: joiner.waiting, bytes: joiner.bytes, maxTraces: resolved.maxTraces, maxBytes: resolved.maxBufferBytes }),
  });
  const observeTraced = (o: TracedObservation, info: ObservationInfo): void => {
    metrics.interaction(o.route, info.convention);
    const parent = o.parentSpanId ? trace.setSpanContext(ROOT_CONTEXT, { traceId: o.traceId, spanId: o.parentSpanId, traceFlags: TraceFlags.SAMPLED, isRemote: true }) : ROOT_CONTEXT;
    monitor.observe({ context: o.context, answer: o.answer, ...(o.question !== undefined ? { question: o.question } : {}) }, { route: o.route, parent });
  };
  const joiner = createTraceJoiner({
    timeoutMs: resolved.traceTimeoutMs,
    maxAgeMs: resolved.maxTraceAgeMs,
    maxTraces: resolved.maxTraces,
    maxTraceBytes: resolved.maxTraceBytes,
    maxBufferBytes: resolved.maxBufferBytes,
    maxDocuments: resolved.maxDocuments,
    maxAnswerChars: resolved.maxAnswerChars,
    mapping: resolved.attributeMapping,
    promptContext: resolved.promptContext,
    now: () => Date.now(),
    onObservation: observeTraced,
    onIncomplete: (reason, route) => metrics.incomplete(reason, route),
    // A complete trace is handed to the monitor only when its queue has room: else it waits in the
    // buffer (and ingest answers 429 meanwhile), so nothing accepted is dropped for a full queue.
    canHandOff: (route, bytes) => monitor.hasRoomFor([route], bytes),
  });
  // The review spool's labels (monitor.review.dir, serve --review-dir): labelled answers by kind and agreement.
  if (monitor.reviewDir !== undefined) {
    const filesSkipped = reviewFilesSkippedCounter(meterProvider);
    registerReviewLabelsGauge(meter, { path: labelsPath(monitor.reviewDir), onSkipped: (reason) => filesSkipped.add(1, { [ATTR_REASON]: reason }) });
  }
  const admission = createAdmission({ joiner, queue: monitor, maxTraces: resolved.maxTraces, maxBufferBytes: resolved.maxBufferBytes, traceTimeoutMs: resolved.traceTimeoutMs, now: () => Date.now() });
  const refusal = createRefusal({ bodyLimit, token: resolved.token, countRefused: (endpoint, reason) => metrics.refused(endpoint, reason) });
  /** Requests admitted and not yet answered: close() lets them finish. */
  const inflight = new Set<Promise<unknown>>();
  const track = <T>(work: Promise<T>): Promise<T> => {
    inflight.add(work);
    return work.finally(() => inflight.delete(work));
  };

  // This replica's name, on every reply (x-groundwatch-replica), and its peers.
  const replica = collectorReplica(setup.monitor.review?.replica, env);
  const peers = createPeers(
    { ...resolved.peers, scheme: resolved.tls ? "https" : "http", replica, token: resolved.token },
    { count: (outcome) => metrics.peerRequest(outcome), selfAddresses: () => (server ? localAddresses((server.address() as AddressInfo).port) : []) },
  );

  const app = express();
  app.disable("x-powered-by");
  app.use((_req, res, next) => {
    res.setHeader(REPLICA_HEADER, replica);
    next();
  });
  // DNS rebinding: on loopback, with a token or without, only requests addressed to a loopback name are answered.
  const hostGuard = isLoopbackBind(resolved.host) ? loopbackHostGuard((req) => metrics.refused(endpointOf(req.path), "misdirected")) : undefined;
  if (hostGuard) app.use(hostGuard);
  const readiness = collectorReadiness({ monitor, joiner, admission, maxTraces: resolved.maxTraces, maxBufferBytes: resolved.maxBufferBytes });
  addOpsRoutes(app, { refusal, monitor, readiness, replica, peers, metricsHandler: (req, res) => prometheus.getMetricsRequestHandler(req, res) });
  const ingest = { refusal, admission, bodyLimit, bodyLimitText: resolved.bodyLimit, track };
  // The OTLP protobuf codecs: the vendored .proto files are read on the first protobuf request.
  addOtlpRoutes(app, { ...ingest, joiner, metrics, logRecords, codecs: createOtlpCodecs(), pause });
  const parse = createObservationParser(resolved);
  addObservationsRoute(app, { ...ingest, monitor, metrics, parse });
  // The monitor's guard defaults, resolved once with its other options (each request's options go over them).
  addGuardRoute(app, { ...ingest, monitor, metrics, parse, defaults: setup.monitor.guard, concurrency: resolved.guardConcurrency });
  // The review spool over the API (groundwatch review/export/evidence --url): 404 naming --review-dir without one.
  addReviewRoutes(app, { refusal, reviewDir: monitor.reviewDir, replica, peers });
  addErrorHandlers(app, { refusal, logContent: resolved.logContent });

  let server: Server | undefined;
  let probes: Server | undefined;
  try {
    server = await listen(app, { ...resolved, tls: credentials, onRefused: (reason) => metrics.refused("connection", reason) });
    // The orchestrator's probes on a listener of their own (collector.healthPort), out of ingest's reach.
    if (resolved.healthPort !== undefined) {
      probes = await listenForProbes({ ...resolved, port: resolved.healthPort, guard: hostGuard, readiness, onRefused: (reason) => metrics.refused("health_connection", reason) });
    }
    try {
      await monitor.ready();
    } catch (error) {
      throw new Error(`the scoring backend could not start: ${(error as Error).message}`);
    }
  } catch (error) {
    for (const s of [server, probes]) if (s) stopNow(s);
    await monitor.shutdown(0);
    await providers.shutdown(1000);
    throw error;
  }
  const listening = server;
  // A renewed certificate (cert-manager rewrites the mounted files) is served without a restart.
  const certificate = watchServedCertificate(listening, resolved.tls, credentials);
  const sweeper = setInterval(() => {
    joiner.sweep();
    admission.check();
  }, Math.min(1000, resolved.traceTimeoutMs)).unref();
  let closing: Promise<void> | undefined;
  return {
    url: serverUrl(listening),
    healthUrl: probes ? serverUrl(probes) : undefined,
    tls: certificate ? { current: certificate.current, check: certificate.check } : undefined,
    monitor,
    options: resolved,
    replica,
    incompleteStats: () => metrics.incompleteStats(),
    buffered: () => ({ traces: joiner.size, waiting: joiner.waiting, bytes: joiner.bytes }),
    refusedStats: () => metrics.refusedStats(),
    close(deadlineMs = resolved.drainMs): Promise<void> {
      closing ??= (async () => {
        const end = Date.now() + deadlineMs;
        const left = (): number => Math.max(0, end - Date.now());
        clearInterval(sweeper);
        certificate?.stop();
        // No new connections; idle ones close now, busy ones once their request is answered (or at once, past the wait).
        const stopped = new Promise<void>((resolve) => listening.close(() => resolve()));
        if (probes) stopNow(probes);
        await settleWithin(Promise.allSettled([...inflight]), left());
        listening.closeAllConnections();
        await settleWithin(stopped, left());
        joiner.drain();
        // The last part of the deadline is kept for the final export, whose timeout fits in it.
        await monitor.shutdown(Math.max(0, left() - (providers.exportTimeoutMs + 500)));
        await providers.shutdown(left());
      })();
      return closing;
    },
  };
}
