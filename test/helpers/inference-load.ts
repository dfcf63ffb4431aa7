/**
 * Work that keeps a real onnx session busy, for the chaos suite's inference tests: a generated graph
 * with the MiniLM-L6 shape (bench/models.ts builds it with Debian's python3-onnx, once, into the bench
 * cache) behind a model directory the onnx backend loads, and answers that make many entailment pairs
 * (claims citing several of many retrieved documents), as JSON observations and as one OTLP trace.
 */
import { SHAPES, tierModelDir } from "../../bench/models.ts";

const TOPICS = ["bridge", "tower", "canal", "tunnel", "harbour", "station"];
const WORDS = [...TOPICS, ..."the number was opened in and carries vehicles a day across river its length is metres it restored list facts with sources".split(" ")];

/** The MiniLM-shaped model directory (built on first use; later calls reuse the graphs). */
export function inferenceModelDir(): string {
  const shape = SHAPES.find((s) => s.name === "minilm-l6-h384");
  if (!shape) throw new Error("bench/models.ts has no MiniLM shape");
  return tierModelDir(shape, WORDS);
}

export interface LoadShape {
  /** Claims in the answer, each citing `citations` documents. */
  readonly claims: number;
  readonly citations: number;
  /** Retrieved documents. */
  readonly documents: number;
}

/** A heavy answer: the "list N facts with sources" an end user can ask for. */
export const HEAVY: LoadShape = { claims: 100, citations: 5, documents: 120 };
/** An ordinary answer that still keeps inference busy for a while. */
export const ORDINARY: LoadShape = { claims: 12, citations: 2, documents: 20 };

/** Observation `k` of a shape: distinct numbers per k, so no pair is shared with another observation or judged verbatim. */
export function loadObservation(k: number, shape: LoadShape): { route: string; question: string; answer: string; context: string[] } {
  const cite = (i: number): string => Array.from({ length: shape.citations }, (_, c) => `[${((i * (7 + c * 4) + c) % shape.documents) + 1}]`).join("");
  const answer = Array.from({ length: shape.claims }, (_, i) => `The ${TOPICS[i % 6]} number ${i} was opened in ${1850 + ((i * 7 + k) % 150)} and carries ${(i * 13 + k * 31) % 900} vehicles a day ${cite(i)}.`).join(" ");
  const context = Array.from(
    { length: shape.documents },
    (_, d) => `The ${TOPICS[d % 6]} number ${d} was opened in ${1800 + ((d * 11 + k) % 200)}. It carries ${(d * 17 + k) % 1000} vehicles a day across the river. Its length is ${(d * 29) % 2000} metres. It was restored in ${1950 + (d % 70)}.`,
  );
  return { route: "/facts", question: "List the facts with their sources", answer, context };
}

/** A trace id that a sampler keyed on the trace id's low bits keeps at any rate above 0: its last 14 hex digits are zero. */
export function alwaysSampledTraceId(k: number): string {
  return `${(k + 1).toString(16).padStart(18, "a")}${"0".repeat(14)}`;
}

/** One OTLP/JSON trace (OpenInference spans: a root, a retriever with the documents, an LLM with the answer) of observation `k`. */
export function loadTrace(k: number, shape: LoadShape): object {
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
