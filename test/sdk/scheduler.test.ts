import { ROOT_CONTEXT } from "@opentelemetry/api";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Job, SchedulerOptions, SchedulerStage, StagePort, WorkersState } from "../../src/sdk/scheduler.ts";
import { Scheduler } from "../../src/sdk/scheduler.ts";

function job(route: string, bytes = 10): Job {
  return { route, observation: { answer: "a", context: "c" }, parent: ROOT_CONTEXT, parentSpan: undefined, attributes: undefined, bytes };
}

/** A scheduler on a clock the test moves, whose jobs finish when the test says so. */
function harness(options: Partial<SchedulerOptions> = {}) {
  let clock = 0;
  let state: WorkersState = "open";
  const started: string[] = [];
  const finish = new Map<string, () => void>();
  const scheduler = new Scheduler({
    now: () => clock,
    scoringShare: 1,
    workers: 1,
    queueSize: 10,
    queueBytes: 1000,
    workersState: () => state,
    score: (j) =>
      new Promise<void>((resolve) => {
        started.push(j.route);
        finish.set(j.route, resolve);
      }),
    ...options,
  });
  return {
    scheduler,
    started,
    /** Moves the clock and the fake timers together. */
    advance: async (ms: number) => {
      clock += ms;
      await vi.advanceTimersByTimeAsync(ms);
    },
    /** Ends the job and lets its settlement run. */
    end: async (route: string) => {
      finish.get(route)?.();
      await vi.advanceTimersByTimeAsync(0);
    },
    setState: (s: WorkersState) => (state = s),
  };
}

describe("Scheduler", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("scores at most twice as many jobs as workers at once (share 1), the next as one ends", async () => {
    const h = harness();
    for (const r of ["a", "b", "c"]) expect(h.scheduler.enqueue(job(r))).toBeUndefined();
    h.scheduler.pump();
    expect(h.started).toEqual(["a", "b"]);
    expect(h.scheduler.pending()).toBe(3);
    await h.end("a");
    expect(h.started).toEqual(["a", "b", "c"]);
    const flushed = vi.fn();
    void h.scheduler.flush().then(flushed);
    await h.end("b");
    expect(flushed).not.toHaveBeenCalled();
    await h.end("c");
    expect(flushed).toHaveBeenCalledOnce();
    expect(h.scheduler.bytes()).toBe(0);
  });

  it("scores inFlightPerWorker jobs per worker at once (share 1)", async () => {
    const h = harness({ workers: 2, inFlightPerWorker: 3 });
    for (const r of ["a", "b", "c", "d", "e", "f", "g"]) h.scheduler.enqueue(job(r));
    h.scheduler.pump();
    expect(h.scheduler.slots).toBe(6);
    expect(h.started).toEqual(["a", "b", "c", "d", "e", "f"]);
    await h.end("c");
    expect(h.started).toHaveLength(7);
  });

  it("scores one job per worker at a time with a scoring share below 1, whatever inFlightPerWorker says", () => {
    const h = harness({ workers: 2, inFlightPerWorker: 8, scoringShare: 0.5 });
    for (const r of ["a", "b", "c"]) h.scheduler.enqueue(job(r));
    h.scheduler.pump();
    expect(h.started).toEqual(["a", "b"]);
  });

  it("with a scoring share below 1, idles after each job in proportion to its duration, on the injected clock", async () => {
    const h = harness({ scoringShare: 0.25 });
    h.scheduler.enqueue(job("a"));
    h.scheduler.enqueue(job("b"));
    h.scheduler.pump();
    expect(h.started).toEqual(["a"]);
    await h.advance(100);
    await h.end("a");
    // 100 ms of scoring at a quarter share: 300 ms idle before the next job.
    await h.advance(299);
    expect(h.started).toEqual(["a"]);
    await h.advance(1);
    expect(h.started).toEqual(["a", "b"]);
  });

  it("refuses a job over the queue's size or byte budget, naming which, and releases bytes as jobs settle", async () => {
    const h = harness({ queueSize: 2, queueBytes: 100 });
    h.setState("starting");
    expect(h.scheduler.enqueue(job("a", 60))).toBeUndefined();
    expect(h.scheduler.enqueue(job("b", 60))).toBe("queue_bytes");
    expect(h.scheduler.enqueue(job("c", 40))).toBeUndefined();
    expect(h.scheduler.enqueue(job("d", 1))).toBe("queue_full");
    expect(h.scheduler.hasRoom(0, 0)).toBe(true);
    expect(h.scheduler.hasRoom(1, 0)).toBe(false);
    expect(h.scheduler.bytes()).toBe(100);
    // Starting workers hold every job.
    h.scheduler.pump();
    expect(h.started).toEqual([]);
    h.setState("open");
    h.scheduler.pump();
    await h.end("a");
    await h.end("c");
    expect(h.scheduler.bytes()).toBe(0);
    expect(h.scheduler.hasRoom(2, 100)).toBe(true);
  });

  it("drain waits up to its deadline, then gives up the jobs not started and their bytes", async () => {
    const h = harness({ workers: 1, scoringShare: 0.5 });
    for (const r of ["a", "b", "c"]) h.scheduler.enqueue(job(r));
    h.scheduler.pump();
    expect(h.started).toEqual(["a"]);
    const left = h.scheduler.drain(1000);
    await h.advance(1000);
    expect((await left).map((j) => j.route)).toEqual(["b", "c"]);
    expect(h.scheduler.bytes()).toBe(10);
    await h.end("a");
    await h.scheduler.settled();
    expect(h.scheduler.pending()).toBe(0);
    expect(h.scheduler.bytes()).toBe(0);
  });

  it("drain with an unbounded deadline (Infinity) waits for every job instead of giving them up at once", async () => {
    const h = harness({ workers: 1, scoringShare: 0.5 });
    for (const r of ["a", "b"]) h.scheduler.enqueue(job(r));
    h.scheduler.pump();
    expect(h.started).toEqual(["a"]);
    let left: Job[] | undefined;
    void h.scheduler.drain(Number.POSITIVE_INFINITY).then((l) => (left = l));
    await h.advance(60_000);
    expect(left).toBeUndefined();
    await h.end("a");
    expect(left).toBeUndefined();
    await h.advance(60_000);
    expect(h.started).toEqual(["a", "b"]);
    await h.end("b");
    expect(left).toEqual([]);
  });

  it("owns its stage: the stage takes the head it wants and hands it back through the port attach() gave it, scored before the queue", async () => {
    const h = harness({ workers: 1, inFlightPerWorker: 1 });
    let port: StagePort | undefined;
    const held: Job[] = [];
    const stage: SchedulerStage = {
      attach: (p) => (port = p),
      pending: () => held.length,
      advance: (queue) => {
        if (queue.head()?.route === "picked") held.push(queue.takeHead() as Job);
      },
      holds: () => false,
      takeAll: () => held.splice(0),
    };
    h.scheduler.attach(stage);
    for (const r of ["picked", "a", "b"]) h.scheduler.enqueue(job(r));
    h.scheduler.pump();
    expect(h.started).toEqual(["a"]);
    expect(h.scheduler.pending()).toBe(3);
    expect(port?.reserve(5)).toBe(true);
    expect(h.scheduler.bytes()).toBe(35);
    port?.returnJob(held.shift() as Job);
    port?.pump();
    await h.end("a");
    expect(h.started).toEqual(["a", "picked"]);
  });
});
