import { describe, expect, it } from "vitest";
import { MAX_RECORD_ATTRIBUTES, OtlpDecodeError, decodeJson, decodeLogsJson } from "../../src/collector/otlp.ts";
import { postJson, startTestCollector } from "../helpers/collector.ts";
import { logsJson, tracesJson } from "./otlp-json.ts";

const T = "4bf92f3577b34da6a3ce929d0e0e4736";
const many = (n: number): Record<string, string> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, "v"]));

describe("OTLP records with more attributes than anyone records", () => {
  it("rejects a span, a span event or a log record over MAX_RECORD_ATTRIBUTES unread, and keeps one at the cap", () => {
    const spans = decodeJson(
      JSON.stringify(
        tracesJson(T, [
          { spanId: "0000000000000001", attributes: many(MAX_RECORD_ATTRIBUTES + 1) },
          { spanId: "0000000000000002", events: [{ name: "e", attributes: many(MAX_RECORD_ATTRIBUTES + 1) }] },
          { spanId: "0000000000000003", attributes: many(MAX_RECORD_ATTRIBUTES) },
        ]),
      ),
    );
    expect(spans.spans.map((s) => s.spanId)).toEqual(["0000000000000003"]);
    expect(spans).toMatchObject({ rejected: 2, tooManyAttributes: 2 });
    expect(spans.errors[0]).toContain(`${MAX_RECORD_ATTRIBUTES + 1} attributes, more than ${MAX_RECORD_ATTRIBUTES}`);
    const logs = decodeLogsJson(JSON.stringify(logsJson(T, [{ spanId: "0000000000000001", eventName: "gen_ai.choice", attributes: many(MAX_RECORD_ATTRIBUTES + 1) }])));
    expect(logs).toMatchObject({ logs: [], rejected: 1, tooManyAttributes: 1 });
  });

  it("refuses a resource over the cap as a malformed request", () => {
    const body = tracesJson(T, [{ spanId: "0000000000000001" }]) as { resourceSpans: Array<{ resource: { attributes: unknown[] } }> };
    const resource = body.resourceSpans[0]?.resource;
    if (resource) resource.attributes = Array.from({ length: MAX_RECORD_ATTRIBUTES + 1 }, (_, i) => ({ key: `r${i}`, value: { stringValue: "v" } }));
    expect(() => decodeJson(JSON.stringify(body))).toThrow(OtlpDecodeError);
  });

  it("counts such records too_many_attributes on /metrics, not invalid_id, and answers them in the partial success", async () => {
    const c = await startTestCollector();
    const res = await postJson(`${c.url}/v1/traces`, tracesJson(T, [{ spanId: "0000000000000001", attributes: many(MAX_RECORD_ATTRIBUTES + 1) }]));
    expect(res.status).toBe(200);
    expect(JSON.stringify(await res.json())).toContain('"rejectedSpans"');
    const metrics = await (await fetch(`${c.url}/metrics`)).text();
    expect(metrics).toMatch(/groundwatch_collector_incomplete_total\{[^}]*groundwatch_reason="too_many_attributes"[^}]*\} 1\b/);
    expect(metrics).not.toMatch(/groundwatch_reason="invalid_id"/);
  });
});
