import type { Server } from "node:http";
import { ROOT_CONTEXT, TraceFlags, diag, trace } from "@opentelemetry/api";
import express from "express";
import type { NextFunction, Request, Response } from "express";
import type { Monitor } from "../sdk/types.ts";
import { createMonitor } from "../sdk/monitor.ts";
import { flaggedHandler } from "./flagged-route.ts";
import { observationBytes } from "../sdk/copy.ts";
import { ATTR_CONVENTION, ATTR_REASON, ATTR_ROUTE, METRICS } from "../telemetry/semconv.ts";
import { labelOrUndefined } from "../telemetry/labels.ts";
import { reviewFilesSkippedCounter } from "../telemetry/providers.ts";
import { checkDeclaredLength, mediaType, parseSize, readBody } from "./body.ts";
import type { RefusalReason } from "./buffer-metrics.ts";
import { createFullWatch, createRequestMetrics, endpointOf, refusalOf } from "./buffer-metrics.ts";
import { registerReviewLabelsGauge } from "../review/labels-gauge.ts";
import { labelsPath } from "../review/spool-files.ts";
import { withoutOwnEvaluations } from "./own-telemetry.ts";
import type { ObservationInfo, TracedObservation } from "./joiner.ts";
import { createTraceJoiner } from "./joiner.ts";
import { createLogRecordCounter } from "./log-records.ts";
import { createObservationParser } from "./observations.ts";
import type { CollectorSetupOptions, ResolvedCollectorSetup } from "./setup.ts";
import { resolveCollectorSetup } from "./setup.ts";
import { listen, loopbackHostGuard, serverUrl, stopNow } from "./http.ts";
import { answeredAtConnection } from "./connections.ts";
import type { Readiness } from "./health.ts";
import { addProbes, listenForProbes } from "./health.ts";
import { createOtlpCodecs } from "./otlp-proto.ts";
import type { OtlpLog, OtlpSpan } from "./otlp.ts";
import { decodeLogsPausing, decodeSpansPausing, encodeLogsResponse, encodeResponse } from "./otlp.ts";
import { createProviders } from "./providers.ts";
import { loadTlsCredentials, watchServedCertificate } from "./tls.ts";
import { runbooksHandler } from "./runbooks.ts";
import type { RunningCollector } from "./running.ts";
import { METRICS_ELSEWHERE } from "./running.ts";
import { settleWithin } from "../workers/settle-within.ts";
import { HttpError } from "../net/http-error.ts";
import { httpStatusOf } from "../net/error-status.ts";
import { bearerToken, tokenMatcher } from "../net/bearer.ts";
import { isLoopbackBind } from "../net/bind-policy.ts";

/** Longest wait for the rest of a refused body (within the limit) before answering anyway, ms. */
const DRAIN_MS = 10_000;

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
  const incompleteStats: Record<string, number> = {};
  const meter = meterProvider.getMeter("groundwatch-collector");
  const incompleteCounter = meter.createCounter(METRICS.collectorIncomplete.name, { unit: METRICS.collectorIncomplete.unit, description: METRICS.collectorIncomplete.description });
  const interactionsCounter = meter.createCounter(METRICS.collectorInteractions.name, { unit: METRICS.collectorInteractions.unit, description: METRICS.collectorInteractions.description });
  const logRecords = createLogRecordCounter(meter, resolved.attributeMapping);
  const countIncomplete = (reason: string, route: string, n = 1): void => {
    incompleteStats[reason] = (incompleteStats[reason] ?? 0) + n;
    // Routes and service names come from the input: labelled through the monitor's one route cap.
    incompleteCounter.add(n, { [ATTR_ROUTE]: monitor.routeLabel(route), [ATTR_REASON]: reason });
  };

  // Admission. The trace buffer's room that requests admitted but still decoding or joining may
  // take is reserved, so that concurrent requests are not all admitted against the same free room.
  const reserved = { bytes: 0, traces: 0 };
  const reserve = (bytes: number, traces: number): (() => void) => {
    reserved.bytes += bytes;
    reserved.traces += traces;
    return () => {
      reserved.bytes -= bytes;
      reserved.traces -= traces;
    };
  };

  const observeTraced = (o: TracedObservation, info: ObservationInfo): void => {
    interactionsCounter.add(1, { [ATTR_ROUTE]: monitor.routeLabel(o.route), [ATTR_CONVENTION]: info.convention });
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
    onIncomplete: (reason, route) => countIncomplete(reason, route),
    // A complete trace is handed to the monitor only when its queue has room: else it waits in the
    // buffer (and ingest answers 429 meanwhile), so nothing accepted is dropped for a full queue.
    canHandOff: (route, bytes) => monitor.hasRoomFor([route], bytes),
  });
  const refusedStats: Record<string, number> = {};
  // The review spool's labels (monitor.review.dir, serve --review-dir): labelled answers by kind and agreement.
  if (monitor.reviewDir !== undefined) {
    const filesSkipped = reviewFilesSkippedCounter(meterProvider);
    registerReviewLabelsGauge(meter, { path: labelsPath(monitor.reviewDir), onSkipped: (reason) => filesSkipped.add(1, { [ATTR_REASON]: reason }) });
  }
  const requestMetrics = createRequestMetrics(meter, () => ({ traces: joiner.size, waiting: joiner.waiting, bytes: joiner.bytes, maxTraces: resolved.maxTraces, maxBytes: resolved.maxBufferBytes }));
  const countRefused = (endpoint: string, reason: RefusalReason): void => {
    const key = `${endpoint} ${reason}`;
    refusedStats[key] = (refusedStats[key] ?? 0) + 1;
    requestMetrics.refused(endpoint, reason);
  };
  // Held full: at 90% or more of maxTraces or of maxBufferBytes (an eviction leaves a full buffer one
  // short) at every check for twice the trace timeout (one burst of traces settles within the timeout
  // of its last record; a buffer still full after two is being held, and traces are being evicted).
  const fullWatch = createFullWatch({ holdMs: 2 * resolved.traceTimeoutMs, now: () => Date.now(), isFull: () => joiner.size >= 0.9 * resolved.maxTraces || joiner.bytes >= 0.9 * resolved.maxBufferBytes });
  /**
   * Whether the trace buffer can take `bytes` more text and `traces` more traces. Incomplete traces
   * are evicted to make room (counted as buffer_full), so only what cannot be let go counts: traces
   * complete and waiting for the scoring queue, and the room reserved by requests being joined. An
   * empty buffer takes any request within the body limit.
   */
  const bufferHasRoom = (bytes: number, traces: number): boolean => {
    fullWatch.check();
    const held = joiner.waitingBytes + reserved.bytes;
    if (held === 0 && joiner.waiting + reserved.traces === 0) return true;
    return held + bytes <= resolved.maxBufferBytes && joiner.waiting + reserved.traces + traces <= resolved.maxTraces;
  };
  /** Whether the scoring queue is keeping up: traces waiting for room (after handing on what fits now) mean it is not. */
  const queueKeepsUp = (): boolean => {
    joiner.handOff();
    return joiner.waiting === 0;
  };
  const parseObservations = createObservationParser(resolved);
  /** Requests admitted and not yet answered: close() lets them finish. */
  const inflight = new Set<Promise<unknown>>();
  const track = <T>(work: Promise<T>): Promise<T> => {
    inflight.add(work);
    return work.finally(() => inflight.delete(work));
  };

  // The OTLP protobuf codecs: the vendored .proto files are read on the first protobuf request.
  const codecs = createOtlpCodecs();
  const app = express();
  app.disable("x-powered-by");
  /**
   * Refuses a request. A body not read yet whose declared length is within the limit is read to its end
   * (and dropped) first, so a client still sending gets the answer — a 429 with its Retry-After —
   * instead of a connection reset ("write EPIPE") that it cannot retry on; bounded by DRAIN_MS. Any
   * other unread body is never read: the answer goes at once and the connection closes after it.
   */
  const refuse = (req: Request, res: Response, status: number, body: object, retry = false, reason: RefusalReason = refusalOf(status)): void => {
    countRefused(endpointOf(req.path), reason);
    const answer = (close: boolean): void => {
      if (res.headersSent) return;
      if (close) res.setHeader("Connection", "close");
      if (retry) res.setHeader("Retry-After", "1");
      res.status(status).json(body);
    };
    if (req.complete) return answer(false);
    const declared = Number(req.headers["content-length"]);
    if (!Number.isFinite(declared) || declared > bodyLimit) return answer(true);
    const timer = setTimeout(() => answer(true), DRAIN_MS);
    req.once("end", () => {
      clearTimeout(timer);
      answer(false);
    });
    req.once("error", () => {
      clearTimeout(timer);
      answer(true);
    });
    req.resume();
  };
  const tokenMatches = resolved.token !== undefined ? tokenMatcher(resolved.token) : undefined;
  const auth = (req: Request, res: Response, next: NextFunction): void => {
    if (!tokenMatches || tokenMatches(bearerToken(req.headers.authorization))) return next();
    res.setHeader("WWW-Authenticate", "Bearer");
    refuse(req, res, 401, { error: "missing or wrong bearer token" });
  };
  const queueFull = (req: Request, res: Response): void => refuse(req, res, 429, { error: "the scoring queue is full; retry later" }, true, "queue_full");
  const bufferFull = (req: Request, res: Response): void => refuse(req, res, 429, { error: "the trace buffer is full of traces waiting for the scoring queue; retry later" }, true, "buffer_full");

  // DNS rebinding: on loopback, with a token or without, only requests addressed to a loopback name are answered.
  const hostGuard = isLoopbackBind(resolved.host) ? loopbackHostGuard((req) => countRefused(endpointOf(req.path), "misdirected")) : undefined;
  if (hostGuard) app.use(hostGuard);
  const readiness = (): Readiness => {
    const health = monitor.health();
    const heldMs = fullWatch.heldForMs();
    const reason =
      health.reason ??
      (heldMs !== undefined
        ? `the trace buffer has been full for ${Math.round(heldMs / 1000)} s (${joiner.size} of ${resolved.maxTraces} traces, ${joiner.bytes} of ${resolved.maxBufferBytes} bytes of text): incomplete traces are evicted for new ones (buffer_full)`
        : undefined);
    return { ready: health.ready && heldMs === undefined, ...(reason !== undefined ? { reason } : {}) };
  };
  addProbes(app, readiness);
  // Runbooks (issue 14): docs/runbooks.md as HTML, the target of the alerts' runbook_url; no auth (src/collector/runbooks.ts).
  app.get("/runbooks", runbooksHandler());
  app.get("/metrics", auth, (req, res) => {
    prometheus.getMetricsRequestHandler(req, res);
  });
  app.get("/v1/flagged", auth, flaggedHandler({ page: (q) => monitor.flaggedPage(q), badRequest: (req, res, error) => refuse(req, res, 400, { error }) }));

  /**
   * OTLP/HTTP ingest of one signal: protobuf or JSON (gzip, deflate, br), partial success for rejected
   * records. A request is admitted only when the trace buffer can hold it and the queue has room for
   * the interactions it could complete; otherwise 429 before anything is kept, so the sender retries.
   */
  const otlpIngest =
    (decode: (body: Buffer, json: boolean) => Promise<{ records: { spans?: OtlpSpan[]; logs?: OtlpLog[] }; rejected: number; tooManyAttributes: number; errors: string[] }>, encode: (rejected: number, message: string, json: boolean) => Buffer | string) =>
    async (req: Request, res: Response): Promise<void> => {
      const type = mediaType(req.headers["content-type"]);
      const json = type === "application/json";
      if (!json && type !== "application/x-protobuf") {
        refuse(req, res, 415, { error: `unsupported content-type ${JSON.stringify(type)}: send application/x-protobuf or application/json` });
        return;
      }
      checkDeclaredLength(req, bodyLimit, resolved.bodyLimit);
      // Cheap refusals before the body is read.
      if (!queueKeepsUp()) return queueFull(req, res);
      if (!bufferHasRoom(Number(req.headers["content-length"] ?? 0), 0)) return bufferFull(req, res);
      await track(
        (async () => {
          const body = await readBody(req, bodyLimit, resolved.bodyLimit);
          const { decoded, own } = withoutOwnEvaluations(await decode(body, json));
          // Admission, with nothing awaited between the checks and the reservation: 429 unless the
          // buffer can hold the request and, when it could complete traces, the queue has room for one.
          if (!queueKeepsUp()) return queueFull(req, res);
          const candidates = joiner.candidates(decoded.records).routes;
          if (candidates.length > 0 && !monitor.hasRoomFor(candidates.slice(0, 1))) return queueFull(req, res);
          const footprint = joiner.footprint(decoded.records);
          if (!bufferHasRoom(footprint.bytes, footprint.traces)) return bufferFull(req, res);
          const release = reserve(footprint.bytes, footprint.traces);
          try {
            await joiner.ingest(decoded.records, pause);
          } finally {
            release();
          }
          // Records without ids cannot join a trace, nor records over MAX_RECORD_ATTRIBUTES: told to the sender and counted.
          if (decoded.rejected > decoded.tooManyAttributes) countIncomplete("invalid_id", "unknown", decoded.rejected - decoded.tooManyAttributes);
          if (decoded.tooManyAttributes > 0) countIncomplete("too_many_attributes", "unknown", decoded.tooManyAttributes);
          for (const route of own) countIncomplete("already_evaluated", route);
          if (decoded.records.logs) logRecords.count(decoded.records.logs);
          res.status(200).type(json ? "application/json" : "application/x-protobuf").send(encode(decoded.rejected, decoded.errors.join("; "), json));
        })(),
      );
    };
  app.post(
    "/v1/traces",
    auth,
    otlpIngest(
      async (body, json) => {
        const d = await decodeSpansPausing(body, json, codecs, pause);
        return { records: { spans: d.spans }, rejected: d.rejected, tooManyAttributes: d.tooManyAttributes, errors: d.errors };
      },
      (rejected, message, json) => encodeResponse(rejected, message, json, codecs),
    ),
  );
  app.post(
    "/v1/logs",
    auth,
    otlpIngest(
      async (body, json) => {
        const d = await decodeLogsPausing(body, json, codecs, pause);
        return { records: { logs: d.logs }, rejected: d.rejected, tooManyAttributes: d.tooManyAttributes, errors: d.errors };
      },
      (rejected, message, json) => encodeLogsResponse(rejected, message, json, codecs),
    ),
  );
  // An SDK whose OTLP exporter points here sends its metrics too: say where they belong instead of a bare 404.
  app.post("/v1/metrics", (req, res) => refuse(req, res, 404, { error: METRICS_ELSEWHERE }));
  app.post("/v1/observations", auth, async (req, res) => {
    const type = mediaType(req.headers["content-type"]);
    if (type !== "application/json") {
      refuse(req, res, 415, { error: `unsupported content-type ${JSON.stringify(type)}: send application/json` });
      return;
    }
    checkDeclaredLength(req, bodyLimit, resolved.bodyLimit);
    // Traces waiting for the queue go first.
    if (!queueKeepsUp()) return queueFull(req, res);
    await track(
      (async () => {
        const body = await readBody(req, bodyLimit, resolved.bodyLimit);
        let value: unknown;
        try {
          value = JSON.parse(body.toString("utf8"));
        } catch {
          throw new HttpError(400, "the body is not valid JSON");
        }
        const parsed = parseObservations(value);
        if (!parsed.ok) {
          countRefused("/v1/observations", "bad_request");
          res.status(400).json({ error: "invalid observation", fields: parsed.errors });
          return;
        }
        const observations = parsed.observations.map((o) => ({ ...o, route: labelOrUndefined(o.route) ?? "unknown" }));
        if (!queueKeepsUp() || !monitor.hasRoomFor(observations.map((o) => o.route), observations.reduce((n, o) => n + observationBytes(o), 0))) return queueFull(req, res);
        for (const o of observations) monitor.observe(o);
        res.status(202).json({ accepted: observations.length });
      })(),
    );
  });
  // Refused bodies (size, encoding, JSON, OTLP) become clear 4xx answers; nothing else leaks.
  app.use((error: Error & { status?: number }, req: Request, res: Response, next: NextFunction) => {
    void next;
    const status = httpStatusOf(error) ?? (error.status && error.status >= 400 && error.status < 500 ? error.status : 500);
    const message = status === 500 ? "internal error" : error.message;
    if (status === 500) diag.error(`groundwatch collector: ${req.method} ${req.path} failed: ${error.message}`);
    else if (resolved.logContent) diag.warn(`groundwatch collector: ${req.method} ${req.path}: ${message}`);
    // A request cut off by a 408 on its connection (counted as timeout there) is not refused twice.
    if (res.headersSent || answeredAtConnection(req.socket)) return;
    refuse(req, res, status, { error: message });
  });
  app.use((_req, res) => {
    res.status(404).json({ error: "not found" });
  });

  let server: Server | undefined;
  let probes: Server | undefined;
  try {
    server = await listen(app, { ...resolved, tls: credentials, onRefused: (reason) => countRefused("connection", reason) });
    // The orchestrator's probes on a listener of their own (collector.healthPort), out of ingest's reach.
    if (resolved.healthPort !== undefined) {
      probes = await listenForProbes({ ...resolved, port: resolved.healthPort, guard: hostGuard, readiness, onRefused: (reason) => countRefused("health_connection", reason) });
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
    fullWatch.check();
  }, Math.min(1000, resolved.traceTimeoutMs)).unref();
  let closing: Promise<void> | undefined;
  return {
    url: serverUrl(listening),
    healthUrl: probes ? serverUrl(probes) : undefined,
    tls: certificate ? { current: certificate.current, check: certificate.check } : undefined,
    monitor,
    options: resolved,
    incompleteStats: () => ({ ...incompleteStats }),
    buffered: () => ({ traces: joiner.size, waiting: joiner.waiting, bytes: joiner.bytes }),
    refusedStats: () => ({ ...refusedStats }),
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
