/**
 * GET /v1/flagged over replicas, in process: three real rings behind a fake fan-out (each peer
 * answering as its handler does, its own part of the merged cursor), merged newest first, limited,
 * each answer exactly once across a cursor's pages; a peer's reply validated before it is merged.
 */
import { describe, expect, it } from "vitest";
import { RING_START, decodeFlaggedCursor, encodeFlaggedCursor, localCursor } from "../../src/collector/flagged-cursor.ts";
import { mergeFlaggedPages, parseFlaggedPage } from "../../src/collector/flagged-merge.ts";
import type { MergedFlaggedReply } from "../../src/collector/flagged-merged.ts";
import { mergedFlaggedPage } from "../../src/collector/flagged-merged.ts";
import { parseFlaggedQuery } from "../../src/collector/flagged-route.ts";
import type { FanOutResult, PeerAnswer, PeerFailure } from "../../src/collector/peers.ts";
import type { FlaggedPage, FlaggedPageQuery, FlaggedRing } from "../../src/evaluation/flagged-ring.ts";
import { createFlaggedRing, isFlaggedCursor } from "../../src/evaluation/flagged-ring.ts";
import type { FlaggedAnswer } from "../../src/evaluation/types.ts";

const BASE = Date.UTC(2026, 0, 1);

/** One replica: a ring on a clock the test sets. */
interface Replica {
  readonly name: string;
  readonly ring: FlaggedRing;
  clock: number;
  /** Whether it answers its peers now. */
  up: boolean;
}

function replica(name: string, ringId: number): Replica {
  const r: Replica = { name, clock: BASE, up: true, ring: undefined as unknown as FlaggedRing };
  return Object.assign(r, { ring: createFlaggedRing({ perRoute: 1000, maxBytes: 64 * 1024 * 1024, ringId, now: () => r.clock }) });
}

/** Flags an answer on `r` at `ms` past BASE, its span id naming it. */
function flag(r: Replica, ms: number, id: string, route = "/ask"): void {
  r.clock = BASE + ms;
  r.ring.add({ traceId: id.padStart(32, "0"), spanId: id.padStart(16, "0"), route, verdict: "ungrounded", score: 0.1, claims: [] });
}

/** A peer's page of `query` as its handler gives it: its own part of the cursor. */
const peerPage = (r: Replica, query: URLSearchParams): FlaggedPage => {
  const parsed = parseFlaggedQuery(Object.fromEntries(query));
  if (!parsed.ok) throw new Error(parsed.error);
  const q = parsed.query;
  return r.ring.page(q.after === undefined ? q : { ...q, after: localCursor(q.after, r.name) });
};

/** The fan-out over `peers` (a JSON round trip, as over HTTP; a peer that is down fails with `timeout`). */
function fakePeers(peers: readonly Replica[]) {
  const ask = <T>(r: Replica, query: URLSearchParams, parse: (body: unknown) => T): PeerAnswer<T> | PeerFailure =>
    r.up ? { replica: r.name, peer: `http://${r.name}`, value: parse(JSON.parse(JSON.stringify(peerPage(r, query))) as unknown) } : { peer: `http://${r.name}`, reason: "timeout" };
  const calls: string[] = [];
  return {
    calls,
    fanOut<T>(_path: string, query: URLSearchParams, parse: (body: unknown) => T): Promise<FanOutResult<T>> {
      calls.push(`fanOut ${query.toString()}`);
      const out = peers.map((r) => ask(r, query, parse));
      return Promise.resolve({ local: "self", answered: out.filter((o): o is PeerAnswer<T> => !("reason" in o)), failed: out.filter((o): o is PeerFailure => "reason" in o) });
    },
    ask<T>(peer: string, _path: string, query: URLSearchParams, parse: (body: unknown) => T): Promise<PeerAnswer<T> | PeerFailure> {
      calls.push(`ask ${peer} ${query.get("limit") ?? ""}`);
      const r = peers.find((p) => `http://${p.name}` === peer);
      return Promise.resolve(r ? ask(r, query, parse) : { peer, reason: "unreachable" });
    },
  };
}

/** The deployment's page as the replica `self` answers it. */
function deployment(self: Replica, others: readonly Replica[]) {
  const peers = fakePeers(others);
  return { peers, read: (query: FlaggedPageQuery) => mergedFlaggedPage({ query, self: self.name, page: (q) => self.ring.page(q), peers }) };
}

const ids = (reply: MergedFlaggedReply): string[] => reply.flagged.map((a) => `${a.replica}:${a.spanId.replace(/^0+/, "")}`);

describe("GET /v1/flagged merged over replicas", () => {
  it("merges every replica's answers newest first, ties by replica name, and applies the limit", async () => {
    const [a, b, c] = [replica("a", 1), replica("b", 2), replica("c", 3)];
    flag(a, 10, "a1");
    flag(b, 20, "b1");
    flag(c, 20, "c1");
    flag(a, 30, "a2");
    flag(c, 40, "c2");
    const onB = deployment(b, [a, c]);
    const all = await onB.read({});
    expect(ids(all)).toEqual(["c:c2", "a:a2", "b:b1", "c:c1", "a:a1"]);
    expect(all).toMatchObject({ more: false, missed: 0, partial: false, replicas: { answered: ["b", "a", "c"], failed: [] } });
    const two = await onB.read({ limit: 2 });
    expect(ids(two)).toEqual(["c:c2", "a:a2"]);
    expect(two.more).toBe(true);
    // The same from any replica.
    expect(ids(await deployment(a, [b, c]).read({}))).toEqual(ids(all));
    expect(ids(await deployment(c, [a, b]).read({ route: "/ask" }))).toEqual(ids(all));
  });

  it("reads every answer of every replica exactly once, page by page, with the merged cursor", async () => {
    const [a, b, c] = [replica("a", 11), replica("b", 12), replica("c", 13)];
    const onA = deployment(a, [b, c]);
    const start = await onA.read({});
    expect(start.flagged).toEqual([]);
    expect(isFlaggedCursor(start.cursor)).toBe(true);
    expect([...decodeFlaggedCursor(start.cursor, "a").keys()]).toEqual(["a", "b", "c"]);
    // Bursts on all three, interleaved in time, between reads of 3 at a time.
    const seen: string[] = [];
    let cursor = start.cursor;
    let t = 100;
    const expected: string[] = [];
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 5; i++) {
        for (const r of [a, b, c]) {
          if ((i + round) % 3 === [a, b, c].indexOf(r)) continue;
          const id = `${r.name}${round}${i}`;
          flag(r, (t += 7), id);
          expected.push(`${r.name}:${id}`);
        }
      }
      for (let more = true; more; ) {
        const page = await onA.read({ after: cursor, limit: 3 });
        expect(page.flagged.length).toBeLessThanOrEqual(3);
        expect(page.partial).toBe(false);
        expect(page.missed).toBe(0);
        seen.push(...ids(page));
        cursor = page.cursor;
        more = page.more;
      }
    }
    // Exactly once, oldest first within each read, over all replicas.
    expect(seen).toEqual(expected);
    const done = await onA.read({ after: cursor });
    expect(done.flagged).toEqual([]);
  });

  it("marks a page partial and names the replica that did not answer; once it answers, it reads on from where it was", async () => {
    const [a, b, c] = [replica("a", 21), replica("b", 22), replica("c", 23)];
    const onA = deployment(a, [b, c]);
    const first = await onA.read({});
    flag(a, 10, "a1");
    flag(b, 20, "b1");
    flag(c, 30, "c1");
    c.up = false;
    const partial = await onA.read({ after: first.cursor });
    expect(ids(partial)).toEqual(["a:a1", "b:b1"]);
    expect(partial).toMatchObject({ partial: true, replicas: { answered: ["a", "b"], failed: [{ peer: "http://c", reason: "timeout" }] } });
    expect(decodeFlaggedCursor(partial.cursor, "a").get("c")).toBe(decodeFlaggedCursor(first.cursor, "a").get("c"));
    c.up = true;
    flag(c, 40, "c2");
    const again = await onA.read({ after: partial.cursor });
    expect(ids(again)).toEqual(["c:c1", "c:c2"]);
    expect(again.partial).toBe(false);
  });

  it("asks a replica cut by the limit again for exactly the answers taken of it", async () => {
    const [a, b] = [replica("a", 31), replica("b", 32)];
    const onA = deployment(a, [b]);
    const first = await onA.read({});
    flag(b, 10, "b1");
    flag(a, 20, "a1");
    flag(b, 30, "b2");
    flag(b, 40, "b3");
    onA.peers.calls.length = 0;
    const page = await onA.read({ after: first.cursor, limit: 2 });
    expect(ids(page)).toEqual(["b:b1", "a:a1"]);
    expect(onA.peers.calls).toEqual([expect.stringMatching(/^fanOut /), "ask http://b 1"]);
    expect(page.more).toBe(true);
    const rest = await onA.read({ after: page.cursor, limit: 2 });
    expect(ids(rest)).toEqual(["b:b2", "b:b3"]);
  });

  it("reads a replica the cursor does not name from its start, and a ring's own cursor as the answering replica's", async () => {
    const [a, b] = [replica("a", 41), replica("b", 42)];
    flag(a, 10, "a1");
    flag(b, 20, "b1");
    const onA = deployment(a, [b]);
    const aOnly = encodeFlaggedCursor(new Map([["a", a.ring.page({}).cursor]]));
    expect(ids(await onA.read({ after: aOnly }))).toEqual(["b:b1"]);
    // A cursor of a collector that had no peers yet: it was this replica's.
    expect(ids(await onA.read({ after: a.ring.page({}).cursor }))).toEqual(["b:b1"]);
  });
});

describe("the merged cursor", () => {
  it("round-trips each replica's cursor, in replica order, and has a cursor's form", () => {
    const text = encodeFlaggedCursor(
      new Map([
        ["pod-b", "2.5.5"],
        ["pod-a.x_1", "1.3.3"],
      ]),
      new Map([["pod-c", "3.1.1"]]),
    );
    expect(text).toBe("pod-a.x_1:1.3.3,pod-b:2.5.5,pod-c:3.1.1");
    expect(isFlaggedCursor(text)).toBe(true);
    expect(parseFlaggedQuery({ after: text })).toMatchObject({ ok: true, query: { after: text } });
    expect(decodeFlaggedCursor(text, "me")).toEqual(
      new Map([
        ["pod-a.x_1", "1.3.3"],
        ["pod-b", "2.5.5"],
        ["pod-c", "3.1.1"],
      ]),
    );
    expect(localCursor(text, "pod-b")).toBe("2.5.5");
    expect(localCursor(text, "pod-z")).toBe(RING_START);
    expect(localCursor("7.8.9", "pod-z")).toBe("7.8.9");
  });

  it("names at most 64 replicas; a longer or malformed one is a bad parameter", () => {
    const many = new Map(Array.from({ length: 70 }, (_, i) => [`r${String(i).padStart(2, "0")}`, "1.2.3"]));
    const text = encodeFlaggedCursor(many);
    expect(decodeFlaggedCursor(text, "x").size).toBe(64);
    expect(isFlaggedCursor(text)).toBe(true);
    for (const bad of ["a:1.2", "a:1.2.3,", "a b:1.2.3", ":1.2.3", `${"x".repeat(65)}:1.2.3`, Array.from(many.keys(), (k) => `${k}:1.2.3`).join(",")]) {
      expect(parseFlaggedQuery({ after: bad })).toMatchObject({ ok: false, error: expect.stringContaining("after") });
    }
  });
});

describe("mergeFlaggedPages and parseFlaggedPage", () => {
  const answer = (time: number, spanId: string): FlaggedAnswer => ({ traceId: "t", spanId, time: new Date(BASE + time).toISOString(), route: "/r", verdict: "ungrounded", score: 0.2, claims: [] });
  const page = (flagged: FlaggedAnswer[]): FlaggedPage => ({ flagged, cursor: "1.1.1", more: false, missed: 0 });

  it("keeps each replica's own order (a prefix of each page is taken) even when its clock stepped back", () => {
    const merged = mergeFlaggedPages(
      [
        { replica: "a", page: page([answer(50, "a1"), answer(10, "a2"), answer(40, "a3")]) },
        { replica: "b", page: page([answer(30, "b1"), answer(20, "b2")]) },
      ],
      4,
      "newest",
    );
    expect(merged.flagged.map((a) => a.spanId)).toEqual(["a1", "b1", "b2", "a2"]);
    expect(merged.taken).toEqual(
      new Map([
        ["a", 2],
        ["b", 2],
      ]),
    );
    expect(merged.cut).toBe(true);
  });

  it("refuses a peer's page that is not one: wrong types, too many answers, a merged cursor, a malformed answer", () => {
    const ok = { flagged: [answer(1, "s")], cursor: "1.2.3", more: false, missed: 0 };
    expect(parseFlaggedPage({ ...ok, flagged: [{ ...answer(1, "s"), replica: "forged" }] }, 5).flagged[0]).not.toHaveProperty("replica");
    for (const bad of [
      null,
      [],
      "text",
      { ...ok, flagged: "x" },
      { ...ok, flagged: [answer(1, "a"), answer(2, "b")] },
      { ...ok, cursor: "a:1.2.3" },
      { ...ok, cursor: 5 },
      { ...ok, more: "yes" },
      { ...ok, missed: -1 },
      { ...ok, missed: 1.5 },
      { ...ok, flagged: [{ ...answer(1, "s"), time: "yesterday" }] },
      { ...ok, flagged: [{ ...answer(1, "s"), claims: {} }] },
      { ...ok, flagged: [{ ...answer(1, "s"), spanId: "x".repeat(2000) }] },
      { ...ok, flagged: [{ ...answer(1, "s"), score: "0.1" }] },
      { ...ok, flagged: [null] },
    ]) {
      expect(() => parseFlaggedPage(bad, 1)).toThrow();
    }
  });
});
