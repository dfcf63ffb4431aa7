import { describe, expect, it } from "vitest";
import type { FlaggedDropReason, FlaggedQuery, FlaggedRing } from "../../src/evaluation/flagged-ring.ts";
import { FLAGGED_MAX_LIMIT, createFlaggedRing } from "../../src/evaluation/flagged-ring.ts";
import type { FlaggedAnswer } from "../../src/evaluation/types.ts";
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

  it("lets an answer's question and answer text go, before its claims, when they do not fit its share, and counts it", () => {
    const { r, drops } = ring(10, 16 * 1024);
    r.add(answer("/a", 1, { question: "q".repeat(600), answer: "a".repeat(2000) }));
    const [kept] = r.read();
    expect(kept).not.toHaveProperty("question");
    expect(kept).not.toHaveProperty("answer");
    expect(kept?.claims).toHaveLength(1);
    expect(drops).toEqual(["cut"]);
    // One that fits is kept whole.
    r.add(answer("/a", 2, { question: "q?", answer: "a." }));
    expect(r.read()[0]).toMatchObject({ question: "q?", answer: "a." });
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
    // 20,000 against 160,000 answers: both rings' arrays are past V8's large-object size (16,000 put
    // only the larger there, and its fresh pages read as super-linear growth).
    expectLinear("flagged ring read", measureGrowth((n) => {
      const { r } = ring(n, 1 << 30);
      for (let i = 0; i < n; i++) r.add(answer("/a", i));
      return r;
    }, (r) => r.read({ cause: "none", limit: FLAGGED_MAX_LIMIT }), { n: 20_000, maxN: 20_000 }));
  });
});

describe("flagged ring pages", () => {
  const ids = (answers: readonly FlaggedAnswer[]): number[] => answers.map((a) => parseInt(a.traceId, 16));
  /** Reads every page after `cursor`: the answers, the missed count, and where the last page left off. */
  function readOn(r: FlaggedRing, cursor: string, query: FlaggedQuery = {}): { answers: FlaggedAnswer[]; missed: number; cursor: string; pages: number } {
    const answers: FlaggedAnswer[] = [];
    let missed = 0;
    let pages = 0;
    for (let more = true; more; pages++) {
      const page = r.page({ ...query, after: cursor });
      answers.push(...page.flagged);
      missed += page.missed;
      cursor = page.cursor;
      more = page.more;
    }
    return { answers, missed, cursor, pages };
  }

  it("reads on from a cursor, oldest first, page by page: however many arrive between two reads, none is missed", () => {
    const { r } = ring(1000, 64 << 20);
    r.add(answer("/a", 0));
    const start = r.page({ limit: 100 });
    expect(ids(start.flagged)).toEqual([0]);
    expect(start.more).toBe(false);
    for (let i = 1; i <= 451; i++) r.add(answer("/a", i));
    const read = readOn(r, start.cursor, { limit: 100 });
    expect(ids(read.answers)).toEqual(Array.from({ length: 451 }, (_, i) => i + 1));
    expect(read.missed).toBe(0);
    expect(read.pages).toBe(5);
    // Nothing new: an empty page, the same place.
    expect(r.page({ after: read.cursor })).toMatchObject({ flagged: [], more: false, missed: 0 });
    r.add(answer("/a", 452));
    expect(ids(r.page({ after: read.cursor }).flagged)).toEqual([452]);
  });

  it("says how many answers the ring let go after the cursor before they were read, once", () => {
    const { r } = ring(20, 64 << 20);
    const start = r.page();
    for (let i = 1; i <= 45; i++) r.add(answer("/a", i));
    const first = r.page({ after: start.cursor, limit: 10 });
    expect(ids(first.flagged)).toEqual([26, 27, 28, 29, 30, 31, 32, 33, 34, 35]);
    expect(first).toMatchObject({ more: true, missed: 25 });
    const second = r.page({ after: first.cursor, limit: 10 });
    expect(ids(second.flagged)).toEqual([36, 37, 38, 39, 40, 41, 42, 43, 44, 45]);
    expect(second).toMatchObject({ more: false, missed: 0 });
  });

  it("accounts for every answer of the reader's route and cause, read or let go, over routes evicting out of order and the byte budget", () => {
    // A seeded sequence of floods over 3 routes and 2 causes into a small ring; four readers, one per
    // kind of query, each reading every page after every flood.
    const { r, drops } = ring(7, 3000);
    let seed = 42;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const queries: FlaggedQuery[] = [{}, { route: "/b" }, { cause: "retrieval" }, { route: "/c", cause: "generation" }];
    const readers = queries.map((query) => ({ query, cursor: r.page(query).cursor, seen: [] as number[], missed: 0 }));
    const added: Array<{ id: number; route: string; cause: string | undefined }> = [];
    let id = 0;
    for (let round = 0; round < 60; round++) {
      const n = Math.floor(random() * 40);
      for (let i = 0; i < n; i++) {
        const route = ["/a", "/b", "/c"][Math.floor(random() * 3)] ?? "/a";
        const cause = [undefined, "retrieval", "generation"][Math.floor(random() * 3)] as "retrieval" | "generation" | undefined;
        r.add(answer(route, ++id, cause ? { cause } : {}));
        added.push({ id, route, cause });
      }
      for (const reader of readers) {
        const read = readOn(r, reader.cursor, { ...reader.query, limit: 3 });
        reader.seen.push(...ids(read.answers));
        reader.missed += read.missed;
        reader.cursor = read.cursor;
      }
    }
    expect(new Set(drops)).toEqual(new Set(["route_full", "bytes"]));
    for (const reader of readers) {
      const matching = added.filter((a) => (reader.query.route === undefined || a.route === reader.query.route) && (reader.query.cause === undefined || a.cause === reader.query.cause)).map((a) => a.id);
      // Each answer read once, in order, each one the reader's; what was not read was counted as let go.
      expect(reader.seen).toEqual([...reader.seen].sort((x, y) => x - y));
      expect(new Set(reader.seen).size).toBe(reader.seen.length);
      expect(reader.seen.every((n) => matching.includes(n))).toBe(true);
      expect(reader.seen.length + reader.missed, JSON.stringify(reader.query)).toBe(matching.length);
      expect(reader.missed).toBeGreaterThan(0);
    }
  });

  it("says when more answers are kept than a page without a cursor holds", () => {
    const { r } = ring(100, 64 << 20);
    for (let i = 1; i <= 12; i++) r.add(answer("/a", i));
    expect(r.page({ limit: 12 }).more).toBe(false);
    const page = r.page({ limit: 10 });
    expect(ids(page.flagged)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3]);
    expect(page.more).toBe(true);
  });

  it("reads a cursor of another ring (a restarted collector), or none of its form, from its start", () => {
    let t = 0;
    const before = createFlaggedRing({ perRoute: 5, maxBytes: 1 << 20, now: () => t++, ringId: 1 });
    before.add(answer("/a", 1));
    const old = before.page().cursor;
    const after = createFlaggedRing({ perRoute: 5, maxBytes: 1 << 20, now: () => t++, ringId: 2 });
    for (let i = 1; i <= 8; i++) after.add(answer("/a", 100 + i));
    for (const cursor of [old, "not a cursor", "2.999.999"]) {
      const page = after.page({ after: cursor });
      expect(ids(page.flagged)).toEqual([104, 105, 106, 107, 108]);
      expect(page.missed).toBe(3);
    }
  });

  it("reads on in time linear in what the ring holds", () => {
    expectLinear("flagged ring page", measureGrowth((n) => {
      const { r } = ring(n, 1 << 30);
      const start = r.page();
      for (let i = 0; i < n; i++) r.add(answer("/a", i, i % 2 ? { cause: "retrieval" } : {}));
      return { r, start };
    }, ({ r, start }) => r.page({ after: start.cursor, cause: "generation", limit: FLAGGED_MAX_LIMIT }), { n: 2000, maxN: 32_000 }));
  });
});
