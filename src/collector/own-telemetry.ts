import { ATTR_ROUTE, EVENT_GEN_AI_EVALUATION_RESULT, SPAN_EVALUATE } from "../telemetry/semconv.ts";

/** What the test reads of a span or a log record: its span name or event name, and its attributes. */
interface NamedRecord {
  readonly name?: string;
  readonly eventName?: string;
  readonly attributes: Readonly<Record<string, unknown>>;
}

/**
 * Whether a span or log record is groundwatch's own evaluation telemetry: an SDK monitor whose OTLP
 * exporter points at `serve` sends its `groundwatch.evaluate` spans and its `gen_ai.evaluation.result`
 * events, each carrying `groundwatch.route`. They are results, not interactions to score: the
 * collector counts them `already_evaluated` and never opens a trace for them. Constant work per record.
 */
export function isOwnEvaluation(record: NamedRecord): boolean {
  if (typeof record.attributes[ATTR_ROUTE] !== "string") return false;
  return record.name === SPAN_EVALUATE || record.eventName === EVENT_GEN_AI_EVALUATION_RESULT;
}

/** The route an own record was evaluated under (its `groundwatch.route`), for counting. */
export function ownRoute(record: NamedRecord): string {
  const route = record.attributes[ATTR_ROUTE];
  return typeof route === "string" ? route : "unknown";
}

/**
 * Takes groundwatch's own evaluation spans and events (an SDK exporting here) out of a decoded
 * request: they join no trace, and are counted already_evaluated (by their route, in `own`) once accepted.
 */
export function withoutOwnEvaluations<S extends NamedRecord, L extends NamedRecord, D extends { records: { spans?: S[]; logs?: L[] } }>(decoded: D): { decoded: D; own: string[] } {
  const own: string[] = [];
  const keep = <R extends NamedRecord>(records: R[] | undefined): R[] | undefined => {
    if (!records) return undefined;
    const kept: R[] = [];
    for (const r of records) {
      if (isOwnEvaluation(r)) own.push(ownRoute(r));
      else kept.push(r);
    }
    return kept;
  };
  const spans = keep(decoded.records.spans);
  const logs = keep(decoded.records.logs);
  return { decoded: { ...decoded, records: { ...(spans ? { spans } : {}), ...(logs ? { logs } : {}) } }, own };
}
