import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { labelsPath, readSpools, segmentName } from "../../src/review/spool-files.ts";
import { tempDir } from "../helpers/cli.ts";
import { RETURNS_DOC } from "../helpers/collector.ts";
import { fifo } from "../helpers/review-spool.ts";
import { metric, post, rss, startServe } from "../helpers/serve.ts";
import { tracesJson } from "../collector/otlp-json.ts";

const QUESTION = "How long do I have to return an item?";
const GOOD = "You can return unopened items within 30 days of delivery.";
const BAD = "You can return unopened items within 90 days of delivery.";
const observation = (answer: string): object => ({ route: "/faq", context: [RETURNS_DOC], answer, question: QUESTION });
const trace = (traceId: string, answer: string): string =>
  JSON.stringify(
    tracesJson(traceId, [
      { spanId: "aaaaaaaaaaaaaaaa", name: "POST /ask", attributes: { "http.route": "/ask" } },
      { spanId: "bbbbbbbbbbbbbbbb", parentSpanId: "aaaaaaaaaaaaaaaa", name: "retrieve", attributes: { "openinference.span.kind": "RETRIEVER", "input.value": QUESTION, "retrieval.documents.0.document.content": RETURNS_DOC } },
      { spanId: "cccccccccccccccc", parentSpanId: "aaaaaaaaaaaaaaaa", name: "llm", attributes: { "openinference.span.kind": "LLM", "llm.output_messages.0.message.role": "assistant", "llm.output_messages.0.message.content": answer } },
    ]),
  );
const scored = async (url: string): Promise<number> => metric(await (await fetch(`${url}/metrics`)).text(), "groundwatch_observations_scored_total");

describe("groundwatch serve --review-dir", () => {
  it("says where it spools, spools flagged and sampled grounded answers from observations and traces as /metrics counts them, and after a SIGKILL and restart continues without duplicates", async () => {
    const dir = join(tempDir(), "spool");
    const env = { GROUNDWATCH_CAPTURE_CONTENT: "1", GROUNDWATCH_REVIEW_REPLICA: "serve-a" };
    const args = ["--port", "0", "--sample-rate", "1", "--review-dir", dir, "--review-sample-rate", "1"];
    const first = await startServe(args, env).started;
    expect(first.output()).toMatch(new RegExp(`review\\s+spooling to ${dir} \\(replica serve-a\\): every flagged answer, grounded answers at rate 1`));
    expect(await post(`${first.url}/v1/observations`, JSON.stringify([observation(BAD), observation(GOOD), observation(BAD)]))).toBe(202);
    expect(await post(`${first.url}/v1/traces`, trace("5b8efff798038103d269b633813fc60c", BAD))).toBe(200);
    expect(await post(`${first.url}/v1/traces`, trace("6c9f0008a9149214e37ac744924fd71d", GOOD))).toBe(200);
    await expect.poll(() => scored(first.url), { timeout: 30_000 }).toBe(5);
    const text = await (await fetch(`${first.url}/metrics`)).text();
    const records = readSpools([dir]).records;
    expect(records.filter((r) => r.kind === "flagged")).toHaveLength(3);
    expect(records.filter((r) => r.kind === "grounded_sample")).toHaveLength(2);
    expect(metric(text, "groundwatch_review_spooled_total", 'groundwatch_review_kind="flagged"')).toBe(3);
    expect(metric(text, "groundwatch_review_spooled_total", 'groundwatch_review_kind="grounded_sample"')).toBe(2);
    expect(records.find((r) => r.traceId === "5b8efff798038103d269b633813fc60c")).toMatchObject({ kind: "flagged", route: "/ask", answer: BAD, replica: "serve-a" });

    first.signal("SIGKILL");
    await first.exited;
    const second = await startServe(args, env).started;
    expect(await post(`${second.url}/v1/observations`, JSON.stringify([observation(BAD)]))).toBe(202);
    await expect.poll(() => scored(second.url), { timeout: 30_000 }).toBe(1);
    const after = readSpools([dir]);
    expect(after.records).toHaveLength(6);
    expect(new Set(after.records.map((r) => r.id)).size).toBe(6);
    expect(after.unreadable).toBe(0);
    second.signal("SIGTERM");
    await second.exited;
  });

  it("listens and spools with a FIFO named like a segment and labels.jsonl linked to /dev/zero in its review dir, passing over both and counting them", async () => {
    const dir = join(tempDir(), "spool");
    mkdirSync(dir, { mode: 0o700 });
    // The writer reads each segment's last line when it opens the directory; the labels gauge reads labels.jsonl at a scrape.
    fifo(join(dir, segmentName("planted", Date.parse("2026-11-01T00:00:00Z"), 0)));
    symlinkSync("/dev/zero", labelsPath(dir));
    const env = { GROUNDWATCH_CAPTURE_CONTENT: "1", GROUNDWATCH_REVIEW_REPLICA: "serve-b" };
    const s = await startServe(["--port", "0", "--sample-rate", "1", "--review-dir", dir], env).started;
    expect(await post(`${s.url}/v1/observations`, JSON.stringify([observation(BAD)]))).toBe(202);
    await expect.poll(() => scored(s.url), { timeout: 30_000 }).toBe(1);
    const text = await (await fetch(`${s.url}/metrics`)).text();
    expect(metric(text, "groundwatch_review_spooled_total")).toBe(1);
    expect(metric(text, "groundwatch_review_labels")).toBe(0);
    expect(metric(text, "groundwatch_review_files_skipped_total", 'groundwatch_reason="not_regular"')).toBeGreaterThanOrEqual(2);
    // Nothing of /dev/zero was read: the collector stays at its usual size (it reached 8 GB reading it).
    expect(rss(s.pid)).toBeLessThan(1024 ** 3);
    expect(readSpools([dir]).records.map((r) => r.answer)).toEqual([BAD]);
    s.signal("SIGTERM");
    await s.exited;
  });

  it("says review is off without a directory, and refuses a directory without content capture (exit 2, naming review.dir)", async () => {
    const off = await startServe(["--port", "0"], {}).started;
    expect(off.output()).toMatch(/review\s+off \(--review-dir DIR/);
    off.signal("SIGTERM");
    await off.exited;
    const refused = startServe(["--port", "0", "--review-dir", join(tempDir(), "spool")], {});
    // It never listens: `started` rejects, which is expected here.
    refused.started.catch(() => undefined);
    expect((await refused.exited).code).toBe(2);
    expect(refused.output()).toMatch(/review\.dir.*content capture/);
  });
});
