import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import type { WorkerPool, WorkerPoolOptions } from "../../src/workers/worker-pool.ts";
import { PoolError, createWorkerPool } from "../../src/workers/worker-pool.ts";
import { tempDir } from "../helpers/cli.ts";
import { waitForCondition } from "../helpers/wait.ts";

const ENTRY = new URL("../fixtures/workers/chaos-worker.js", import.meta.url);

type Job = { kind: "echo" | "hang" | "exit" | "throw"; value?: number } | { kind: "slow"; ms: number; value: number };
type Reply = { value: number; thread: number };

async function poolOf(options: WorkerPoolOptions, data: unknown = {}): Promise<WorkerPool<Job, Reply>> {
  const pool = await createWorkerPool<Job, Reply>(ENTRY, data, options);
  onTestFinished(() => pool.close());
  return pool;
}

function failureOf(error: unknown): string | undefined {
  return error instanceof PoolError ? error.failure : undefined;
}

describe("worker pool", () => {
  it("sends a job to every live worker with runOnEach, one reply each", async () => {
    const pool = await poolOf({ size: 3 });
    const replies = await pool.runOnEach({ kind: "echo", value: 7 });
    expect(replies.map((r) => r.value)).toEqual([7, 7, 7]);
    expect(new Set(replies.map((r) => r.thread)).size).toBe(3);
  });

  it("replaces a worker that exits, failing only the job it was running", async () => {
    const restarts: string[] = [];
    const pool = await poolOf({ size: 1, restartDelayMs: 10, onRestart: (cause) => restarts.push(cause) });
    const first = await pool.run({ kind: "echo", value: 1 });
    const lost = await pool.run({ kind: "exit" }).catch((e: unknown) => e);
    expect(failureOf(lost)).toBe("worker_crashed");
    expect((lost as Error).message).toMatch(/exited with code 3/);
    await waitForCondition("a live worker", () => pool.alive === 1, { timeout: 10_000, interval: 10 });
    const after = await pool.run({ kind: "echo", value: 2 });
    expect(after.value).toBe(2);
    expect(after.thread).not.toBe(first.thread);
    expect(pool.restarts).toBe(1);
    expect(restarts).toEqual(["crashed"]);
  });

  it("replaces a worker whose job throws an uncaught error", async () => {
    const pool = await poolOf({ size: 1, restartDelayMs: 10 });
    const lost = await pool.run({ kind: "throw" }).catch((e: unknown) => e);
    expect(failureOf(lost)).toBe("worker_crashed");
    expect((lost as Error).message).toMatch(/boom/);
    await waitForCondition("a live worker", () => pool.alive === 1, { timeout: 10_000, interval: 10 });
    expect((await pool.run({ kind: "echo", value: 7 })).value).toBe(7);
  });

  it("says no worker is available while one is being replaced, instead of waiting forever", async () => {
    const pool = await poolOf({ size: 1, restartDelayMs: 60_000 });
    await pool.run({ kind: "exit" }).catch(() => undefined);
    expect(pool.alive).toBe(0);
    const refused = await pool.run({ kind: "echo", value: 1 }).catch((e: unknown) => e);
    expect(failureOf(refused)).toBe("unavailable");
  });

  it("replaces the worker of a job over its time limit that does not give it up, and sends its other jobs again", async () => {
    const restarts: string[] = [];
    const pool = await poolOf({ size: 1, timeoutMs: 300, cancelGraceMs: 50, closeGraceMs: 200, restartDelayMs: 10, onRestart: (cause) => restarts.push(cause) });
    const hung = pool.run({ kind: "hang" }).catch((e: unknown) => e);
    // Queued behind the hung job on the same worker: innocent, so it is resent to the replacement.
    const behind = pool.run({ kind: "echo", value: 5 });
    expect(failureOf(await hung)).toBe("timeout");
    expect((await behind).value).toBe(5);
    expect(restarts).toEqual(["timeout"]);
    expect(pool.alive).toBe(1);
  });

  it("keeps trying to replace a worker with growing delays, and reports why it cannot", async () => {
    const marker = join(tempDir(), "no-start");
    const pool = await poolOf({ size: 1, restartDelayMs: 20, maxRestartDelayMs: 80 }, { startMarker: marker });
    writeFileSync(marker, "");
    await pool.run({ kind: "exit" }).catch(() => undefined);
    await waitForCondition("the replacement's error", () => pool.lastError !== undefined, { timeout: 10_000, interval: 10 });
    expect(pool.alive).toBe(0);
    expect(pool.lastError).toMatch(/told to fail/);
    rmSync(marker);
    expect(existsSync(marker)).toBe(false);
    await waitForCondition("a live worker", () => pool.alive === 1, { timeout: 10_000, interval: 10 });
    expect(pool.lastError).toBeUndefined();
    expect((await pool.run({ kind: "echo", value: 3 })).value).toBe(3);
  });

  it("rejects jobs in flight when closed, as closed", async () => {
    const pool = await poolOf({ size: 1 });
    const pending = pool.run({ kind: "slow", ms: 10_000, value: 1 }).catch((e: unknown) => e);
    await pool.close();
    expect(failureOf(await pending)).toBe("closed");
    expect(failureOf(await pool.run({ kind: "echo", value: 1 }).catch((e: unknown) => e))).toBe("closed");
  });

  it("fails to start with the worker's own error", async () => {
    await expect(createWorkerPool(ENTRY, { failStart: true }, { size: 2 })).rejects.toThrow(/told to fail/);
  });
});
