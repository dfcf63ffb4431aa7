import type { Server } from "node:http";
import express from "express";
import type { Express, RequestHandler } from "express";
import type { ConnectionRefusal } from "./http.ts";
import { ListenError, listen } from "./http.ts";

/** What /readyz answers: 200 when ready, else 503 with the reason. */
export interface Readiness {
  readonly ready: boolean;
  readonly reason?: string;
}

/** The probe listener's limits: a probe connects, asks at once and closes; nothing else has business there. */
export const PROBE_LIMITS = { maxConnections: 64, maxConnectionsPerAddress: 8, timeoutMs: 2000, keepAliveTimeoutMs: 1000 } as const;

/** Adds GET /healthz (liveness: the process answers) and GET /readyz (`readiness()`) to an app. */
export function addProbes(app: Express, readiness: () => Readiness): void {
  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  app.get("/readyz", (_req, res) => {
    const { ready, reason } = readiness();
    res.status(ready ? 200 : 503).json({ ready, ...(reason !== undefined ? { reason } : {}) });
  });
}

/** Settings of the probe listener (CollectorOptions.healthPort). */
export interface ProbeListenerOptions {
  /** Port to bind (0 = any free port). */
  readonly port: number;
  /** Address to bind: the collector's own. */
  readonly host: string;
  /** Longest wait for a request on the main port, ms: the probe listener waits at most PROBE_LIMITS.timeoutMs, and never longer. */
  readonly headersTimeoutMs: number;
  /** Middleware run before the probes (the loopback Host guard), if any. */
  readonly guard: RequestHandler | undefined;
  /** What /readyz answers. */
  readonly readiness: () => Readiness;
  /** Told of each connection refused on the probe listener, as on the main one. */
  readonly onRefused: (reason: ConnectionRefusal) => void;
}

/**
 * Starts the probe listener: GET /healthz and /readyz only (404 for anything else), with a small
 * connection cap of its own, a per-address cap and short timeouts, so that connections holding the
 * main port do not reach it. Rejects with a ListenError when the port cannot be bound.
 */
export function listenForProbes(options: ProbeListenerOptions): Promise<Server> {
  const app = express();
  app.disable("x-powered-by");
  if (options.guard) app.use(options.guard);
  addProbes(app, options.readiness);
  app.use((_req, res) => {
    res.status(404).json({ error: "not found: this port answers GET /healthz and /readyz only" });
  });
  const timeoutMs = Math.min(PROBE_LIMITS.timeoutMs, options.headersTimeoutMs);
  const named = (error: unknown): never => {
    throw error instanceof ListenError ? new ListenError(`the probe listener (healthPort): ${error.message}`, error.systemCode) : error;
  };
  return listen(app, {
    port: options.port,
    host: options.host,
    headersTimeoutMs: timeoutMs,
    requestTimeoutMs: timeoutMs,
    keepAliveTimeoutMs: PROBE_LIMITS.keepAliveTimeoutMs,
    maxConnections: PROBE_LIMITS.maxConnections,
    maxConnectionsPerAddress: PROBE_LIMITS.maxConnectionsPerAddress,
    onRefused: options.onRefused,
  }).catch(named);
}
