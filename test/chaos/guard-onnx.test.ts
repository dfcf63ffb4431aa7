/**
 * Guard checks on a real monitor with the onnx backend (a generated graph with the MiniLM-L6 shape,
 * test/helpers/inference-load.ts), in a host process (test/chaos/guard-host.mjs): the monitor-level
 * versions of what test/sdk/job-rank.test.ts (a check's pairs lead the batcher) and
 * test/workers/worker-pool-abort.test.ts (a given-up job is withdrawn on its worker) prove at unit level.
 */
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { HEAVY, inferenceModelDir, loadObservation } from "../helpers/inference-load.ts";
import type { LoadShape } from "../helpers/inference-load.ts";
import type { GroupProcess } from "../helpers/processes.ts";
import { listeningUrl, spawnGroup } from "../helpers/processes.ts";
import { BACKGROUND_WORK, waitUntil } from "../helpers/wait.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** A few seconds of inference each. */
const MEDIUM: LoadShape = { claims: 30, citations: 3, documents: 40 };
/** Scored in well under a second. */
const SMALL: LoadShape = { claims: 2, citations: 1, documents: 3 };
const LONG = 240_000;

let model = "";
beforeAll(() => {
  model = inferenceModelDir();
}, LONG);

interface Decision {
  readonly decision: "pass" | "block" | "correct" | "bypass";
  readonly reason?: string;
  readonly durationMs: number;
}

interface HostState {
  readonly stats: { scored: number; pending: number; guard: { bypass: Record<string, number> } };
  readonly health: { ready: boolean; workers: { alive: number; restarts: number } };
  /** The monitor's completions in the order it made them: "observation" or "guard:<decision>". */
  readonly order: readonly string[];
}

interface Host {
  readonly process: GroupProcess;
  guard(input: object, options: object): Promise<Decision>;
  observe(observations: object[]): Promise<void>;
  state(): Promise<HostState>;
}

async function startHost(): Promise<Host> {
  const scoring = { backend: "onnx", model, nliCacheBytes: 0 };
  const p = spawnGroup(process.execPath, ["test/chaos/guard-host.mjs"], { cwd: ROOT, env: { ...process.env, GW_SCORING: JSON.stringify(scoring), GW_IN_FLIGHT: "8" } });
  const url = await listeningUrl(p, 120_000);
  const post = (path: string, body: unknown): Promise<Response> => fetch(`${url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return {
    process: p,
    guard: async (input, options) => ((await (await post("/guard", { input, options })).json()) as { decision: Decision }).decision,
    observe: async (observations) => {
      const res = await post("/observe", observations);
      expect(res.status).toBe(202);
      await res.arrayBuffer();
    },
    state: async () => (await (await fetch(`${url}/state`)).json()) as HostState,
  };
}

const observations = (shape: LoadShape, n: number, k0: number): object[] => Array.from({ length: n }, (_, i) => loadObservation(k0 + i, shape));

describe("chaos: guard checks on the onnx backend", () => {
  it("a check issued while observations' inference fills the worker finishes before them: the monitor's own completion order", { timeout: LONG }, async () => {
    const host = await startHost();
    const queued = 6;
    await host.observe(observations(MEDIUM, queued, 0));
    const decision = await host.guard(loadObservation(100, SMALL), { budgetMs: 60_000 });
    expect(decision.decision).not.toBe("bypass");
    const s = await waitUntil("every observation scored", host.state, (x) => x.stats.scored === queued && x.stats.pending === 0, { ...BACKGROUND_WORK, context: host.process.output });
    const at = s.order.findIndex((e) => e.startsWith("guard:"));
    // Observations are ranked by start and each takes seconds of inference: without the check's rank
    // it would finish after all of them. At most the one whose last batch was running went first.
    expect(at, s.order.join(", ")).toBeGreaterThanOrEqual(0);
    expect(at, s.order.join(", ")).toBeLessThanOrEqual(1);
    expect(s.order.filter((e) => e === "observation")).toHaveLength(queued);
    host.process.signal("SIGTERM");
    expect(await host.process.exited).toMatchObject({ code: 0, signal: null });
  });

  it("a check past its budget has its inference withdrawn: the next check, ranked after it, is decided within its own budget and no worker is replaced", { timeout: LONG }, async () => {
    const host = await startHost();
    // Three heavy checks (≈ 770 model calls each: tens of seconds of inference apiece on this graph), each given up at 300 ms.
    for (let k = 0; k < 3; k++) expect(await host.guard(loadObservation(200 + k, HEAVY), { budgetMs: 300 })).toMatchObject({ decision: "bypass", reason: "budget_exceeded" });
    // Checks are ranked oldest first: were the heavy checks' pairs still queued, this one's would wait
    // behind all of them, far past its budget. Withdrawn, it is decided in well under a second of inference.
    const next = await host.guard(loadObservation(300, SMALL), { budgetMs: 5_000 });
    expect(next.decision, JSON.stringify(next)).not.toBe("bypass");
    const s = await host.state();
    expect(s.stats.guard.bypass.budget_exceeded).toBe(3);
    expect(s.health).toMatchObject({ ready: true, workers: { alive: 1, restarts: 0 } });
    host.process.signal("SIGTERM");
    expect(await host.process.exited).toMatchObject({ code: 0, signal: null });
  });
});
