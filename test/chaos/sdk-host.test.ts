import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers/cli.ts";
import { identityHolds } from "../helpers/monitor.ts";
import { closedPort } from "../helpers/net.ts";
import type { Exit } from "../helpers/processes.ts";
import { listeningUrl, spawnGroup } from "../helpers/processes.ts";
import { waitUntil } from "../helpers/wait.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** The stated bound on the host's resident memory through the whole run (baseline ≈ 150–250 MB). */
const RSS_BOUND = 700 * 1024 * 1024;

interface HostState {
  readonly stats: { seen: number; notSampled: number; sampled: number; scored: number; pending: number; dropped: Record<string, number>; failed: Record<string, number> };
  readonly health: { ready: boolean; reason?: string; workers: { alive: number; size: number; restarts: number }; queue: { depth: number; bytes: number } };
  readonly rss: number;
}

interface Host {
  readonly url: string;
  readonly output: () => string;
  readonly exited: Promise<Exit>;
  readonly kill: (signal: NodeJS.Signals) => void;
}

async function startHost(env: Record<string, string>): Promise<Host> {
  const p = spawnGroup(process.execPath, ["--require", "./test/chaos/fault-injector.cjs", "test/chaos/sdk-host.mjs"], {
    cwd: ROOT,
    env: { ...process.env, HF_HOME: "/nonexistent/groundwatch-test-hf-home", OTEL_EXPORTER_OTLP_TIMEOUT: "500", ...env },
  });
  return { url: await listeningUrl(p), output: p.output, exited: p.exited, kill: p.signal };
}

async function send(host: Host, kind: string): Promise<number> {
  const res = await fetch(`${host.url}/answer`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ kind }) });
  await res.arrayBuffer();
  return res.status;
}

async function state(host: Host): Promise<HostState> {
  return (await (await fetch(`${host.url}/state`)).json()) as HostState;
}

/** Waits for the host's state to satisfy `check` (a bounded wait for background work, not a timing assertion). */
async function waitForState(host: Host, check: (s: HostState) => boolean, what: string, timeout = 60_000): Promise<HostState> {
  return waitUntil(what, () => state(host), check, { timeout, context: host.output });
}

describe("chaos: an SDK host under hostile input and faults", () => {
  it("survives throwing getters, huge samples, long tokens, blobs, dead workers, byte floods and a dead OTLP endpoint; keeps scoring and accounts for everything", async () => {
    const dead = await closedPort();
    const marker = join(tempDir(), "block-worker-start");
    const host = await startHost({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${dead}`, GW_CHAOS_BLOCK_START: marker, GW_QUEUE_BYTES: String(8 * 1024 * 1024), GW_TIMEOUT_MS: "10000" });
    let maxRss = 0;
    const track = (s: HostState): HostState => {
      maxRss = Math.max(maxRss, s.rss);
      return s;
    };

    // 1. Hostile shapes: every request is answered; the host never sees an exception.
    for (const kind of ["throwing-getter", "throwing-answer", "proxy", "throwing-getter"]) expect(await send(host, kind)).toBe(200);
    for (const kind of ["huge-samples", "long-token", "base64", "good", "good"]) expect(await send(host, kind)).toBe(200);
    let s = track(await waitForState(host, (x) => x.stats.pending === 0, "hostile inputs settled", 120_000));
    expect(s.stats.failed.invalid_input).toBe(4);
    // The oversized ones are scored within limits (or, at worst, time out and free their worker):
    // either way they settle, and the ordinary answers after them are scored.
    expect(s.stats.scored).toBeGreaterThanOrEqual(2);
    expect(s.stats.scored + (s.stats.failed.timeout ?? 0)).toBe(5);
    expect(identityHolds(s.stats)).toBe(true);

    // 2. Dead workers, and a replacement that cannot start for a while: not ready, and says why.
    writeFileSync(marker, "");
    await fetch(`${host.url}/chaos/kill-workers`, { method: "POST" });
    s = track(await waitForState(host, (x) => !x.health.ready && x.health.workers.restarts >= 1, "workers reported dead"));
    expect(s.health.reason).toMatch(/no scoring worker is running/);
    for (let i = 0; i < 3; i++) expect(await send(host, "good")).toBe(200);
    s = track(await state(host));
    expect(s.stats.pending).toBe(3); // kept queued, not failed, while no worker can score
    rmSync(marker);
    expect(existsSync(marker)).toBe(false);
    s = track(await waitForState(host, (x) => x.health.ready && x.stats.pending === 0, "workers replaced and queue drained"));
    expect(s.stats.scored).toBeGreaterThanOrEqual(5);
    expect(identityHolds(s.stats)).toBe(true);

    // 3. A byte flood: ~1.8 MB observations, far more than the 8 MiB queue budget holds.
    const statuses = await Promise.all(Array.from({ length: 40 }, () => send(host, "flood")));
    expect(statuses.every((x) => x === 200)).toBe(true);
    s = track(await waitForState(host, (x) => x.stats.pending === 0, "flood settled", 120_000));
    expect(s.stats.dropped.queue_bytes ?? 0).toBeGreaterThan(0);
    expect(identityHolds(s.stats)).toBe(true);

    // 4. Still scoring afterwards.
    const before = s.stats.scored;
    expect(await send(host, "good")).toBe(200);
    s = track(await waitForState(host, (x) => x.stats.pending === 0 && x.stats.scored === before + 1, "scoring after the flood"));
    if (process.env.GW_CHAOS_VERBOSE) console.log(JSON.stringify({ maxRss, stats: s.stats, health: s.health }));
    expect(maxRss).toBeLessThan(RSS_BOUND);

    // 5. SIGTERM with the OTLP endpoint down: the host exits cleanly, within its bounded shutdown.
    const signalled = Date.now();
    host.kill("SIGTERM");
    const exit = await host.exited;
    expect(exit.code).toBe(0);
    expect(exit.at - signalled).toBeLessThan(15_000);
    expect(host.output()).toMatch(/monitor shut down in \d+ ms/);
  }, 240_000);
});
