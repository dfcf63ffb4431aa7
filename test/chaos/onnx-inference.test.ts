/**
 * Interrupted inference (redteam-4 C1): onnxruntime-node aborts the whole process when the thread that
 * owns a session is torn down inside session.run, and groundwatch used to tear its inference threads
 * down on every scoring timeout, on shutdown() past its deadline, on SIGTERM and at process exit. Here
 * an SDK host and `groundwatch serve` run a real session on a generated graph with the MiniLM-L6 shape
 * (big enough to keep session.run busy) through each of those, and must end as asked: exit code 0, no
 * abort, every observation accounted for.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../helpers/cli.ts";
import { HEAVY, inferenceModelDir, loadObservation, loadTrace } from "../helpers/inference-load.ts";
import type { LoadShape } from "../helpers/inference-load.ts";
import { identityHolds } from "../helpers/monitor.ts";
import type { Exit, GroupProcess } from "../helpers/processes.ts";
import { listeningUrl, spawnGroup } from "../helpers/processes.ts";
import { metric, post, startServe, tally } from "../helpers/serve.ts";
import { BACKGROUND_WORK, waitUntil } from "../helpers/wait.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** What onnxruntime-node prints when a run's thread was torn down under it (then SIGABRT, exit 134). */
const ABORTED = /terminate called|Napi::Error|Aborted/;
/** A few seconds of inference each on the MiniLM shape. */
const MEDIUM: LoadShape = { claims: 30, citations: 3, documents: 40 };
/** Scored in well under a second. */
const SMALL: LoadShape = { claims: 2, citations: 1, documents: 3 };
const LONG = 240_000;

let model = "";
beforeAll(() => {
  model = inferenceModelDir();
}, LONG);

interface HostState {
  readonly stats: { seen: number; notSampled: number; sampled: number; scored: number; pending: number; dropped: Record<string, number>; failed: Record<string, number> };
  readonly health: { ready: boolean; workers: { alive: number; size: number; restarts: number } };
  readonly evaluations: number;
}

interface Host {
  readonly url: string;
  readonly process: GroupProcess;
  state(): Promise<HostState>;
  observe(observations: object[]): Promise<void>;
  until(what: string, check: (s: HostState) => boolean): Promise<HostState>;
}

async function startHost(env: Record<string, string> = {}): Promise<Host> {
  const p = spawnGroup(process.execPath, ["test/chaos/onnx-host.mjs"], { cwd: ROOT, env: { ...process.env, GW_MODEL: model, ...env } });
  const url = await listeningUrl(p, 120_000);
  const state = async (): Promise<HostState> => (await (await fetch(`${url}/state`)).json()) as HostState;
  return {
    url,
    process: p,
    state,
    observe: async (observations) => {
      const res = await fetch(`${url}/answer`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(observations) });
      expect(res.status).toBe(202);
      await res.arrayBuffer();
    },
    until: (what, check) => waitUntil(what, state, check, { ...BACKGROUND_WORK, context: p.output }),
  };
}

/** Observations k0 … k0+n−1 of a shape. */
const observations = (shape: LoadShape, n: number, k0 = 0): object[] => Array.from({ length: n }, (_, i) => loadObservation(k0 + i, shape));

/** The process ended as asked: exit code 0, and nothing in its output says an inference thread was torn down. */
function endedCleanly(exit: Exit, output: string): void {
  expect(output).not.toMatch(ABORTED);
  expect(exit).toMatchObject({ code: 0, signal: null });
}

describe("chaos: interrupted inference never aborts the process", () => {
  it("an SDK host survives scoring timeouts with 8 heavy observations in flight, gives each up without replacing its worker, and scores after them", { timeout: LONG }, async () => {
    const host = await startHost({ GW_TIMEOUT_MS: "1500" });
    await host.observe(observations(HEAVY, 8));
    let s = await host.until("the 8 heavy observations timed out", (x) => (x.stats.failed.timeout ?? 0) + x.stats.scored === 8 && x.stats.pending === 0);
    expect(s.stats.failed.timeout).toBeGreaterThanOrEqual(1);
    // Each was given up on its worker: nothing had to be ended or replaced.
    expect(s.health).toMatchObject({ ready: true, workers: { alive: 1, restarts: 0 } });
    await host.observe(observations(SMALL, 2, 100));
    s = await host.until("the small observations after them scored", (x) => x.stats.scored + (x.stats.failed.timeout ?? 0) === 10 && x.stats.pending === 0);
    expect(s.stats.scored).toBeGreaterThanOrEqual(2);
    expect(identityHolds(s.stats)).toBe(true);
    expect((await fetch(`${host.url}/shutdown?ms=100`, { method: "POST" })).status).toBe(202);
    endedCleanly(await host.process.exited, host.process.output());
  });

  for (const [how, end] of [
    ["shutdown(100)", (h: Host) => fetch(`${h.url}/shutdown?ms=100`, { method: "POST" }).then((r) => r.arrayBuffer())],
    ["SIGTERM (its handler shuts down within 100 ms)", (h: Host) => Promise.resolve(h.process.signal("SIGTERM"))],
    ["process.exit() with no shutdown at all", (h: Host) => fetch(`${h.url}/exit`, { method: "POST" }).then((r) => r.arrayBuffer())],
  ] as const) {
    it(`an SDK host ended by ${how} while a model runs exits 0`, { timeout: LONG }, async () => {
      const host = await startHost();
      await host.observe(observations(MEDIUM, 3));
      // The first is scored: the next one's inference is running now.
      await host.until("the first observation scored", (x) => x.evaluations >= 1);
      await end(host);
      endedCleanly(await host.process.exited, host.process.output());
    });
  }

  it("serve --backend onnx at default settings scores a crafted always-sampled trace of 100 cited claims over 120 documents, then drains on SIGTERM mid-inference and exits 0", { timeout: LONG }, async () => {
    const config = join(tempDir(), "groundwatch.yaml");
    // A short drain, so that SIGTERM ends scoring that is still running.
    writeFileSync(config, "collector:\n  drainMs: 100\n");
    const serve = startServe(["--config", config, "--log-evaluations"], { GROUNDWATCH_BACKEND: "onnx", GROUNDWATCH_MODEL: model });
    const s = await serve.started;
    // Every other setting default: a 5% sample rate, which this trace id passes anyway.
    expect(await post(`${s.url}/v1/traces`, JSON.stringify(loadTrace(1, HEAVY)))).toBe(200);
    const scored = await waitUntil("the crafted trace scored", () => tally(s.url), (t) => t.scored + t.failed >= 1, { ...BACKGROUND_WORK, timeout: 200_000, context: s.output });
    expect(scored.scored).toBe(1);
    // It is the attack's size: hundreds of model calls in one observation.
    expect(metric(scored.text, "groundwatch_entailment_calls_total")).toBeGreaterThan(500);
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    for (const k of [10, 11, 12]) expect(await post(`${s.url}/v1/traces`, JSON.stringify(loadTrace(k, MEDIUM)))).toBe(200);
    await waitUntil("one of the next three scored", () => tally(s.url), (t) => t.scored >= 2, { ...BACKGROUND_WORK, context: s.output });
    s.signal("SIGTERM");
    const exit = await s.exited;
    endedCleanly(exit, s.output());
    expect(s.output()).toMatch(/groundwatch serve: stopped/);
  });

  it("serve --backend onnx with a 2 s budget survives timeouts of 4 heavy observations sent at once, replacing no worker", { timeout: LONG }, async () => {
    const serve = startServe(["--sample-rate", "1"], { GROUNDWATCH_BACKEND: "onnx", GROUNDWATCH_MODEL: model, GROUNDWATCH_TIMEOUT_MS: "2000" });
    const s = await serve.started;
    expect(await post(`${s.url}/v1/observations`, JSON.stringify(observations(HEAVY, 4, 20)))).toBe(202);
    const t = await waitUntil("the heavy observations settled", () => tally(s.url), (x) => x.scored + x.failed === 4, { ...BACKGROUND_WORK, context: s.output });
    expect(metric(t.text, "groundwatch_observations_failed_total", 'groundwatch_reason="timeout"')).toBeGreaterThanOrEqual(1);
    expect(metric(t.text, "groundwatch_workers_restarts_total")).toBe(0);
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
    s.signal("SIGTERM");
    endedCleanly(await s.exited, s.output());
  });
});
