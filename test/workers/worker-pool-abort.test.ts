/** A job given up by its caller's signal (WorkerPool.run's RunOptions.signal): what guard mode's budget relies on. */
import { describe, expect, it, onTestFinished } from "vitest";
import type { WorkerPool, WorkerPoolOptions } from "../../src/workers/worker-pool.ts";
import { PoolError, createWorkerPool } from "../../src/workers/worker-pool.ts";
import { waitUntil } from "../helpers/wait.ts";

const ENTRY = new URL("../fixtures/workers/chaos-worker.js", import.meta.url);

type Job = { kind: "echo" | "cancellable" | "cancels"; value?: number } | { kind: "slow"; ms: number; value: number };
type Reply = { value: number; thread: number };

async function poolOf(options: WorkerPoolOptions): Promise<WorkerPool<Job, Reply>> {
  const pool = await createWorkerPool<Job, Reply>(ENTRY, {}, options);
  onTestFinished(() => pool.close());
  return pool;
}

const failureOf = (error: unknown): string | undefined => (error instanceof PoolError ? error.failure : undefined);

describe("worker pool: a job aborted by its caller", () => {
  it("rejects as aborted at once and is given up on its worker, which stays and takes the next job", async () => {
    const restarts: string[] = [];
    const pool = await poolOf({ size: 1, onRestart: (cause) => restarts.push(cause) });
    const controller = new AbortController();
    const job = pool.run({ kind: "cancellable" }, { signal: controller.signal }).catch((e: unknown) => e);
    controller.abort();
    expect(failureOf(await job)).toBe("aborted");
    // The worker was told: it gave the job up (its count of cancels says so), and was not replaced.
    await waitUntil("the worker's cancels", async () => (await pool.run({ kind: "cancels" })).value, (n) => n === 1, { timeout: 10_000 });
    expect((await pool.run({ kind: "echo", value: 4 })).value).toBe(4);
    expect(restarts).toEqual([]);
    expect(pool.busy).toBe(0);
  });

  it("replaces a worker that does not give an aborted job up within the grace, as for a job past its time limit", async () => {
    const restarts: string[] = [];
    const pool = await poolOf({ size: 1, cancelGraceMs: 50, restartDelayMs: 10, onRestart: (cause) => restarts.push(cause) });
    const controller = new AbortController();
    const job = pool.run({ kind: "slow", ms: 60_000, value: 1 }, { signal: controller.signal }).catch((e: unknown) => e);
    controller.abort();
    expect(failureOf(await job)).toBe("aborted");
    await waitUntil("the replacement", () => ({ restarts: [...restarts], alive: pool.alive, busy: pool.busy }), (s) => s.restarts.length === 1 && s.alive === 1 && s.busy === 0, { timeout: 10_000 });
    expect((await pool.run({ kind: "echo", value: 2 })).value).toBe(2);
  });

  it("rejects a job whose signal has already aborted without sending it", async () => {
    const pool = await poolOf({ size: 1 });
    const refused = await pool.run({ kind: "echo", value: 1 }, { signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(failureOf(refused)).toBe("aborted");
    expect(pool.busy).toBe(0);
  });

  it("changes nothing for a job that answered before its signal aborted", async () => {
    const pool = await poolOf({ size: 1 });
    const controller = new AbortController();
    expect((await pool.run({ kind: "echo", value: 3 }, { signal: controller.signal })).value).toBe(3);
    controller.abort();
    expect((await pool.run({ kind: "echo", value: 5 })).value).toBe(5);
    expect(pool.restarts).toBe(0);
  });
});
