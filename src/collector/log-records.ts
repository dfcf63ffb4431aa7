import type { Meter } from "@opentelemetry/api";
import { counterOf } from "../telemetry/instruments.ts";
import type { LogRecordConvention } from "../telemetry/semconv.ts";
import { ATTR_CONVENTION, LOG_RECORD_CONVENTIONS, METRICS } from "../telemetry/semconv.ts";
import { isGenAiEvent } from "./conventions/genai.ts";
import type { OtlpLog } from "./otlp.ts";
import type { AttributeMapping } from "./trace-parts.ts";

/**
 * The convention a log record is read as: `genai` for the OTel GenAI events the joiner reads,
 * `mapping` for a record carrying a key of the attribute mapping, `other` for a record it reads
 * nothing from (an application's own logs). Constant work per record (the mapping's few keys).
 */
export function logRecordConvention(log: Pick<OtlpLog, "eventName" | "attributes">, mapping: AttributeMapping = {}): LogRecordConvention {
  if (isGenAiEvent(log.eventName)) return "genai";
  for (const keys of [mapping.documents, mapping.question, mapping.answer]) for (const key of keys ?? []) if (log.attributes[key] !== undefined) return "mapping";
  return "other";
}

/** Counts the log records taken in, by convention (groundwatch.collector.log_records). */
export interface LogRecordCounter {
  count(logs: readonly Pick<OtlpLog, "eventName" | "attributes">[]): void;
}

/**
 * The log-record counter on the collector's meter, every convention's series started at 0, so that
 * "no GenAI events at all" reads as a 0 on /metrics rather than a series that is missing.
 */
export function createLogRecordCounter(meter: Meter, mapping: AttributeMapping = {}): LogRecordCounter {
  const counter = counterOf(meter, METRICS.collectorLogRecords);
  for (const convention of LOG_RECORD_CONVENTIONS) counter.add(0, { [ATTR_CONVENTION]: convention });
  return {
    count(logs): void {
      const counts: Record<LogRecordConvention, number> = { genai: 0, mapping: 0, other: 0 };
      for (const log of logs) counts[logRecordConvention(log, mapping)]++;
      for (const convention of LOG_RECORD_CONVENTIONS) if (counts[convention] > 0) counter.add(counts[convention], { [ATTR_CONVENTION]: convention });
    },
  };
}
