import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ROOT_CONTEXT, TraceFlags, context as otelContext, diag, trace } from "@opentelemetry/api";
import { OTLPLogExporter } from "@opentelemetry/exporter-logs-otlp-proto";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-proto";
import { PrometheusExporter } from "@opentelemetry/exporter-prometheus";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchLogRecordProcessor, LoggerProvider } from "@opentelemetry/sdk-logs";
import type { MetricReader } from "@opentelemetry/sdk-metrics";
import { MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import express from "express";
import type { NextFunction, Request, Response } from "express";
import type { Monitor } from "../sdk/monitor.ts";
import type { MonitorOptions } from "../sdk/options.ts";
import { createMonitor } from "../sdk/monitor.ts";
import { ATTR_CONVENTION, ATTR_REASON, ATTR_ROUTE, METRICS } from "../telemetry/semconv.ts";
import type { Interaction, InteractionInfo } from "./joiner.ts";
import { createTraceJoiner } from "./joiner.ts";
import { createObservationParser } from "./observations.ts";
import type { CollectorOptions, ResolvedCollectorOptions } from "./options.ts";
import { resolveCollectorOptions } from "./options.ts";
import { createOtlpCodecs } from "./otlp-proto.ts";
import { OtlpDecodeError, decodeJson, decodeLogsJson, decodeLogsProtobuf, decodeProtobuf, encodeLogsResponse, encodeResponse } from "./otlp.ts";

export interface RunningCollector {
  readonly url: string;
  readonly monitor: Monitor;
  readonly options: ResolvedCollectorOptions;
  /** Interactions dropped while joining traces (and records not used: duplicate_event, duplicate_span, late, invalid_id), by reason. */
  readonly joinStats: () => Readonly<Record<string, number>>;
  /** Stops accepting, settles buffered traces, drains the queue within the deadline, flushes exporters. */
  close(deadlineMs?: number): Promise<void>;
}

/** Whether the standard OTEL_EXPORTER_OTLP_* variables ask for an OTLP export of a signal. */
function otlpWanted(env: NodeJS.ProcessEnv, signal: "TRACES" | "METRICS" | "LOGS"): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`]);
}

/**
 * Starts the collector: OTLP/HTTP trace and log ingest (protobuf or JSON, gzip), JSON
 * observations, /metrics, /healthz and /readyz, scoring through the SDK's pipeline.
 */
export async function startCollector(options: CollectorOptions & { monitor?: MonitorOptions } = {}): Promise<RunningCollector> {
  const env = options.env ?? process.env;
  const resolved = resolveCollectorOptions(options);
  const resource = resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME ?? "groundwatch-collector" });
  const prometheus = new PrometheusExporter({ preventServerStart: true });
  const readers: MetricReader[] = [prometheus];
  if (otlpWanted(env, "METRICS")) readers.push(new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter(), exportIntervalMillis: Number(env.OTEL_METRIC_EXPORT_INTERVAL ?? 60_000) }));
  const meterProvider = new MeterProvider({ resource, readers });
  const tracerProvider = new BasicTracerProvider({ resource, spanProcessors: otlpWanted(env, "TRACES") ? [new BatchSpanProcessor(new OTLPTraceExporter())] : [] });
  const loggerProvider = new LoggerProvider({ resource, processors: otlpWanted(env, "LOGS") ? [new BatchLogRecordProcessor({ exporter: new OTLPLogExporter() })] : [] });
  const monitor = createMonitor({
    env,
    ...(resolved.configFile ? { configFile: resolved.configFile } : {}),
    ...options.monitor,
    tracerProvider,
    meterProvider,
    loggerProvider,
  });
  const joinDropped: Record<string, number> = {};
  const meter = meterProvider.getMeter("groundwatch-collector");
  const incompleteCounter = meter.createCounter(METRICS.collectorIncomplete.name, { unit: METRICS.collectorIncomplete.unit, description: METRICS.collectorIncomplete.description });
  const interactionsCounter = meter.createCounter(METRICS.collectorInteractions.name, { unit: METRICS.collectorInteractions.unit, description: METRICS.collectorInteractions.description });
  const countIncomplete = (reason: string, route: string, n = 1): void => {
    joinDropped[reason] = (joinDropped[reason] ?? 0) + n;
    incompleteCounter.add(n, { [ATTR_ROUTE]: route, [ATTR_REASON]: reason });
  };
  const observeInteraction = (i: Interaction, info: InteractionInfo): void => {
    interactionsCounter.add(1, { [ATTR_ROUTE]: i.route, [ATTR_CONVENTION]: info.convention });
    const parent = i.parentSpanId ? trace.setSpanContext(ROOT_CONTEXT, { traceId: i.traceId, spanId: i.parentSpanId, traceFlags: TraceFlags.SAMPLED, isRemote: true }) : ROOT_CONTEXT;
    otelContext.with(parent, () => monitor.observe({ route: i.route, context: i.documents, answer: i.answer, ...(i.question !== undefined ? { question: i.question } : {}) }));
  };
  const joiner = createTraceJoiner({
    timeoutMs: resolved.traceTimeoutMs,
    maxTraces: resolved.maxTraces,
    mapping: resolved.attributeMapping,
    promptContext: resolved.promptContext,
    now: () => Date.now(),
    onInteraction: observeInteraction,
    onIncomplete: (reason, route) => countIncomplete(reason, route),
  });
  const sweeper = setInterval(() => joiner.sweep(), Math.min(1000, resolved.traceTimeoutMs)).unref();
  const parseObservations = createObservationParser(resolved);
  let ready = false;
  monitor.ready().then(
    () => (ready = true),
    (error: unknown) => diag.error(`groundwatch collector: scorer failed to start: ${(error as Error).message}`),
  );

  // The OTLP protobuf codecs: the vendored .proto files are read on the first protobuf request.
  const codecs = createOtlpCodecs();
  const app = express();
  app.disable("x-powered-by");
  const auth = (req: Request, res: Response, next: NextFunction): void => {
    if (!resolved.token || req.headers.authorization === `Bearer ${resolved.token}`) return next();
    res.status(401).json({ error: "missing or wrong bearer token" });
  };
  const tooBusy = (res: Response, routes: readonly string[]): boolean => {
    if (monitor.hasRoomFor(routes)) return false;
    res.setHeader("Retry-After", "1");
    res.status(429).json({ error: "the scoring queue is full; retry later" });
    return true;
  };
  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  app.get("/readyz", (_req, res) => {
    res.status(ready ? 200 : 503).json({ ready });
  });
  app.get("/metrics", auth, (req, res) => {
    prometheus.getMetricsRequestHandler(req, res);
  });
  /** OTLP/HTTP ingest of one signal: protobuf or JSON (gzip is undone by the body parser), partial success for rejected records. */
  const otlpIngest =
    (ingest: (body: Buffer, json: boolean) => { rejected: number; errors: string[] }, encode: (rejected: number, message: string, json: boolean) => Buffer | string) =>
    (req: Request, res: Response): void => {
      const type = String(req.headers["content-type"] ?? "").split(";")[0]?.trim();
      const json = type === "application/json";
      if (!json && type !== "application/x-protobuf") {
        res.status(415).json({ error: `unsupported content-type ${JSON.stringify(type)}: send application/x-protobuf or application/json` });
        return;
      }
      // An export yields at most a few interactions; ask for room for one at the default rate.
      if (tooBusy(res, ["unknown"])) return;
      try {
        const body = req.body instanceof Buffer ? req.body : Buffer.alloc(0);
        const decoded = ingest(body, json);
        // Records without ids cannot join a trace: told to the sender and counted.
        if (decoded.rejected > 0) countIncomplete("invalid_id", "unknown", decoded.rejected);
        res.status(200).type(json ? "application/json" : "application/x-protobuf").send(encode(decoded.rejected, decoded.errors.join("; "), json));
      } catch (error) {
        if (error instanceof OtlpDecodeError) {
          res.status(400).json({ error: error.message });
          return;
        }
        throw error;
      }
    };
  app.post(
    "/v1/traces",
    auth,
    express.raw({ type: () => true, limit: resolved.bodyLimit }),
    otlpIngest((body, json) => {
      const decoded = json ? decodeJson(body.toString("utf8")) : decodeProtobuf(body, codecs);
      joiner.add(decoded.spans);
      return decoded;
    }, (rejected, message, json) => encodeResponse(rejected, message, json, codecs)),
  );
  app.post(
    "/v1/logs",
    auth,
    express.raw({ type: () => true, limit: resolved.bodyLimit }),
    otlpIngest((body, json) => {
      const decoded = json ? decodeLogsJson(body.toString("utf8")) : decodeLogsProtobuf(body, codecs);
      joiner.addLogs(decoded.logs);
      return decoded;
    }, (rejected, message, json) => encodeLogsResponse(rejected, message, json, codecs)),
  );
  app.post("/v1/observations", auth, express.json({ limit: resolved.bodyLimit, strict: false }), (req, res) => {
    const parsed = parseObservations(req.body);
    if (!parsed.ok) {
      res.status(400).json({ error: "invalid observation", fields: parsed.errors });
      return;
    }
    if (tooBusy(res, parsed.observations.map((o) => o.route ?? "unknown"))) return;
    for (const o of parsed.observations) monitor.observe({ ...o, route: o.route ?? "unknown" });
    res.status(202).json({ accepted: parsed.observations.length });
  });
  // Errors from body parsing (size, encoding, JSON) become clear 4xx answers; nothing else leaks.
  app.use((error: Error & { status?: number; type?: string }, req: Request, res: Response, next: NextFunction) => {
    void next;
    const status = error.status && error.status >= 400 && error.status < 500 ? error.status : 500;
    const message =
      error.type === "entity.too.large" ? `the body is larger than the limit of ${resolved.bodyLimit}` : error.type === "entity.parse.failed" ? "the body is not valid JSON" : status === 500 ? "internal error" : error.message;
    if (status === 500) diag.error(`groundwatch collector: ${req.method} ${req.path} failed: ${error.message}`);
    else if (resolved.logContent) diag.warn(`groundwatch collector: ${req.method} ${req.path}: ${message}`);
    res.status(status).json({ error: message });
  });
  app.use((_req, res) => {
    res.status(404).json({ error: "not found" });
  });

  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(resolved.port, resolved.host, () => resolve(s));
    s.once("error", reject);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  let closed = false;
  return {
    url: `http://${host}:${address.port}`,
    monitor,
    options: resolved,
    joinStats: () => ({ ...joinDropped }),
    async close(deadlineMs = resolved.drainMs): Promise<void> {
      if (closed) return;
      closed = true;
      clearInterval(sweeper);
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      });
      joiner.drain();
      await monitor.shutdown(deadlineMs);
      await Promise.allSettled([meterProvider.shutdown(), tracerProvider.shutdown(), loggerProvider.shutdown()]);
    },
  };
}
