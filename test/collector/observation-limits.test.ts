import { describe, expect, it } from "vitest";
import { MAX_DOCUMENT_NAME_CHARS } from "../../src/core/context.ts";
import { postJson, startTestCollector } from "../helpers/collector.ts";

const DOC = "Returns are accepted within 30 days of delivery for a full refund.";
const ANSWER = "Returns are accepted within 30 days of delivery.";

describe("/v1/observations: document names are limited and counted", () => {
  it("refuses a document title, url or id over MAX_DOCUMENT_NAME_CHARS with 400 naming the field", async () => {
    const c = await startTestCollector();
    for (const key of ["title", "url", "id"]) {
      const res = await postJson(`${c.url}/v1/observations`, { route: "/r", answer: ANSWER, context: [DOC, { text: DOC, [key]: "n".repeat(MAX_DOCUMENT_NAME_CHARS + 1) }] });
      expect(res.status).toBe(400);
      expect(JSON.stringify(await res.json())).toContain(`.context.1.${key}`);
    }
    expect(c.monitor.stats().seen).toBe(0);
  });

  it("counts names against the queue's byte budget: a batch whose titles overflow it gets 429, not 202", async () => {
    const c = await startTestCollector({ monitor: { queueBytes: 16 * 1024 } });
    const named = Array.from({ length: 10 }, (_, i) => ({ route: "/r", answer: ANSWER, context: [{ text: DOC, title: `${i}`.padEnd(MAX_DOCUMENT_NAME_CHARS, "t") }] }));
    const res = await postJson(`${c.url}/v1/observations`, named);
    expect(res.status).toBe(429);
    expect(c.monitor.stats().seen).toBe(0);
    expect((await postJson(`${c.url}/v1/observations`, named.slice(0, 2))).status).toBe(202);
  });
});
