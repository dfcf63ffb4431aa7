import { describe, expect, it } from "vitest";
import { createAdmission, footprint } from "../../src/collector/admission.ts";
import { createTraceJoiner } from "../../src/collector/joiner.ts";
import type { OtlpSpan } from "../../src/collector/otlp.ts";

const span = (traceId: string, spanId: string, parent: string, attributes: Record<string, unknown>): OtlpSpan => ({ traceId, spanId, parentSpanId: parent, name: "s", attributes, resource: { "service.name": "svc" } });
const T = "0af7651916cd43dd8448eb211c80319c";
const complete = (traceId: string): OtlpSpan[] => [
  span(traceId, "0000000000000002", "0000000000000001", { "retrieval.documents.0.document.content": "Returns are accepted within 30 days." }),
  span(traceId, "0000000000000003", "0000000000000001", { "openinference.span.kind": "LLM", "output.value": "Thirty days." }),
  span(traceId, "0000000000000001", "", { "http.route": "/ask" }),
];

function setup(room: { queue: boolean }, maxBufferBytes = 100_000) {
  const asked: string[][] = [];
  const joiner = createTraceJoiner({ timeoutMs: 1000, maxTraces: 10, maxBufferBytes, now: () => 0, onObservation: () => undefined, onIncomplete: () => undefined, canHandOff: () => room.queue });
  const admission = createAdmission({ joiner, queue: { hasRoomFor: (routes) => (asked.push([...routes]), room.queue) }, maxTraces: 10, maxBufferBytes, traceTimeoutMs: 1000, now: () => 0 });
  return { joiner, admission, asked };
}

describe("collector admission", () => {
  it("asks the queue for room for a trace the records could complete, under the route the joiner would count it", () => {
    const { admission, asked } = setup({ queue: true });
    const admitted = admission.admit({ spans: complete(T) });
    expect("release" in admitted).toBe(true);
    expect(asked).toEqual([["/ask"]]);
  });

  it("refuses queue_full when the queue has no room for a trace the records could complete, and while traces wait for it", async () => {
    const room = { queue: false };
    const { joiner, admission } = setup(room);
    expect(admission.admit({ spans: complete(T) })).toEqual({ refused: "queue_full" });
    // A trace joined while the queue is full waits in the buffer: the queue is not keeping up.
    await joiner.ingest({ spans: complete(T) }, () => Promise.resolve());
    expect(joiner.waiting).toBe(1);
    expect(admission.queueKeepsUp()).toBe(false);
    room.queue = true;
    expect(admission.queueKeepsUp()).toBe(true);
  });

  it("reserves what admitted records may add until released, so concurrent requests are not all admitted against the same room", () => {
    const records = { spans: [span("1".repeat(32), "0000000000000002", "0000000000000001", { "retrieval.documents.0.document.content": "d".repeat(600) })] };
    const needs = footprint(createTraceJoiner({ timeoutMs: 1000, maxTraces: 10, now: () => 0, onObservation: () => undefined, onIncomplete: () => undefined }).lookup, records).bytes;
    const { admission } = setup({ queue: true }, Math.floor(2.5 * needs));
    const a = admission.admit(records);
    const b = admission.admit(records);
    if (!("release" in a) || !("release" in b)) throw new Error("not admitted");
    expect(admission.admit(records)).toEqual({ refused: "buffer_full" });
    a.release();
    b.release();
    expect("release" in admission.admit(records)).toBe(true);
  });
});
