import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isConfigError } from "../../src/config/errors.ts";
import { rng } from "../../src/core/rng.ts";
import { readSpools } from "../../src/review/spool-files.ts";
import { createMonitor } from "../../src/sdk/monitor.ts";
import { resolveMonitorOptions } from "../../src/sdk/options.ts";
import { sanitizeReplica } from "../../src/sdk/review-options.ts";
import { METRICS } from "../../src/telemetry/semconv.ts";
import { tempDir } from "../helpers/cli.ts";
import { MONITOR_TEST_ENV, testMonitor } from "../helpers/monitor.ts";
import { testOtel } from "../helpers/otel.ts";

const CONTEXT = [{ id: "policy", title: "Returns policy", url: "https://example.com/returns", text: "Returns are accepted within 30 days of delivery for a full refund." }];
const GOOD = { context: CONTEXT, answer: "Returns are accepted within 30 days of delivery.", question: "How long do I have to return an item?" };
const BAD = { context: CONTEXT, answer: "Returns are accepted within 90 days of delivery.", question: "How long do I have to return an item?" };

/** How many of `n` grounded answers a seeded source picks at `rate`: the draws the monitor makes, one per grounded answer. */
function expectedSample(seed: number, n: number, rate: number): number {
  const random = rng(seed);
  let k = 0;
  for (let i = 0; i < n; i++) if (random() < rate) k++;
  return k;
}

describe("the monitor's review spool", () => {
  it("spools every flagged answer and the seeded grounded sample, with documents, claims and span ids, and counts them on the metrics", async () => {
    const otel = testOtel();
    const dir = join(tempDir(), "spool");
    const monitor = testMonitor(otel, { sampling: { default: 1 }, captureContent: true, random: rng(7), review: { dir, groundedSampleRate: 0.3, replica: "test/1" } });
    for (let i = 0; i < 5; i++) monitor.observe({ route: "/api/returns", ...BAD });
    for (let i = 0; i < 40; i++) monitor.observe({ route: "/api/returns", ...GOOD });
    await monitor.flush();
    const records = readSpools([dir]).records;
    const sampled = expectedSample(7, 40, 0.3);
    expect(sampled).toBeGreaterThan(0);
    expect(records.filter((r) => r.kind === "flagged")).toHaveLength(5);
    expect(records.filter((r) => r.kind === "grounded_sample")).toHaveLength(sampled);
    const flagged = records.find((r) => r.kind === "flagged");
    const span = otel.spans.getFinishedSpans().find((s) => s.spanContext().spanId === flagged?.spanId);
    expect(flagged).toMatchObject({ replica: "test_1", route: "/api/returns", verdict: "ungrounded", question: BAD.question, answer: BAD.answer, sampleRate: 1, documents: [{ id: "policy", title: "Returns policy", url: "https://example.com/returns", text: CONTEXT[0]?.text }] });
    expect(flagged?.id).toBe(`${span?.spanContext().traceId}-${span?.spanContext().spanId}`);
    const claim = flagged?.claims.find((c) => c.verdict !== "supported");
    expect(BAD.answer.slice(claim?.start, claim?.end)).toContain("90 days");
    expect(claim?.evidence?.doc).toBe(0);
    expect(records.find((r) => r.kind === "grounded_sample")?.sampleRate).toBe(0.3);
    const metrics = await otel.metrics();
    const spooled = metrics.get(METRICS.reviewSpooled.name) ?? [];
    expect(spooled.find((p) => p.attributes["groundwatch.review.kind"] === "flagged")?.value).toBe(5);
    expect(spooled.find((p) => p.attributes["groundwatch.review.kind"] === "grounded_sample")?.value).toBe(sampled);
  });

  it("writes every text through the redact hook, and nothing when the hook throws", async () => {
    const otel = testOtel();
    const dir = join(tempDir(), "spool");
    const monitor = testMonitor(otel, { sampling: { default: 1 }, captureContent: true, redact: (t) => t.replace(/\d+/g, "#"), review: { dir } });
    monitor.observe({ route: "/r", ...BAD });
    await monitor.flush();
    const text = JSON.stringify(readSpools([dir]).records);
    expect(text).toContain("# days");
    expect(text).not.toMatch(/\d+ days/);

    const otel2 = testOtel();
    const dir2 = join(tempDir(), "spool");
    const throwing = testMonitor(otel2, { sampling: { default: 1 }, captureContent: true, redact: () => { throw new Error("no"); }, review: { dir: dir2 } });
    throwing.observe({ route: "/r", ...BAD });
    await throwing.flush();
    expect(readSpools([dir2]).records).toEqual([]);
    expect((await otel2.metrics()).get(METRICS.reviewSkipped.name)).toEqual([{ attributes: { "groundwatch.reason": "redact_error" }, value: 1 }]);
  });

  it("counts the answers a spool at its byte cap skips", async () => {
    const otel = testOtel();
    const dir = join(tempDir(), "spool");
    const monitor = testMonitor(otel, { sampling: { default: 1 }, captureContent: true, review: { dir, maxBytes: 2048, segmentBytes: 2048 } });
    for (let i = 0; i < 6; i++) monitor.observe({ route: "/r", ...BAD });
    await monitor.flush();
    const written = readSpools([dir]).records.length;
    const metrics = await otel.metrics();
    expect(written).toBeGreaterThan(0);
    expect(metrics.get(METRICS.reviewSpooled.name)?.[0]?.value).toBe(written);
    expect(metrics.get(METRICS.reviewSkipped.name)).toEqual([{ attributes: { "groundwatch.reason": "bytes" }, value: 6 - written }]);
  });

  it("refuses a review dir without content capture, naming review.dir and saying why", () => {
    const dir = join(tempDir(), "spool");
    let thrown: unknown;
    try {
      createMonitor({ env: MONITOR_TEST_ENV, scoring: { backend: "offline" }, review: { dir } });
    } catch (error) {
      thrown = error;
    }
    expect(isConfigError(thrown)).toBe(true);
    expect((thrown as Error).message).toMatch(/review\.dir.*content capture/);
    expect(() => resolveMonitorOptions({ env: { ...MONITOR_TEST_ENV, GROUNDWATCH_REVIEW_DIR: dir } })).toThrow(/GROUNDWATCH_REVIEW_DIR.*content capture/);
  });

  it("resolves the review options from the environment with their defaults, and names a bad field", () => {
    const env = { ...MONITOR_TEST_ENV, GROUNDWATCH_CAPTURE_CONTENT: "1", GROUNDWATCH_REVIEW_DIR: "/tmp/x", GROUNDWATCH_REVIEW_REPLICA: "pod a" };
    expect(resolveMonitorOptions({ env }).review).toEqual({ dir: "/tmp/x", groundedSampleRate: 0.05, maxBytes: 256 * 1024 * 1024, segmentBytes: 8 * 1024 * 1024, retentionMs: 30 * 86_400_000, replica: "pod_a" });
    expect(resolveMonitorOptions({ env: MONITOR_TEST_ENV }).review).toBeUndefined();
    expect(() => resolveMonitorOptions({ env, review: { dir: "/tmp/x", groundedSampleRate: 2 } })).toThrow(/review\.groundedSampleRate/);
    expect(() => resolveMonitorOptions({ env: { ...env, GROUNDWATCH_REVIEW_MAX_BYTES: "nope" } })).toThrow(/GROUNDWATCH_REVIEW_MAX_BYTES/);
    // Readers take lines up to 256 MiB: a segment may not be longer.
    expect(resolveMonitorOptions({ env: { ...env, GROUNDWATCH_REVIEW_SEGMENT_BYTES: String(2 ** 28) } }).review?.segmentBytes).toBe(2 ** 28);
    expect(() => resolveMonitorOptions({ env: { ...env, GROUNDWATCH_REVIEW_SEGMENT_BYTES: String(2 ** 28 + 1) } })).toThrow(/GROUNDWATCH_REVIEW_SEGMENT_BYTES/);
    expect(sanitizeReplica("host:1/2")).toBe("host_1_2");
  });
});
