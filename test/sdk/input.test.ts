import { describe, expect, it, onTestFinished } from "vitest";
import { readFileSync } from "node:fs";
import { MAX_DOCUMENT_NAME_CHARS } from "../../src/core/context.ts";
import { OBSERVATION_SCHEMA_PATH } from "../../src/collector/observations.ts";
import { observationBytes } from "../../src/core/observation-bytes.ts";
import { copyInput, readRouting } from "../../src/sdk/input.ts";
import { createMonitor } from "../../src/sdk/monitor.ts";
import { testOtel } from "../helpers/otel.ts";

const DOC = "Returns are accepted within 30 days of delivery for a full refund.";
const ANSWER = "Returns are accepted within 30 days of delivery.";

function copy(input: object): ReturnType<typeof copyInput> {
  const routing = readRouting(input);
  if (!routing.ok) throw new Error(routing.why);
  return copyInput(input, routing);
}

describe("observe() input: limits and byte accounting", () => {
  it("refuses a document id, title or url longer than MAX_DOCUMENT_NAME_CHARS, naming the element", () => {
    for (const key of ["id", "title", "url"] as const) {
      const r = copy({ route: "/r", answer: ANSWER, context: [DOC, { text: DOC, [key]: "n".repeat(MAX_DOCUMENT_NAME_CHARS + 1) }] });
      expect(r).toMatchObject({ ok: false, field: `context[1].${key}` });
      expect(r.ok ? "" : r.why).toContain(String(MAX_DOCUMENT_NAME_CHARS));
    }
    expect(copy({ route: "/r", answer: ANSWER, context: [{ text: DOC, title: "t".repeat(MAX_DOCUMENT_NAME_CHARS) }] }).ok).toBe(true);
  });

  it("counts every byte it holds: document names, logprobs and span attributes, not only the text", () => {
    const text = { route: "/r", answer: ANSWER, context: [DOC] };
    const base = copy(text);
    const named = copy({ ...text, context: [{ text: DOC, id: "doc-1", title: "Returns policy", url: "https://example.test/returns" }] });
    const attributed = copy({ ...text, attributes: { "app.user_tier": "x".repeat(4000), "app.flags": [1, 2, 3] } });
    const sampled = copy({ ...text, samples: [{ text: ANSWER, logprobs: [-0.1, -0.2] }] });
    if (!base.ok || !named.ok || !attributed.ok || !sampled.ok) throw new Error("copy failed");
    expect(base.bytes).toBe(ANSWER.length + DOC.length);
    expect(named.bytes - base.bytes).toBe("doc-1".length + "Returns policy".length + "https://example.test/returns".length);
    expect(attributed.bytes - base.bytes).toBe("app.user_tier".length + 4000 + "app.flags".length + 3 * 8);
    expect(sampled.bytes - base.bytes).toBe(ANSWER.length + 2 * 8);
    expect(observationBytes(named.observation)).toBe(named.bytes);
  });

  it("drops (queue_bytes) an observation whose names and attributes do not fit the budget, though its text would", async () => {
    const otel = testOtel();
    const monitor = createMonitor({ env: { HF_HOME: "/nonexistent/groundwatch-test-hf-home" }, scoring: { backend: "offline" }, sampling: { default: 1 }, queueBytes: 8192, tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider, loggerProvider: otel.loggerProvider });
    onTestFinished(() => monitor.shutdown(1000));
    const titles = Array.from({ length: 6 }, (_, i) => ({ text: DOC, title: `${i}`.padEnd(2000, "t") }));
    monitor.observe({ route: "/r", answer: ANSWER, context: titles });
    monitor.observe({ route: "/r", answer: ANSWER, context: [DOC], attributes: Object.fromEntries(Array.from({ length: 3 }, (_, i) => [`a${i}`, "v".repeat(4000)])) });
    monitor.observe({ route: "/r", answer: ANSWER, context: [{ text: DOC, url: "u".repeat(MAX_DOCUMENT_NAME_CHARS + 1) }] });
    monitor.observe({ route: "/r", answer: ANSWER, context: [DOC] });
    await monitor.flush();
    expect(monitor.stats()).toMatchObject({ seen: 4, scored: 1, dropped: { queue_bytes: 2 }, failed: { invalid_input: 1 } });
  });

  it("publishes the same name limit in /v1/observations' schema", () => {
    const schema = readFileSync(OBSERVATION_SCHEMA_PATH, "utf8");
    const doc = (JSON.parse(schema) as { properties: { context: { oneOf: Array<{ items?: { oneOf: Array<{ properties?: Record<string, { maxLength?: number; oneOf?: Array<{ maxLength?: number }> }> }> } }> } } }).properties.context.oneOf[1]?.items?.oneOf[1]?.properties ?? {};
    expect(doc.title?.maxLength).toBe(MAX_DOCUMENT_NAME_CHARS);
    expect(doc.url?.maxLength).toBe(MAX_DOCUMENT_NAME_CHARS);
    expect(doc.id?.oneOf?.[0]?.maxLength).toBe(MAX_DOCUMENT_NAME_CHARS);
  });
});
