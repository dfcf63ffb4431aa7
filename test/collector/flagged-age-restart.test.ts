import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers/cli.ts";
import { RETURNS_DOC } from "../helpers/collector.ts";
import { metric, post, startServe } from "../helpers/serve.ts";
import { tracesJson } from "./otlp-json.ts";

const QUESTION = "How long do I have to return an item?";
const GOOD = "You can return unopened items within 30 days of delivery.";
const bad = (days: number): string => `You can return unopened items within ${days} days of delivery.`;
const observation = (answer: string): object => ({ route: "/faq", context: [RETURNS_DOC], answer, question: QUESTION });
const trace = (traceId: string, answer: string): string =>
  JSON.stringify(
    tracesJson(traceId, [
      { spanId: "aaaaaaaaaaaaaaaa", name: "POST /ask", attributes: { "http.route": "/ask" } },
      { spanId: "bbbbbbbbbbbbbbbb", parentSpanId: "aaaaaaaaaaaaaaaa", name: "retrieve", attributes: { "openinference.span.kind": "RETRIEVER", "input.value": QUESTION, "retrieval.documents.0.document.content": RETURNS_DOC } },
      { spanId: "cccccccccccccccc", parentSpanId: "aaaaaaaaaaaaaaaa", name: "llm", attributes: { "openinference.span.kind": "LLM", "llm.output_messages.0.message.role": "assistant", "llm.output_messages.0.message.content": answer } },
    ]),
  );
const metricsOf = async (url: string): Promise<string> => (await fetch(`${url}/metrics`)).text();
const flaggedOf = async (url: string): Promise<Array<{ time: string; traceId: string; spanId: string }>> => ((await (await fetch(`${url}/v1/flagged?limit=1000`)).json()) as { flagged: Array<{ time: string; traceId: string; spanId: string }> }).flagged;
/** A gauge's one value on /metrics (NaN when absent). */
const gauge = (text: string, name: string): number => {
  const line = text.split("\n").find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line === undefined ? NaN : Number(line.slice(line.lastIndexOf(" ") + 1));
};

describe("groundwatch serve: flagged answers after a restart", () => {
  it("with --review-dir, lists the same flagged answers on /v1/flagged after a SIGKILL and a restart, and /metrics says how far back the ring reaches", async () => {
    const dir = join(tempDir(), "spool");
    const env = { GROUNDWATCH_CAPTURE_CONTENT: "1", GROUNDWATCH_REVIEW_REPLICA: "serve-r" };
    const args = ["--port", "0", "--sample-rate", "1", "--review-dir", dir, "--review-sample-rate", "1"];
    const first = await startServe(args, env).started;
    expect(await post(`${first.url}/v1/observations`, JSON.stringify([observation(bad(90)), observation(GOOD), observation(bad(60))]))).toBe(202);
    expect(await post(`${first.url}/v1/traces`, trace("5b8efff798038103d269b633813fc60c", bad(45)))).toBe(200);
    await expect.poll(async () => metric(await metricsOf(first.url), "groundwatch_observations_scored_total"), { timeout: 30_000 }).toBe(4);
    const before = await flaggedOf(first.url);
    expect(before).toHaveLength(3);
    expect(before.map((a) => a.traceId)).toContain("5b8efff798038103d269b633813fc60c");
    const oldest = Math.min(...before.map((a) => Date.parse(a.time)));
    expect(gauge(await metricsOf(first.url), "groundwatch_flagged_oldest")).toBe(oldest / 1000);

    first.signal("SIGKILL");
    await first.exited;
    const restartedAt = Date.now();
    const second = await startServe(args, env).started;
    expect(await flaggedOf(second.url)).toEqual(before);
    const text = await metricsOf(second.url);
    expect(metric(text, "groundwatch_flagged_restored_total")).toBe(3);
    // The ring reaches back to the oldest answer it filled back, not to the restart.
    expect(gauge(text, "groundwatch_flagged_since")).toBe(oldest / 1000);
    expect(gauge(text, "groundwatch_flagged_since") * 1000).toBeLessThan(restartedAt);
    second.signal("SIGTERM");
    await second.exited;
  });

  it("without a spool, starts the ring again at a restart: groundwatch_flagged_since moves to the new start and /v1/flagged is empty", async () => {
    const args = ["--port", "0", "--sample-rate", "1"];
    const first = await startServe(args, {}).started;
    expect(await post(`${first.url}/v1/observations`, JSON.stringify([observation(bad(90))]))).toBe(202);
    await expect.poll(async () => (await flaggedOf(first.url)).length, { timeout: 30_000 }).toBe(1);
    const firstSince = gauge(await metricsOf(first.url), "groundwatch_flagged_since");
    expect(firstSince).toBeGreaterThan(0);
    first.signal("SIGTERM");
    await first.exited;

    const restartedAt = Date.now();
    const second = await startServe(args, {}).started;
    expect(await flaggedOf(second.url)).toEqual([]);
    const text = await metricsOf(second.url);
    expect(gauge(text, "groundwatch_flagged_since") * 1000).toBeGreaterThanOrEqual(restartedAt - 1);
    expect(gauge(text, "groundwatch_flagged_oldest")).toBeNaN();
    expect(metric(text, "groundwatch_flagged_restored_total")).toBe(0);
    second.signal("SIGTERM");
    await second.exited;
  });
});
