import { describe, expect, it } from "vitest";
import type { FlaggedAnswer } from "../../src/telemetry/flagged.ts";
import { FLAGGED_MAX_LIMIT, createFlaggedRing, flaggedAnswerOf } from "../../src/telemetry/flagged.ts";
import type { FlaggedDropReason } from "../../src/telemetry/semconv.ts";
import type { EvaluationSummary } from "../../src/telemetry/summary.ts";
import { expectLinear, measureGrowth } from "../helpers/growth.ts";

const answer = (route: string, n: number, extra: Partial<Omit<FlaggedAnswer, "time">> = {}): Omit<FlaggedAnswer, "time"> => ({
  traceId: n.toString(16).padStart(32, "0"),
  spanId: n.toString(16).padStart(16, "0"),
  route,
  verdict: "ungrounded",
  score: 0.1,
  claims: [{ verdict: "unsupported", start: 0, end: 10, evidence: { doc: 0, start: 3, end: 40 } }],
  ...extra,
});

/** A ring on a clock that ticks 1 ms per answer, with its drops counted. */
function ring(perRoute: number, maxBytes: number) {
  let t = Date.UTC(2026, 0, 1);
  const drops: FlaggedDropReason[] = [];
  const r = createFlaggedRing({ perRoute, maxBytes, now: () => t++, onDrop: (reason) => drops.push(reason) });
  return { r, drops };
}

describe("flagged ring", () => {
  it("keeps the newest answers of each route up to its cap and reads them newest first", () => {
    const { r, drops } = ring(3, 1 << 20);
    for (let i = 0; i < 5; i++) r.add(answer("/a", i));
    r.add(answer("/b", 100));
    expect(r.read({ route: "/a" }).map((a) => a.traceId.slice(-1))).toEqual(["4", "3", "2"]);
    expect(r.read().map((a) => a.route)).toEqual(["/b", "/a", "/a", "/a"]);
    expect(drops).toEqual(["route_full", "route_full"]);
    expect(r.size().answers).toBe(4);
  });

  it("ignores grounded answers", () => {
    const { r } = ring(3, 1 << 20);
    r.add(answer("/a", 1, { verdict: "grounded" }));
    expect(r.read()).toEqual([]);
  });

  it("keeps nothing, and counts nothing, when its cap or budget is 0", () => {
    for (const [perRoute, maxBytes] of [[0, 1 << 20], [10, 0]] as const) {
      const { r, drops } = ring(perRoute, maxBytes);
      r.add(answer("/a", 1));
      expect(r.read()).toEqual([]);
      expect(drops).toEqual([]);
    }
  });

  it("lets the oldest answers of any route go past its byte budget, and counts them", () => {
    const { r, drops } = ring(1000, 4096);
    for (let i = 0; i < 200; i++) r.add(answer(i % 2 ? "/a" : "/b", i));
    expect(r.size().bytes).toBeLessThanOrEqual(4096);
    const kept = r.read({ limit: FLAGGED_MAX_LIMIT });
    expect(kept[0]?.traceId).toBe((199).toString(16).padStart(32, "0"));
    expect(kept.length).toBe(r.size().answers);
    expect(drops.filter((d) => d === "bytes")).toHaveLength(200 - kept.length);
  });

  it("cuts the last claims of an answer too big for its share, and counts it", () => {
    const { r, drops } = ring(10, 16 * 1024);
    const claims = Array.from({ length: 100 }, (_, i) => ({ verdict: "unsupported" as const, start: i, end: i + 1, evidence: null, text: "x".repeat(50) }));
    r.add(answer("/a", 1, { claims }));
    const [kept] = r.read();
    expect(kept?.claims.length).toBeGreaterThan(0);
    expect(kept?.claims.length).toBeLessThan(100);
    expect(drops).toEqual(["cut"]);
  });

  it("filters by cause, since and limit, and caps the limit", () => {
    const { r } = ring(5000, 64 << 20);
    for (let i = 0; i < 1500; i++) r.add(answer("/a", i, i % 3 === 0 ? { cause: "retrieval" } : {}));
    expect(r.read({ limit: 5000 })).toHaveLength(FLAGGED_MAX_LIMIT);
    expect(r.read({ cause: "retrieval", limit: 2000 })).toHaveLength(500);
    const since = Date.UTC(2026, 0, 1) + 1490;
    expect(r.read({ since }).map((a) => a.time)).toEqual(Array.from({ length: 10 }, (_, i) => new Date(since + 9 - i).toISOString()));
    expect(r.read({ route: "/elsewhere" })).toEqual([]);
  });

  // Inserts: sizes that keep one measurement to about a second of CPU (on a busy machine this process
  // gets a fraction of a core, and the test's timeout is wall-clock time). Reads: both rings far larger
  // than the CPU's caches, where each held answer costs a memory access; a ring of 2,000 is read from
  // the caches about 4× faster per answer than one of 16,000.
  it("inserts in amortised constant time and reads linearly", () => {
    expectLinear("flagged ring insert", measureGrowth((n) => n, (n) => {
      const { r } = ring(50, 64 * 1024);
      for (let i = 0; i < n; i++) r.add(answer(`/r${i % 7}`, i));
    }, { n: 250, maxN: 250 }));
    expectLinear("flagged ring read", measureGrowth((n) => {
      const { r } = ring(n, 1 << 30);
      for (let i = 0; i < n; i++) r.add(answer("/a", i));
      return r;
    }, (r) => r.read({ cause: "none", limit: FLAGGED_MAX_LIMIT }), { n: 16_000, maxN: 16_000 }));
  });
});

describe("flaggedAnswerOf", () => {
  const summary: EvaluationSummary = {
    verdict: "ungrounded",
    score: 0.2,
    threshold: 0.5,
    reason: null,
    claims: { supported: 0, contradicted: 1, unsupported: 0, misattributed: 0 },
    skipped: 0,
    backend: { name: "offline", version: "1", tier: "triage" },
    limits: [],
    flaggedClaims: [{ verdict: "contradicted", start: 0, end: 20, evidence: { doc: 0, start: 5, end: 30 } }],
    content: { claims: ["Returns take 90 days."], evidence: ["Returns take 30 days."] },
  };
  const at = { route: "/a", traceId: "t", spanId: "s" };

  it("carries offsets and no text without a capture", () => {
    expect(flaggedAnswerOf(summary, at)?.claims).toEqual([{ verdict: "contradicted", start: 0, end: 20, evidence: { doc: 0, start: 5, end: 30 } }]);
  });

  it("carries the text through the capture given", () => {
    expect(flaggedAnswerOf(summary, at, (t) => t.replace(/\d+/g, "#"))?.claims[0]).toMatchObject({ text: "Returns take # days.", evidenceText: "Returns take # days." });
  });

  it("gives nothing for a grounded answer", () => {
    expect(flaggedAnswerOf({ ...summary, verdict: "grounded" }, at)).toBeUndefined();
  });
});
