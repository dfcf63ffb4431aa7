import { diag } from "@opentelemetry/api";
import type { Express, NextFunction, Request, RequestHandler, Response } from "express";
import { httpStatusOf } from "../../net/error-status.ts";
import type { Monitor } from "../../sdk/types.ts";
import type { Admission } from "../admission.ts";
import { answeredAtConnection } from "../connections.ts";
import { flaggedHandler } from "../flagged-route.ts";
import type { Readiness } from "../health.ts";
import { addProbes } from "../health.ts";
import type { TraceJoiner } from "../joiner-types.ts";
import type { Peers } from "../peers.ts";
import type { Refusal } from "../refuse.ts";
import { runbooksHandler } from "../runbooks.ts";
import { METRICS_ELSEWHERE } from "../running.ts";

/** What the operations routes work with. */
export interface OpsRoutesOptions {
  readonly refusal: Refusal;
  readonly monitor: Pick<Monitor, "flaggedPage">;
  /** This replica's name, and its peers (GET /v1/flagged for the whole deployment). */
  readonly replica: string;
  readonly peers: Peers;
  /** Whether the collector is ready, and why not (see collectorReadiness). */
  readonly readiness: () => Readiness;
  /** The Prometheus exporter's handler of GET /metrics. */
  readonly metricsHandler: (req: Request, res: Response) => void;
}

/** The buffer's limits, for the readiness reason. */
export interface ReadinessOptions {
  readonly monitor: Pick<Monitor, "health">;
  readonly joiner: Pick<TraceJoiner, "size" | "bytes">;
  readonly admission: Pick<Admission, "heldForMs">;
  readonly maxTraces: number;
  readonly maxBufferBytes: number;
}

/** Ready when the monitor is and the trace buffer is not held full (incomplete traces are then being evicted for new ones). */
export function collectorReadiness(options: ReadinessOptions): () => Readiness {
  const { monitor, joiner, admission, maxTraces, maxBufferBytes } = options;
  return () => {
    const health = monitor.health();
    const heldMs = admission.heldForMs();
    const reason =
      health.reason ??
      (heldMs !== undefined
        ? `the trace buffer has been full for ${Math.round(heldMs / 1000)} s (${joiner.size} of ${maxTraces} traces, ${joiner.bytes} of ${maxBufferBytes} bytes of text): incomplete traces are evicted for new ones (buffer_full)`
        : undefined);
    return { ready: health.ready && heldMs === undefined, ...(reason !== undefined ? { reason } : {}) };
  };
}

/** Adds /healthz and /readyz, /runbooks, /metrics, /v1/flagged, and the answer to an SDK's metrics sent here (POST /v1/metrics). */
export function addOpsRoutes(app: Express, options: OpsRoutesOptions): void {
  const { refusal } = options;
  addProbes(app, options.readiness);
  // Runbooks: docs/runbooks.md as HTML, the target of the alerts' runbook_url; no auth.
  app.get("/runbooks", runbooksHandler());
  app.get("/metrics", refusal.auth, (req, res) => {
    options.metricsHandler(req, res);
  });
  app.get("/v1/flagged", refusal.auth, flaggedHandler({ page: (q) => options.monitor.flaggedPage(q), replica: options.replica, peers: options.peers, badRequest: (req, res, error) => refusal.refuse(req, res, 400, { error }) }));
  // An SDK whose OTLP exporter points here sends its metrics too: say where they belong instead of a bare 404.
  app.post("/v1/metrics", (req, res) => refusal.refuse(req, res, 404, { error: METRICS_ELSEWHERE }));
}

/**
 * Adds the last handlers: refused bodies (size, encoding, JSON, OTLP) become clear 4xx answers and
 * nothing else leaks (500 "internal error", said through diag); any other path is a 404.
 */
export function addErrorHandlers(app: Express, options: { readonly refusal: Refusal; readonly logContent: boolean }): void {
  const handler = (error: Error & { status?: number }, req: Request, res: Response, next: NextFunction): void => {
    void next;
    const status = httpStatusOf(error) ?? (error.status && error.status >= 400 && error.status < 500 ? error.status : 500);
    const message = status === 500 ? "internal error" : error.message;
    if (status === 500) diag.error(`groundwatch collector: ${req.method} ${req.path} failed: ${error.message}`);
    else if (options.logContent) diag.warn(`groundwatch collector: ${req.method} ${req.path}: ${message}`);
    // A request cut off by a 408 on its connection (counted as timeout there) is not refused twice.
    if (res.headersSent || answeredAtConnection(req.socket)) return;
    options.refusal.refuse(req, res, status, { error: message });
  };
  app.use(handler);
  const notFound: RequestHandler = (_req, res) => {
    res.status(404).json({ error: "not found" });
  };
  app.use(notFound);
}
