import type { Express, Request, Response } from "express";
import type { Admission } from "../admission.ts";
import { checkDeclaredLength, mediaType, readBody } from "../body.ts";
import type { TraceJoiner } from "../joiner-types.ts";
import type { LogRecordCounter } from "../log-records.ts";
import type { CollectorMetrics } from "../metrics.ts";
import type { OtlpCodecs } from "../otlp-proto.ts";
import type { OtlpLog, OtlpSpan } from "../otlp.ts";
import { decodeLogsPausing, decodeSpansPausing, encodeLogsResponse, encodeResponse } from "../otlp.ts";
import { withoutOwnEvaluations } from "../own-telemetry.ts";
import type { Refusal } from "../refuse.ts";

/** What the OTLP ingest routes work with. */
export interface OtlpRoutesOptions {
  readonly refusal: Refusal;
  readonly admission: Admission;
  readonly joiner: TraceJoiner;
  readonly metrics: CollectorMetrics;
  readonly logRecords: LogRecordCounter;
  readonly codecs: OtlpCodecs;
  /** The body limit in bytes, and as configured (for the 413's message). */
  readonly bodyLimit: number;
  readonly bodyLimitText: string;
  /** Tracks a request being worked on, so close() lets it finish. */
  readonly track: <T>(work: Promise<T>) => Promise<T>;
  /** Lets other callbacks run between steps of a large request. */
  readonly pause: () => Promise<void>;
}

/** One signal's decoded records, and what was rejected of them. */
interface Decoded {
  readonly records: { spans?: OtlpSpan[]; logs?: OtlpLog[] };
  readonly rejected: number;
  readonly tooManyAttributes: number;
  readonly errors: string[];
}

/** Adds POST /v1/traces and /v1/logs: OTLP/HTTP ingest, one handler over each signal's codec. */
export function addOtlpRoutes(app: Express, options: OtlpRoutesOptions): void {
  const { refusal, admission, joiner, metrics, codecs, bodyLimit, bodyLimitText, pause } = options;
  /**
   * OTLP/HTTP ingest of one signal: protobuf or JSON (gzip, deflate, br), partial success for rejected
   * records. A request is admitted only when the trace buffer can hold it and the queue has room for
   * the interactions it could complete; otherwise 429 before anything is kept, so the sender retries.
   */
  const otlpIngest =
    (decode: (body: Buffer, json: boolean) => Promise<Decoded>, encode: (rejected: number, message: string, json: boolean) => Buffer | string) =>
    async (req: Request, res: Response): Promise<void> => {
      const type = mediaType(req.headers["content-type"]);
      const json = type === "application/json";
      if (!json && type !== "application/x-protobuf") {
        refusal.refuse(req, res, 415, { error: `unsupported content-type ${JSON.stringify(type)}: send application/x-protobuf or application/json` });
        return;
      }
      checkDeclaredLength(req, bodyLimit, bodyLimitText);
      // Cheap refusals before the body is read.
      if (!admission.queueKeepsUp()) return refusal.queueFull(req, res);
      if (!admission.bufferHasRoom(Number(req.headers["content-length"] ?? 0), 0)) return refusal.bufferFull(req, res);
      await options.track(
        (async () => {
          const body = await readBody(req, bodyLimit, bodyLimitText);
          const { decoded, own } = withoutOwnEvaluations(await decode(body, json));
          const admitted = admission.admit(decoded.records);
          if ("refused" in admitted) return admitted.refused === "queue_full" ? refusal.queueFull(req, res) : refusal.bufferFull(req, res);
          try {
            await joiner.ingest(decoded.records, pause);
          } finally {
            admitted.release();
          }
          // Records without ids cannot join a trace, nor records over MAX_RECORD_ATTRIBUTES: told to the sender and counted.
          if (decoded.rejected > decoded.tooManyAttributes) metrics.incomplete("invalid_id", "unknown", decoded.rejected - decoded.tooManyAttributes);
          if (decoded.tooManyAttributes > 0) metrics.incomplete("too_many_attributes", "unknown", decoded.tooManyAttributes);
          for (const route of own) metrics.incomplete("already_evaluated", route);
          if (decoded.records.logs) options.logRecords.count(decoded.records.logs);
          res.status(200).type(json ? "application/json" : "application/x-protobuf").send(encode(decoded.rejected, decoded.errors.join("; "), json));
        })(),
      );
    };
  // One handler over each signal's codec: its decoder (into records) and its partial-success answer.
  const signals: ReadonlyArray<readonly [string, (body: Buffer, json: boolean) => Promise<Decoded>, (rejected: number, message: string, json: boolean) => Buffer | string]> = [
    [
      "/v1/traces",
      async (body, json) => {
        const d = await decodeSpansPausing(body, json, codecs, pause);
        return { records: { spans: d.spans }, rejected: d.rejected, tooManyAttributes: d.tooManyAttributes, errors: d.errors };
      },
      (rejected, message, json) => encodeResponse(rejected, message, json, codecs),
    ],
    [
      "/v1/logs",
      async (body, json) => {
        const d = await decodeLogsPausing(body, json, codecs, pause);
        return { records: { logs: d.logs }, rejected: d.rejected, tooManyAttributes: d.tooManyAttributes, errors: d.errors };
      },
      (rejected, message, json) => encodeLogsResponse(rejected, message, json, codecs),
    ],
  ];
  for (const [path, decode, encode] of signals) app.post(path, refusal.auth, otlpIngest(decode, encode));
}
