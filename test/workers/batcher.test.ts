import { describe, expect, it } from "vitest";
import type { DynamicBatcherOptions } from "../../src/workers/batcher.ts";
import { BatcherClosedError, createDynamicBatcher } from "../../src/workers/batcher.ts";

/** An item: a name and its length proxy. */
interface Item {
  readonly name: string;
  readonly length: number;
}

const item = (name: string, length = 10): Item => ({ name, length });

/** A batcher over a fake run (each batch waits for the test) and a fake clock with timers the test fires. */
function harness(options: Partial<DynamicBatcherOptions<Item, string>> = {}) {
  let clock = 0;
  let timers: Array<{ at: number; fn: () => void; id: number }> = [];
  let nextId = 0;
  const runs: Array<{ items: readonly Item[]; resolve: () => void; reject: (e: Error) => void }> = [];
  const batcher = createDynamicBatcher<Item, string>({
    maxBatch: 4,
    waitMs: 5,
    slots: () => 1,
    lengthOf: (i) => i.length,
    keyOf: (i) => i.name,
    now: () => clock,
    setTimer: (fn, ms) => {
      const id = nextId++;
      timers.push({ at: clock + ms, fn, id });
      return id;
    },
    clearTimer: (h) => {
      timers = timers.filter((t) => t.id !== h);
    },
    run: (items) =>
      new Promise((resolve, reject) => {
        runs.push({ items, resolve: () => resolve(items.map((i) => `r:${i.name}`)), reject });
      }),
    ...options,
  });
  return {
    batcher,
    runs,
    /** Moves the clock, firing the timers now due. */
    advance(ms: number): void {
      clock += ms;
      const due = timers.filter((t) => t.at <= clock);
      timers = timers.filter((t) => t.at > clock);
      for (const t of due) t.fn();
    },
    names: (k: number): string[] => (runs[k]?.items ?? []).map((i) => i.name),
  };
}

/** Lets settled promises' handlers run. */
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe("dynamic batcher", () => {
  it("puts the items of concurrent submitters in one batch", async () => {
    const h = harness({ maxBatch: 8 });
    const a = h.batcher.submit([item("a1"), item("a2")]);
    const b = h.batcher.submit([item("b1")]);
    const c = h.batcher.submit([item("c1"), item("c2")]);
    h.advance(5);
    expect(h.runs).toHaveLength(1);
    expect(h.names(0).sort()).toEqual(["a1", "a2", "b1", "c1", "c2"]);
    h.runs[0]?.resolve();
    expect(await a).toEqual(["r:a1", "r:a2"]);
    expect(await b).toEqual(["r:b1"]);
    expect(await c).toEqual(["r:c1", "r:c2"]);
  });

  it("dispatches a lone submitter once the wait bound has passed on the clock, and not before", async () => {
    const h = harness();
    const a = h.batcher.submit([item("a")]);
    h.advance(4);
    expect(h.runs).toHaveLength(0);
    h.advance(1);
    expect(h.runs).toHaveLength(1);
    h.runs[0]?.resolve();
    expect(await a).toEqual(["r:a"]);
  });

  it("dispatches at once with a wait bound of 0", () => {
    const h = harness({ waitMs: 0 });
    void h.batcher.submit([item("a")]);
    expect(h.runs).toHaveLength(1);
  });

  it("dispatches a full batch at once, without waiting", () => {
    const h = harness({ maxBatch: 3 });
    void h.batcher.submit([item("a"), item("b")]);
    expect(h.runs).toHaveLength(0);
    void h.batcher.submit([item("c")]);
    expect(h.runs).toHaveLength(1);
    expect(h.names(0)).toEqual(["a", "b", "c"]);
  });

  it("returns each submitter's results in its own order", async () => {
    // Lengths chosen so that the batch's order differs from the submission order.
    const h = harness({ maxBatch: 8, run: (items) => Promise.resolve([...items].map((i) => `r:${i.name}`)) });
    const a = h.batcher.submit([item("a1", 30), item("a2", 10), item("a3", 20)]);
    const b = h.batcher.submit([item("b1", 25), item("b2", 5)]);
    h.advance(5);
    expect(await a).toEqual(["r:a1", "r:a2", "r:a3"]);
    expect(await b).toEqual(["r:b1", "r:b2"]);
  });

  it("never puts more than maxBatch items in a batch", async () => {
    const h = harness({ maxBatch: 3, slots: () => 4 });
    const a = h.batcher.submit(Array.from({ length: 7 }, (_, i) => item(`a${i}`)));
    expect(h.runs.map((r) => r.items.length)).toEqual([3, 3]);
    h.advance(5);
    expect(h.runs.map((r) => r.items.length)).toEqual([3, 3, 1]);
    for (const r of h.runs) r.resolve();
    expect(await a).toHaveLength(7);
  });

  it("gathers the items nearest in length to the oldest, which is always in the batch", async () => {
    const h = harness({ maxBatch: 3 });
    void h.batcher.submit([item("old", 50)]);
    void h.batcher.submit([item("short", 5), item("near", 48), item("long", 400), item("nearer", 51)]);
    expect(h.runs).toHaveLength(1);
    expect(h.names(0).sort()).toEqual(["near", "nearer", "old"]);
    h.runs[0]?.resolve();
    await tick();
    // The next oldest leads the next batch.
    h.advance(5);
    expect(h.names(1).sort()).toEqual(["long", "short"]);
  });

  it("batches what queued while every slot was busy as soon as one frees", async () => {
    const h = harness({ maxBatch: 8, waitMs: 0 });
    const a = h.batcher.submit([item("a")]);
    const b = h.batcher.submit([item("b")]);
    const c = h.batcher.submit([item("c")]);
    expect(h.runs).toHaveLength(1);
    h.runs[0]?.resolve();
    await a;
    expect(h.runs).toHaveLength(2);
    expect(h.names(1)).toEqual(["b", "c"]);
    h.runs[1]?.resolve();
    expect([await b, await c]).toEqual([["r:b"], ["r:c"]]);
  });

  it("rejects only the submitters of a failing batch, once each, and withdraws their queued items", async () => {
    const h = harness({ maxBatch: 2, slots: () => 2 });
    const a = h.batcher.submit([item("a1", 10), item("a2", 10), item("a3", 500)]);
    const b = h.batcher.submit([item("b1", 500), item("b2", 500)]);
    // Full batches went at once: [a1, a2] and [a3, b1]; b2 waits.
    expect(h.names(0)).toEqual(["a1", "a2"]);
    expect(h.names(1)).toEqual(["a3", "b1"]);
    const c = h.batcher.submit([item("c1", 10)]);
    const aErr = a.catch((e: Error) => e);
    const bErr = b.catch((e: Error) => e);
    h.runs[0]?.reject(new Error("boom"));
    expect(((await aErr) as Error).message).toBe("boom");
    await tick();
    // The freed slot takes what queued meanwhile (full: at once).
    expect(h.runs[2]?.items.map((i) => i.name).sort()).toEqual(["b2", "c1"]);
    // a's other batch answers later: a is not rejected or resolved again, b is untouched.
    h.runs[1]?.resolve();
    h.runs[2]?.resolve();
    expect(await bErr).toEqual(["r:b1", "r:b2"]);
    expect(await c).toEqual(["r:c1"]);
    expect(h.batcher.queued).toBe(0);
  });

  it("withdraws a failed submitter's items that were still queued", async () => {
    const h = harness({ maxBatch: 2 });
    const a = h.batcher.submit([item("a1"), item("a2"), item("a3"), item("a4")]);
    const aErr = a.catch((e: Error) => e);
    h.runs[0]?.reject(new Error("boom"));
    expect(((await aErr) as Error).message).toBe("boom");
    await tick();
    expect(h.batcher.queued).toBe(0);
    expect(h.runs).toHaveLength(1);
  });

  it("runs identical items queued at once once, and answers each", async () => {
    const h = harness({ maxBatch: 8 });
    const a = h.batcher.submit([item("same"), item("x")]);
    const b = h.batcher.submit([item("same")]);
    h.advance(5);
    expect(h.names(0)).toEqual(["same", "x"]);
    h.runs[0]?.resolve();
    expect(await a).toEqual(["r:same", "r:x"]);
    expect(await b).toEqual(["r:same"]);
  });

  it("rejects the queued submitters on close, and later submits", async () => {
    const h = harness();
    const a = h.batcher.submit([item("a")]).catch((e: unknown) => e);
    h.batcher.close();
    expect(await a).toBeInstanceOf(BatcherClosedError);
    await expect(h.batcher.submit([item("b")])).rejects.toBeInstanceOf(BatcherClosedError);
    h.advance(10);
    expect(h.runs).toHaveLength(0);
  });

  it("answers an empty submission at once", async () => {
    const h = harness();
    expect(await h.batcher.submit([])).toEqual([]);
    expect(h.runs).toHaveLength(0);
  });

  it("withdraws an aborted submitter's queued items and rejects it with the signal's reason, leaving the others", async () => {
    const h = harness({ maxBatch: 2 });
    const controller = new AbortController();
    const a = h.batcher.submit([item("a1"), item("a2"), item("a3"), item("a4")], { signal: controller.signal }).catch((e: unknown) => e);
    const b = h.batcher.submit([item("b1")]);
    h.advance(5);
    expect(h.names(0)).toEqual(["a1", "a2"]);
    controller.abort(new Error("over its time limit"));
    expect(((await a) as Error).message).toBe("over its time limit");
    // The batch in flight runs on; a3 and a4 are not run at all.
    h.runs[0]?.resolve();
    await tick();
    expect(h.names(1)).toEqual(["b1"]);
    h.runs[1]?.resolve();
    expect(await b).toEqual(["r:b1"]);
    expect(h.batcher.queued).toBe(0);
  });

  it("refuses a submission whose signal has already aborted, queueing nothing", async () => {
    const h = harness();
    await expect(h.batcher.submit([item("a")], { signal: AbortSignal.abort(new Error("given up")) })).rejects.toThrow("given up");
    expect(h.batcher.queued).toBe(0);
  });

  it("fills batches with the lowest rank's items first, so an observation started earlier is finished first", async () => {
    const h = harness({ maxBatch: 2 });
    // The later observation's item is queued first and is the oldest: the rank still leads.
    const later = h.batcher.submit([item("late1", 50)], { rank: 7 });
    const earlier = h.batcher.submit([item("early1", 10), item("early2", 90), item("early3", 130)], { rank: 3 });
    expect(h.names(0)).toEqual(["early1", "early2"]);
    h.runs[0]?.resolve();
    await tick();
    // Room left by the earlier observation's last item is filled with the others' oldest.
    expect(h.names(1)).toEqual(["early3", "late1"]);
    h.runs[1]?.resolve();
    expect(await earlier).toEqual(["r:early1", "r:early2", "r:early3"]);
    expect(await later).toEqual(["r:late1"]);
    expect(h.runs).toHaveLength(2);
  });

  it("runs an item identical to one of a lower rank's with it, once", async () => {
    const h = harness({ maxBatch: 2 });
    const later = h.batcher.submit([item("shared", 10)], { rank: 7 });
    const earlier = h.batcher.submit([item("shared", 10), item("own", 90)], { rank: 3 });
    expect(h.names(0)).toEqual(["shared", "own"]);
    h.runs[0]?.resolve();
    expect(await earlier).toEqual(["r:shared", "r:own"]);
    expect(await later).toEqual(["r:shared"]);
    expect(h.runs).toHaveLength(1);
  });
});
