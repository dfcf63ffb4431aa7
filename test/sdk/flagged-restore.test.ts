import { appendFileSync, readdirSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { deleteTrace } from "../../src/cli/review/delete.ts";
import { createFlaggedRing } from "../../src/evaluation/flagged-ring.ts";
import type { FlaggedAnswer } from "../../src/evaluation/types.ts";
import type { SpoolRecord } from "../../src/review/record.ts";
import { segmentName } from "../../src/review/spool-files.ts";
import { flaggedAnswerOfRecord, restoreFlagged } from "../../src/sdk/flagged-restore.ts";
import type { MonitorOptions } from "../../src/sdk/options.ts";
import { METRICS } from "../../src/telemetry/semconv.ts";
import { tempDir } from "../helpers/cli.ts";
import { testMonitor } from "../helpers/monitor.ts";
import { testOtel } from "../helpers/otel.ts";
import { spoolRecord } from "../helpers/review-spool.ts";

const CONTEXT = [{ id: "policy", title: "Returns policy", url: "https://example.com/returns", text: "Returns are accepted within 30 days of delivery for a full refund." }];
const bad = (days: number) => ({ context: CONTEXT, answer: `Returns are accepted within ${days} days of delivery.`, question: "How long do I have to return an item?" });
const GOOD = { context: CONTEXT, answer: "Returns are accepted within 30 days of delivery.", question: "How long do I have to return an item?" };

/** A monitor spooling every flagged answer to `dir` as replica `replica`. */
function spooling(dir: string, extra: MonitorOptions = {}, replica = "replica-a") {
  const otel = testOtel();
  const monitor = testMonitor(otel, { sampling: { default: 1 }, captureContent: true, review: { dir, replica, groundedSampleRate: 1 }, ...extra });
  return { otel, monitor };
}

/** Flags `n` answers on `route` (one of them grounded, spooled as a sample) and stops the monitor. */
async function flagAndStop(dir: string, n: number, extra: MonitorOptions = {}, route = "/api/returns") {
  const { monitor } = spooling(dir, extra);
  monitor.observe({ route, ...GOOD });
  for (let i = 0; i < n; i++) monitor.observe({ route, ...bad(40 + i) });
  await monitor.flush();
  const before = monitor.flagged({ limit: 1000 });
  await monitor.shutdown(1000);
  return before;
}

/** The monitor's metric points of `name`. */
async function points(otel: ReturnType<typeof testOtel>, name: string) {
  return (await otel.metrics()).get(name) ?? [];
}

/** The value of a metric's one point (NaN when it has none). */
async function valueOf(otel: ReturnType<typeof testOtel>, name: string): Promise<number> {
  const v = (await points(otel, name))[0]?.value;
  return typeof v === "number" ? v : NaN;
}

describe("flagged answers survive a restart with a review spool", () => {
  it("fills the ring back at start: the same answers, ids, times, claims and texts, newest first", async () => {
    const dir = join(tempDir(), "spool");
    const before = await flagAndStop(dir, 4);
    expect(before).toHaveLength(4);
    expect(before[0]?.claims[0]?.text).toContain("days");

    const { monitor, otel } = spooling(dir);
    expect(monitor.flagged({ limit: 1000 })).toEqual(before);
    expect(monitor.flaggedPage({ limit: 2 }).flagged).toEqual(before.slice(0, 2));
    expect(await points(otel, METRICS.flaggedRestored.name)).toEqual([{ attributes: {}, value: 4 }]);
    // What it scores next is newer than what came back.
    monitor.observe({ route: "/api/returns", ...bad(99) });
    await monitor.flush();
    const after = monitor.flagged({ limit: 1000 });
    expect(after).toHaveLength(5);
    expect(after[0]?.answer).toContain("99 days");
    expect(after.slice(1)).toEqual(before);
  });

  it("does not bring back an answer review delete removed", async () => {
    const dir = join(tempDir(), "spool");
    const before = await flagAndStop(dir, 3);
    const erased = before[1];
    expect(deleteTrace(dir, erased?.traceId ?? "").records).toBe(1);

    const { monitor } = spooling(dir);
    const restored = monitor.flagged({ limit: 1000 });
    expect(restored.map((a) => a.spanId)).toEqual([before[0]?.spanId, before[2]?.spanId]);
    expect(JSON.stringify(restored)).not.toContain(erased?.traceId);
  });

  it("restores only the newest answers that fit the ring's caps (per route and bytes)", async () => {
    const dir = join(tempDir(), "spool");
    const before = await flagAndStop(dir, 6, { flaggedPerRoute: 10 });
    expect(before).toHaveLength(6);

    const perRoute = spooling(dir, { flaggedPerRoute: 2 }).monitor;
    expect(perRoute.flagged({ limit: 1000 })).toEqual(before.slice(0, 2));

    // A ring of 3 KiB holds about two of these answers (a sixteenth each at most is 1 KiB, the floor).
    const one = JSON.stringify(before[0]).length;
    const small = spooling(dir, { flaggedMaxBytes: 2 * one + 10 }).monitor;
    expect(small.flagged({ limit: 1000 })).toEqual(before.slice(0, 2));
  });

  it("skips a partial last line (a crash mid-write) and counts it", async () => {
    const dir = join(tempDir(), "spool");
    const before = await flagAndStop(dir, 2);
    const segment = readdirSync(dir).filter((n) => n.startsWith("segment-")).sort().at(-1) ?? "";
    appendFileSync(join(dir, segment), '{"v":1,"id":"torn","kind":"flagged","answer":"The off');

    const { monitor, otel } = spooling(dir);
    expect(monitor.flagged({ limit: 1000 })).toEqual(before);
    expect(await points(otel, METRICS.flaggedRestoreSkipped.name)).toEqual([{ attributes: { "groundwatch.reason": "unreadable" }, value: 1 }]);
  });

  it("reads only its own replica's segments", async () => {
    const dir = join(tempDir(), "spool");
    await flagAndStop(dir, 2);
    const other = spooling(dir, {}, "replica-b").monitor;
    expect(other.flagged()).toEqual([]);
  });

  it("moves groundwatch.flagged.since to the oldest answer filled back, and reports the oldest answer held", async () => {
    const dir = join(tempDir(), "spool");
    const startedBefore = Date.now();
    const fresh = spooling(dir);
    const since = await valueOf(fresh.otel, METRICS.flaggedSince.name);
    expect(since * 1000).toBeGreaterThanOrEqual(startedBefore - 1);
    expect(since * 1000).toBeLessThanOrEqual(Date.now());
    expect(await points(fresh.otel, METRICS.flaggedOldest.name)).toEqual([]);
    fresh.monitor.observe({ route: "/api/returns", ...bad(41) });
    fresh.monitor.observe({ route: "/api/returns", ...bad(42) });
    await fresh.monitor.flush();
    const oldestTime = fresh.monitor.flagged().at(-1)?.time ?? "";
    expect((await points(fresh.otel, METRICS.flaggedOldest.name))[0]?.value).toBe(Date.parse(oldestTime) / 1000);
    await fresh.monitor.shutdown(1000);

    // Restarted: the ring reaches back to the oldest answer it filled back, not to the restart.
    const again = spooling(dir);
    expect((await points(again.otel, METRICS.flaggedSince.name))[0]?.value).toBe(Date.parse(oldestTime) / 1000);
    expect((await points(again.otel, METRICS.flaggedOldest.name))[0]?.value).toBe(Date.parse(oldestTime) / 1000);

    // Without a spool, a restart starts the ring again: since is the new start, and it holds nothing.
    const otel = testOtel();
    const restartedAt = Date.now();
    testMonitor(otel, { sampling: { default: 1 } });
    expect((await valueOf(otel, METRICS.flaggedSince.name)) * 1000).toBeGreaterThanOrEqual(restartedAt - 1);
    expect(await points(otel, METRICS.flaggedOldest.name)).toEqual([]);
  });
});

/** A spool of `n` flagged records of replica r1 in segments of about 64 KiB, the newest last; returns the dir. */
function writeFlaggedSpool(n: number): string {
  const dir = join(tempDir(), "spool");
  mkdirSync(dir, { recursive: true });
  const start = Date.parse("2026-11-01T00:00:00Z");
  let seg = 0;
  let lines: string[] = [];
  let bytes = 0;
  const flush = (): void => {
    writeFileSync(join(dir, segmentName("r1", start + seg, seg)), lines.join(""));
    seg++;
    lines = [];
    bytes = 0;
  };
  for (let i = 0; i < n; i++) {
    const base = spoolRecord(`f${i}`, "flagged", new Date(start + i * 1000).toISOString());
    const record: SpoolRecord = { ...base, route: `/r${i % 5}`, claims: [{ index: 0, text: `The office f${i} moved to the Moon`, start: 0, end: 20, verdict: "contradicted", score: 0.05, evidence: { doc: 0, start: 0, end: 20 } }] };
    const line = `${JSON.stringify(record)}\n`;
    lines.push(line);
    bytes += line.length;
    if (bytes > 64 * 1024) flush();
  }
  if (lines.length > 0) flush();
  return dir;
}

/** CPU time (ms) of the fastest of `k` runs of `fn`. */
function fastestCpuMs(k: number, fn: () => void): number {
  let best = Infinity;
  for (let i = 0; i < k; i++) {
    const t = process.cpuUsage();
    fn();
    const d = process.cpuUsage(t);
    best = Math.min(best, (d.user + d.system) / 1000);
  }
  return best;
}

describe("filling the ring back reads only the newest part of a spool", () => {
  it("reads as many bytes of a spool of 4N records as of one of N, once the ring is full, and takes no more CPU time for it", () => {
    const n = 4000;
    const small = writeFlaggedSpool(n);
    const large = writeFlaggedSpool(4 * n);
    const restore = (dir: string) => {
      const ring = createFlaggedRing({ perRoute: 50, maxBytes: 64 * 1024 });
      return { ring, result: restoreFlagged({ ring, dir, replica: "r1", perRoute: 50, maxBytes: 64 * 1024, contentMaxLength: 1000, maxLineBytes: 1 << 20 }) };
    };
    const a = restore(small);
    const b = restore(large);
    expect(a.result.stopped).toBe(true);
    // It stopped because the ring was full (about 100 KiB of records), well before its 1 MiB budget.
    expect(a.result.bytesRead).toBeLessThan(256 * 1024);
    // Segments are read whole (64 KiB here): the two reads differ by at most the segments at the ends.
    expect(b.result.bytesRead).toBeLessThan(a.result.bytesRead + 2 * 66 * 1024);
    // As many answers (their ids differ in length by a character or two).
    expect(Math.abs(b.result.restored - a.result.restored)).toBeLessThanOrEqual(2);
    // The newest of each: the last records written, read back newest first.
    expect(b.ring.read({ limit: 1 })[0]?.traceId).toBe(`f${4 * n - 1}`.padStart(32, "0"));
    expect(a.ring.read({ limit: 1 })[0]?.traceId).toBe(`f${n - 1}`.padStart(32, "0"));
    const smallMs = fastestCpuMs(5, () => restore(small));
    const largeMs = fastestCpuMs(5, () => restore(large));
    // Reading the whole spool would cost about 4×; bounded, about the same (generous: 2×).
    expect(largeMs).toBeLessThan(2 * smallMs + 5);
  });

  it("does not fill back answers past the spool's retention", () => {
    const dir = writeFlaggedSpool(20);
    const ring = createFlaggedRing({ perRoute: 50, maxBytes: 1 << 20 });
    const notBefore = Date.parse("2026-11-01T00:00:15Z");
    const result = restoreFlagged({ ring, dir, replica: "r1", perRoute: 50, maxBytes: 1 << 20, contentMaxLength: 1000, maxLineBytes: 1 << 20, notBefore });
    expect(result.restored).toBe(5);
    expect(ring.read().every((a) => Date.parse(a.time) >= notBefore)).toBe(true);
    expect(ring.since()).toBe(notBefore);
  });

  it("stops at its byte budget when the ring's caps would take more", () => {
    const dir = writeFlaggedSpool(2000);
    const ring = createFlaggedRing({ perRoute: 100_000, maxBytes: 1 << 30 });
    const result = restoreFlagged({ ring, dir, replica: "r1", perRoute: 100_000, maxBytes: 1 << 30, contentMaxLength: 1000, maxLineBytes: 1 << 20, budgetBytes: 100 * 1024 });
    expect(result.stopped).toBe(true);
    expect(result.bytesRead).toBeLessThan(100 * 1024 + 64 * 1024 + 256 * 1024);
    expect(result.restored).toBeGreaterThan(0);
    expect(result.restored).toBeLessThan(2000);
  });
});

describe("a spool record as the ring's entry", () => {
  const record = (extra: Partial<Record<keyof SpoolRecord, unknown>> = {}): SpoolRecord =>
    ({
      ...spoolRecord("ab12", "flagged", "2026-11-01T10:00:00.000Z"),
      traceId: "0123456789abcdef0123456789abcdef",
      spanId: "0123456789abcdef",
      cause: "generation",
      documents: [{ id: "moon-doc", title: "Offices", url: "https://example.com/o", text: "The office is in Paris. It opened in 1990." }],
      claims: [
        { index: 0, text: "The office is in Paris", start: 0, end: 22, verdict: "supported", score: 0.9, evidence: { doc: 0, start: 0, end: 23 } },
        { index: 1, text: "It moved to the Moon", start: 24, end: 44, verdict: "contradicted", score: 0.02, cause: "generation", evidence: { doc: 0, start: 24, end: 42, also: { doc: 0, start: 0, end: 23 } }, spans: [0], reason: "unsupported_span" },
        { index: 2, text: "in 1890", start: 45, end: 52, verdict: "unsupported", score: 0.1, reason: "citation_not_retrieved" },
      ],
      spans: [{ start: 37, end: 41, probability: 0.93, claim: 1, text: "Moon" }],
      ...extra,
    }) as SpoolRecord;

  it("keeps the claims not supported, their evidence with its document's names and sentence, and the spans, with texts capped", () => {
    expect(flaggedAnswerOfRecord(record(), 12)).toEqual({
      traceId: "0123456789abcdef0123456789abcdef",
      spanId: "0123456789abcdef",
      time: "2026-11-01T10:00:00.000Z",
      route: "/ask",
      verdict: "ungrounded",
      score: 0.1,
      cause: "generation",
      question: "Where is th…",
      answer: "The office …",
      claims: [
        { verdict: "contradicted", start: 24, end: 44, evidence: { doc: 0, start: 24, end: 42, id: "moon-doc", title: "Offices", url: "https://exa…" }, cause: "generation", text: "It moved to…", evidenceText: "It opened i…", reason: "unsupported_span", spans: [0] },
        { verdict: "unsupported", start: 45, end: 52, evidence: null, text: "in 1890" },
      ],
      spans: [{ start: 37, end: 41, probability: 0.93, claim: 1, text: "Moon" }],
    });
  });

  it("refuses a grounded sample and fields out of shape (a hostile or foreign spool), and gives an untraced answer zero ids", () => {
    expect(flaggedAnswerOfRecord(record({ kind: "grounded_sample", verdict: "grounded" }), 100)).toBeUndefined();
    expect(flaggedAnswerOfRecord(record({ traceId: "not-hex" }), 100)).toBeUndefined();
    expect(flaggedAnswerOfRecord(record({ time: "yesterday" }), 100)).toBeUndefined();
    expect(flaggedAnswerOfRecord(record({ claims: [{ verdict: "contradicted", start: -1, end: 2, text: "x" }] }), 100)).toBeUndefined();
    expect(flaggedAnswerOfRecord(record({ claims: [{ verdict: "contradicted", start: 0, end: 2, text: "x", evidence: { doc: "0" } }] }), 100)).toBeUndefined();
    expect(flaggedAnswerOfRecord(record({ spans: "Moon" }), 100)).toBeUndefined();
    expect(flaggedAnswerOfRecord(record({ score: "low" }), 100)).toBeUndefined();
    const { traceId: _t, spanId: _s, ...untraced } = record();
    expect(flaggedAnswerOfRecord(untraced as SpoolRecord, 100)).toMatchObject({ traceId: "0".repeat(32), spanId: "0".repeat(16) });
  });

  it("fills only an empty ring, without telling onDrop of what its caps let go, and pages on from the answers filled back", () => {
    const drops: string[] = [];
    const ring = createFlaggedRing({ perRoute: 2, maxBytes: 1 << 20, onDrop: (reason) => drops.push(reason) });
    const entries = [0, 1, 2].map((i) => flaggedAnswerOfRecord(record({ spanId: `000000000000000${i}`, time: `2026-11-01T10:00:0${i}.000Z` }), 100));
    expect(ring.restore(entries.filter((e) => e !== undefined))).toBe(true);
    expect(drops).toEqual([]);
    expect(ring.read().map((a) => a.spanId)).toEqual(["0000000000000002", "0000000000000001"]);
    const { cursor } = ring.page();
    const { time: _time, ...next } = entries[0] ?? record();
    ring.add({ ...next, spanId: "00000000000000ff" } as Omit<FlaggedAnswer, "time">);
    expect(ring.page({ after: cursor }).flagged.map((a) => a.spanId)).toEqual(["00000000000000ff"]);
    expect(ring.restore(entries.filter((e) => e !== undefined))).toBe(false);
    expect(ring.size().answers).toBe(2);
  });
});
