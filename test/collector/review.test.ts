import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { rng } from "../../src/core/rng.ts";
import { readSpools } from "../../src/review/spool-files.ts";
import { tempDir } from "../helpers/cli.ts";
import { RETURNS_DOC, postJson, startTestCollector } from "../helpers/collector.ts";
import { metric } from "../helpers/serve.ts";
import { tracesJson } from "./otlp-json.ts";

const QUESTION = "How long do I have to return an item?";
const GOOD = "You can return unopened items within 30 days of delivery.";
const BAD = "You can return unopened items within 90 days of delivery.";

/** An OpenInference trace on /ask answering `answer` from the returns document. */
const trace = (traceId: string, answer: string): object =>
  tracesJson(traceId, [
    { spanId: "aaaaaaaaaaaaaaaa", name: "POST /ask", attributes: { "http.route": "/ask" } },
    { spanId: "bbbbbbbbbbbbbbbb", parentSpanId: "aaaaaaaaaaaaaaaa", name: "retrieve", attributes: { "openinference.span.kind": "RETRIEVER", "input.value": QUESTION, "retrieval.documents.0.document.content": RETURNS_DOC } },
    { spanId: "cccccccccccccccc", parentSpanId: "aaaaaaaaaaaaaaaa", name: "llm", attributes: { "openinference.span.kind": "LLM", "llm.output_messages.0.message.role": "assistant", "llm.output_messages.0.message.content": answer } },
  ]);

describe("collector: the review spool", () => {
  it("spools the flagged answers and the seeded grounded sample of observations and OTLP traces, and /metrics counts the same", async () => {
    const dir = join(tempDir(), "spool");
    const rate = 0.5;
    const c = await startTestCollector({ traceTimeoutMs: 200, monitor: { captureContent: true, random: rng(11), review: { dir, groundedSampleRate: rate, replica: "c1" } } });
    const observations = [...Array.from({ length: 3 }, () => ({ route: "/faq", context: [RETURNS_DOC], answer: BAD, question: QUESTION })), ...Array.from({ length: 16 }, () => ({ route: "/faq", context: [RETURNS_DOC], answer: GOOD, question: QUESTION }))];
    expect((await postJson(`${c.url}/v1/observations`, observations)).status).toBe(202);
    const badTrace = "5b8efff798038103d269b633813fc60c";
    expect((await postJson(`${c.url}/v1/traces`, trace(badTrace, BAD))).status).toBe(200);
    expect((await postJson(`${c.url}/v1/traces`, trace("6c9f0008a9149214e37ac744924fd71d", GOOD))).status).toBe(200);
    await expect.poll(() => c.monitor.stats().scored, { timeout: 30_000 }).toBe(21);

    const random = rng(11);
    let sampled = 0;
    for (let i = 0; i < 17; i++) if (random() < rate) sampled++;
    const records = readSpools([dir]).records;
    expect(records.filter((r) => r.kind === "flagged")).toHaveLength(4);
    expect(records.filter((r) => r.kind === "grounded_sample")).toHaveLength(sampled);
    const fromTrace = records.find((r) => r.traceId === badTrace);
    expect(fromTrace).toMatchObject({ kind: "flagged", route: "/ask", question: QUESTION, answer: BAD, documents: [{ text: RETURNS_DOC }], replica: "c1" });
    const text = await (await fetch(`${c.url}/metrics`)).text();
    expect(metric(text, "groundwatch_review_spooled_total", 'groundwatch_review_kind="flagged"')).toBe(4);
    expect(metric(text, "groundwatch_review_spooled_total", 'groundwatch_review_kind="grounded_sample"')).toBe(sampled);
    expect(metric(text, "groundwatch_review_skipped_total")).toBe(0);
  });
});
