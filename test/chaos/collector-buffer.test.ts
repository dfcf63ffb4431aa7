/**
 * Chaos: `groundwatch serve` against the two holds of issue 24 (items 1 and 3). One log record with
 * 80,000 input messages must not stall /healthz past a liveness probe's timeout; 10,000 log-only
 * traces refreshed without end must not keep legitimate traces out, and /readyz and /metrics must say
 * what is happening.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers/cli.ts";
import { metric, post, startServe, tally } from "../helpers/serve.ts";
import { BACKGROUND_WORK, waitUntil } from "../helpers/wait.ts";
import { logsJson, tracesJson } from "../collector/otlp-json.ts";

/** A Kubernetes liveness probe's timeout in the set-up. */
const LIVENESS_TIMEOUT_MS = 3000;
const DOC = "Returns are accepted within 30 days of delivery for a full refund.";

/** /healthz answered within the liveness timeout: 200, or the error that a probe would see. */
async function probe(url: string): Promise<number | string> {
  try {
    return (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(LIVENESS_TIMEOUT_MS) })).status;
  } catch (error) {
    return (error as Error).name;
  }
}

function serveWith(collector: Record<string, unknown>) {
  const config = join(tempDir(), "groundwatch.json");
  writeFileSync(config, JSON.stringify({ collector: { bodyLimit: "8mb", ...collector } }));
  return startServe(["--port", "0", "--sample-rate", "1", "--config", config], {}).started;
}

const traceId = (n: number): string => n.toString(16).padStart(32, "0");

describe("chaos: the collector's trace buffer under hold", () => {
  it("answers /healthz within the liveness timeout while it reads one log record of 80,000 input messages, and counts the messages it does not keep", async () => {
    const serve = await serveWith({});
    // 80,000 distinct messages, about 1.7 MB: before, deduplicating them held the event loop ~9 s.
    const messages = JSON.stringify(Array.from({ length: 80_000 }, (_, i) => ({ content: `q${i}` })));
    expect(messages.length).toBeLessThan(2_000_000);
    const record = logsJson(traceId(1), [{ spanId: "0000000000000003", eventName: "gen_ai.client.inference.operation.details", attributes: { "gen_ai.input.messages": messages } }]);
    let done = false;
    const sent = post(`${serve.url}/v1/logs`, JSON.stringify(record)).finally(() => (done = true));
    const probes: Array<number | string> = [];
    while (!done) probes.push(await probe(serve.url));
    expect(await sent).toBe(200);
    probes.push(await probe(serve.url));
    expect(probes.every((p) => p === 200)).toBe(true);
    const t = await tally(serve.url);
    expect(metric(t.text, "groundwatch_collector_incomplete_total", 'groundwatch_reason="too_many_messages"')).toBe(1);
  });

  it("scores legitimate traces while 10,000 log-only traces are refreshed, reports the full buffer on /readyz and /metrics, and lets the stale traces go at maxTraceAgeMs", { timeout: 180_000 }, async () => {
    // At least maxTraceAgeMs (9 s) of holding, and waits of BACKGROUND_WORK each: the default 20 s is no bound for it on a busy machine.
    // Before: all 70 legitimate traces got 429 over 24 s, /readyz stayed 200, /metrics showed nothing.
    // Each refresh is charged RECORD_BYTES (its digest is kept), so the default 64 MB byte budget fills after ~90 rounds:
    // on a quick machine that came before maxTraceAgeMs, and the stale traces left as buffer_full instead. The byte
    // budget is raised so that the trace count is the limit held, as the test means.
    const serve = await serveWith({ traceTimeoutMs: 3000, maxTraceAgeMs: 9000, maxBufferBytes: 1024 * 1024 * 1024 });
    let round = 0;
    let holding = true;
    const hold = (async () => {
      // Each round refreshes the same 10,000 traces with a new message (a repeat would not count as activity).
      while (holding) {
        round++;
        const records = Array.from({ length: 10_000 }, (_, i) => ({ traceId: traceId(1_000_000 + i), spanId: "0000000000000003", eventName: "gen_ai.user.message", body: { content: `refresh ${round}` } }));
        expect(await post(`${serve.url}/v1/logs`, JSON.stringify(logsJson(traceId(1), records)))).toBe(200);
      }
    })();
    // Awaited below; a failed test stops the collector under it, and that error is not the test's.
    hold.catch(() => undefined);
    await waitUntil("the buffer is full", () => tally(serve.url), (t) => metric(t.text, "groundwatch_collector_buffer_traces") === 10_000, BACKGROUND_WORK);

    // 70 legitimate traces, each complete in one request, while the hold goes on; /readyz is watched.
    const statuses: number[] = [];
    const readiness: Array<{ status: number; reason?: string }> = [];
    for (let i = 0; i < 70; i++) {
      const trace = tracesJson(traceId(i + 1), [
        { spanId: "0000000000000002", parentSpanId: "0000000000000001", attributes: { "retrieval.documents.0.document.content": DOC } },
        { spanId: "0000000000000003", parentSpanId: "0000000000000001", attributes: { "openinference.span.kind": "LLM", "output.value": "Returns are accepted within 30 days." } },
        { spanId: "0000000000000001", attributes: { "http.route": "/legit" } },
      ]);
      statuses.push(await post(`${serve.url}/v1/traces`, JSON.stringify(trace)));
      const ready = await fetch(`${serve.url}/readyz`);
      readiness.push({ status: ready.status, ...((await ready.json()) as { reason?: string }) });
    }
    // /readyz said the buffer is held full (after 2 × traceTimeoutMs of it), during the legitimate traces or after them.
    const notReady =
      readiness.find((r) => r.status === 503) ??
      (await waitUntil<{ status: number; reason?: string }>("/readyz 503 for the held buffer", () => fetch(`${serve.url}/readyz`).then(async (r) => ({ status: r.status, ...((await r.json()) as { reason?: string }) })), (r) => r.status === 503, BACKGROUND_WORK));
    expect(notReady.reason).toMatch(/trace buffer has been full/);

    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const scored = await waitUntil("the legitimate traces handed to scoring", () => tally(serve.url), (t) => metric(t.text, "groundwatch_collector_interactions_total", 'groundwatch_route="/legit"') === 70, BACKGROUND_WORK);
    expect(metric(scored.text, "groundwatch_collector_refused_total", 'groundwatch_reason="buffer_full"')).toBe(0);
    // The first legitimate trace found the buffer at maxTraces and evicted the oldest stale trace; that one's later records are late.
    expect(metric(scored.text, "groundwatch_collector_incomplete_total", 'groundwatch_reason="buffer_full"')).toBeGreaterThanOrEqual(1);
    expect(metric(scored.text, "groundwatch_collector_buffer_max_traces")).toBe(10_000);

    // maxTraceAgeMs: the refreshed traces are settled however fresh, their later records counted late, and readiness comes back.
    await waitUntil("the stale traces settled at maxTraceAgeMs", () => tally(serve.url), (t) => metric(t.text, "groundwatch_collector_incomplete_total", 'groundwatch_reason="no_answer"') >= 9_900, BACKGROUND_WORK);
    await waitUntil("their refreshes counted late", () => tally(serve.url), (t) => metric(t.text, "groundwatch_collector_incomplete_total", 'groundwatch_reason="late"') >= 9_900, BACKGROUND_WORK);
    holding = false;
    await hold;
    await waitUntil("/readyz 200 again", () => fetch(`${serve.url}/readyz`).then((r) => r.status), (s) => s === 200, BACKGROUND_WORK);
  });
});
