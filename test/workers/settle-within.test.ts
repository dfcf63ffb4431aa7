import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { settleWithin } from "../../src/workers/settle-within.ts";

/** A promise the test settles, and whether a wait on it has resolved yet. */
function deferred() {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

function watch(p: Promise<void>) {
  const state = { done: false };
  void p.then(() => (state.done = true));
  return state;
}

describe("settleWithin", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("resolves when the work settles, before the deadline", async () => {
    const work = deferred();
    const wait = watch(settleWithin(work.promise, 1000));
    await vi.advanceTimersByTimeAsync(10);
    expect(wait.done).toBe(false);
    work.resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect(wait.done).toBe(true);
  });

  it("resolves, never rejects, when the work fails", async () => {
    const work = deferred();
    const wait = settleWithin(work.promise, 1000);
    work.reject(new Error("boom"));
    await expect(wait).resolves.toBeUndefined();
  });

  it("resolves at the deadline when the work has not settled", async () => {
    const wait = watch(settleWithin(deferred().promise, 1000));
    await vi.advanceTimersByTimeAsync(999);
    expect(wait.done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(wait.done).toBe(true);
  });

  it("waits no time for a negative or NaN deadline", async () => {
    for (const ms of [-5, Number.NaN, 0]) {
      const wait = watch(settleWithin(deferred().promise, ms));
      await vi.advanceTimersByTimeAsync(0);
      expect(wait.done).toBe(true);
    }
  });

  it("waits for the work when the deadline is longer than a timer holds (Infinity included)", async () => {
    for (const ms of [Number.POSITIVE_INFINITY, 2 ** 31]) {
      const work = deferred();
      const wait = watch(settleWithin(work.promise, ms));
      await vi.advanceTimersByTimeAsync(60_000);
      expect(wait.done).toBe(false);
      work.resolve();
      await vi.advanceTimersByTimeAsync(0);
      expect(wait.done).toBe(true);
    }
  });
});
