import type { Express } from "express";
import { observationBytes } from "../../core/observation-bytes.ts";
import type { Monitor } from "../../sdk/types.ts";
import { labelOrUndefined } from "../../telemetry/labels.ts";
import type { Admission } from "../admission.ts";
import { checkDeclaredLength, mediaType, readJsonBody } from "../body.ts";
import type { CollectorMetrics } from "../metrics.ts";
import type { ParsedObservations } from "../observations.ts";
import type { Refusal } from "../refuse.ts";

/** What POST /v1/observations works with. */
export interface ObservationsRouteOptions {
  readonly refusal: Refusal;
  readonly admission: Pick<Admission, "queueKeepsUp">;
  readonly monitor: Pick<Monitor, "hasRoomFor" | "observe">;
  readonly metrics: Pick<CollectorMetrics, "refused">;
  readonly parse: (body: unknown) => ParsedObservations;
  /** The body limit in bytes, and as configured (for the 413's message). */
  readonly bodyLimit: number;
  readonly bodyLimitText: string;
  /** Tracks a request being worked on, so close() lets it finish. */
  readonly track: <T>(work: Promise<T>) => Promise<T>;
}

/**
 * Adds POST /v1/observations: JSON observations, validated, taken all or none: 202 when the queue
 * has room for every one of them (their bytes as the queue charges them), else 429.
 */
export function addObservationsRoute(app: Express, options: ObservationsRouteOptions): void {
  const { refusal, admission, monitor, bodyLimit, bodyLimitText } = options;
  app.post("/v1/observations", refusal.auth, async (req, res) => {
    const type = mediaType(req.headers["content-type"]);
    if (type !== "application/json") {
      refusal.refuse(req, res, 415, { error: `unsupported content-type ${JSON.stringify(type)}: send application/json` });
      return;
    }
    checkDeclaredLength(req, bodyLimit, bodyLimitText);
    // Traces waiting for the queue go first.
    if (!admission.queueKeepsUp()) return refusal.queueFull(req, res);
    await options.track(
      (async () => {
        const value = await readJsonBody(req, bodyLimit, bodyLimitText);
        const parsed = options.parse(value);
        if (!parsed.ok) {
          options.metrics.refused("/v1/observations", "bad_request");
          res.status(400).json({ error: "invalid observation", fields: parsed.errors });
          return;
        }
        const observations = parsed.observations.map((o) => ({ ...o, route: labelOrUndefined(o.route) ?? "unknown" }));
        if (!admission.queueKeepsUp() || !monitor.hasRoomFor(observations.map((o) => o.route), observations.reduce((n, o) => n + observationBytes(o), 0))) return refusal.queueFull(req, res);
        for (const o of observations) monitor.observe(o);
        res.status(202).json({ accepted: observations.length });
      })(),
    );
  });
}
