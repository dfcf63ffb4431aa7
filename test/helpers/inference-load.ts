/**
 * Work that keeps a real onnx session busy, for the chaos suite's inference tests: a generated graph
 * with the MiniLM-L6 shape (bench/models.ts builds it with Debian's python3-onnx, once, into the bench
 * cache) behind a model directory the onnx backend loads, and answers that make many entailment pairs
 * (claims citing several of many retrieved documents), as JSON observations and as one OTLP trace.
 */
import type { CitedShape } from "../../bench/cited-workload.ts";
import { CITED_WORDS, citedObservation } from "../../bench/cited-workload.ts";
import { SHAPES, tierModelDir } from "../../bench/models.ts";

export type { CitedShape as LoadShape } from "../../bench/cited-workload.ts";
export { HEAVY } from "../../bench/cited-workload.ts";

/** The MiniLM-shaped model directory (built on first use; later calls reuse the graphs). */
export function inferenceModelDir(): string {
  const shape = SHAPES.find((s) => s.name === "minilm-l6-h384");
  if (!shape) throw new Error("bench/models.ts has no MiniLM shape");
  return tierModelDir(shape, CITED_WORDS);
}

/** Observation `k` of a shape (bench/cited-workload.ts). */
export const loadObservation = citedObservation;

/** A trace id that a sampler keyed on the trace id's low bits keeps at any rate above 0: its last 14 hex digits are zero. */
export function alwaysSampledTraceId(k: number): string {
  return `${(k + 1).toString(16).padStart(18, "a")}${"0".repeat(14)}`;
}

/** One OTLP/JSON trace (OpenInference spans: a root, a retriever with the documents, an LLM with the answer) of observation `k`. */
export function loadTrace(k: number, shape: CitedShape): object {
  const o = loadObservation(k, shape);
  const traceId = alwaysSampledTraceId(k);
  const str = (key: string, value: string): object => ({ key, value: { stringValue: value } });
  const now = BigInt(Date.now()) * 1_000_000n;
  const span = (spanId: string, name: string, attributes: object[], parentSpanId?: string): object => ({ traceId, spanId, ...(parentSpanId ? { parentSpanId } : {}), name, kind: 1, startTimeUnixNano: String(now), endTimeUnixNano: String(now + 1_000_000n), attributes });
  return {
    resourceSpans: [
      {
        resource: { attributes: [str("service.name", "rag-api")] },
        scopeSpans: [
          {
            spans: [
              span("a000000000000001", "POST /facts", [str("http.route", "/facts")]),
              span("a000000000000002", "retrieve", [str("openinference.span.kind", "RETRIEVER"), str("input.value", o.question), ...o.context.map((text, i) => str(`retrieval.documents.${i}.document.content`, text))], "a000000000000001"),
              span("a000000000000003", "llm", [str("openinference.span.kind", "LLM"), str("llm.output_messages.0.message.role", "assistant"), str("llm.output_messages.0.message.content", o.answer)], "a000000000000001"),
            ],
          },
        ],
      },
    ],
  };
}
