import { describe, expect, it, onTestFinished, vi } from "vitest";
import type { WorkerPool, WorkerPoolOptions } from "../../src/workers/worker-pool.ts";
import { PoolError, createWorkerPool } from "../../src/workers/worker-pool.ts";

const ENTRY = new URL("../fixtures/workers/gated-worker-entry.js", import.meta.url);

type Job = { kind: "native"; ms: number } | { kind: "cooperative" } | { kind: "ignore" } | { kind: "echo"; value: number };

/** A pool of gated workers (test/fixtures/workers/gated-worker.ts) and the shared cells they count native calls in: [started, completed]. */
async function gatedPool(options: WorkerPoolOptions): Promise<{ pool: WorkerPool<Job, number>; counts: Int32Array }> {
  const counts = new Int32Array(new SharedArrayBuffer(8));
  const pool = await createWorkerPool<Job, number>(ENTRY, { counts }, options);
  onTestFinished(() => pool.close());
  return { pool, counts };
}

async function until(check: () => boolean, ms = 15_000): Promise<void> {
  await vi.waitFor(
    () => {
      if (!check()) throw new Error("condition not reached in time");
    },
    { timeout: ms, interval: 10 },
  );
}

const failureOf = (error: unknown): string | undefined => (error instanceof PoolError ? error.failure : undefined);

describe("worker pool: time limits and native calls", () => {
  it("cancels a job past its time limit on its worker, which gives it up and stays in rotation", async () => {
    const restarts: string[] = [];
    const { pool } = await gatedPool({ size: 1, timeoutMs: 100, cancelGraceMs: 60_000, onRestart: (cause) => restarts.push(cause) });
    const lost = await pool.run({ kind: "cooperative" }).catch((e: unknown) => e);
    expect(failureOf(lost)).toBe("timeout");
    // The worker answered the cancellation: nothing of the job is left on it.
    await until(() => pool.busy === 0);
    expect(await pool.run({ kind: "echo", value: 4 })).toBe(4);
    expect(restarts).toEqual([]);
    expect(pool.restarts).toBe(0);
  });

  it("never ends a worker inside a native call: one that does not give up a job is replaced once its call has finished", async () => {
    const restarts: string[] = [];
    const { pool, counts } = await gatedPool({ size: 1, timeoutMs: 100, cancelGraceMs: 20, restartDelayMs: 10, onRestart: (cause) => restarts.push(cause) });
    const lost = await pool.run({ kind: "native", ms: 1_500 }).catch((e: unknown) => e);
    expect(failureOf(lost)).toBe("timeout");
    await until(() => restarts.length === 1);
    expect(restarts).toEqual(["timeout"]);
    // Taken out of rotation and replaced, but not ended while the call ran: it completed on the old thread.
    await until(() => Atomics.load(counts, 1) === 1);
    expect(Atomics.load(counts, 0)).toBe(1);
    await until(() => pool.alive === 1);
    expect(await pool.run({ kind: "echo", value: 9 })).toBe(9);
  });

  it("closes only once the native calls in flight have finished", async () => {
    const { pool, counts } = await gatedPool({ size: 2 });
    const jobs = [pool.run({ kind: "native", ms: 600 }).catch((e: unknown) => e), pool.run({ kind: "native", ms: 600 }).catch((e: unknown) => e)];
    await until(() => Atomics.load(counts, 0) === 2);
    await pool.close();
    expect(Atomics.load(counts, 1)).toBe(2);
    expect((await Promise.all(jobs)).map(failureOf)).toEqual(["closed", "closed"]);
  });

  it("closes a worker whose job never ends, after its grace, and still not inside a native call", async () => {
    const { pool, counts } = await gatedPool({ size: 1, closeGraceMs: 50 });
    const stuck = pool.run({ kind: "ignore" }).catch((e: unknown) => e);
    const native = pool.run({ kind: "native", ms: 800 }).catch((e: unknown) => e);
    await until(() => Atomics.load(counts, 0) === 1);
    await pool.close();
    expect(Atomics.load(counts, 1)).toBe(1);
    expect([failureOf(await stuck), failureOf(await native)]).toEqual(["closed", "closed"]);
  });

  it("does not let a native call that never returns hold up close(): its worker is left running, not ended inside it", async () => {
    const { pool, counts } = await gatedPool({ size: 1, closeGraceMs: 50, nativeWaitMs: 100 });
    const native = pool.run({ kind: "native", ms: 60_000 }).catch((e: unknown) => e);
    await until(() => Atomics.load(counts, 0) === 1);
    await pool.close();
    expect(failureOf(await native)).toBe("closed");
    // Still inside the call: the thread was not ended under it.
    expect(Atomics.load(counts, 1)).toBe(0);
  });

  it("runs a job's time limit from when the jobs sent before it to its worker have ended", async () => {
    const { pool } = await gatedPool({ size: 1, timeoutMs: 1_000, cancelGraceMs: 600_000 });
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const ended: Record<string, string> = {};
      const first = pool.run({ kind: "cooperative" }).catch((e: unknown) => (ended.first = failureOf(e) ?? "?"));
      const second = pool.run({ kind: "cooperative" }).catch((e: unknown) => (ended.second = failureOf(e) ?? "?"));
      await vi.advanceTimersByTimeAsync(1_000);
      expect(ended).toEqual({ first: "timeout" });
      // The second job's limit started when the first was given up, not when it was sent.
      await vi.advanceTimersByTimeAsync(999);
      expect(ended).toEqual({ first: "timeout" });
      await vi.advanceTimersByTimeAsync(1);
      expect(ended).toEqual({ first: "timeout", second: "timeout" });
      await Promise.all([first, second]);
    } finally {
      vi.useRealTimers();
    }
  });
});
