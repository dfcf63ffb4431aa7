/**
 * How long an observation at the entailment budget takes on the onnx backend, against the time budget
 * per observation (timeoutMs) — the sizing behind the onnx default of timeoutMs (redteam-4 C1).
 *
 * `npm run bench:inference-budget`. Per graph (GROUNDWATCH_BENCH_GRAPHS, default
 * "deberta:int8,deberta:fp32,minilm:int8,minilm:fp32"; the DeBERTa-v3-xsmall shape is the default
 * model's), one createMonitor (one scoring worker, the onnx backend over the shape's generated graph,
 * every observation sampled, the judgement cache off, timeoutMs high enough that nothing times out):
 *
 * - alone: one answer of 100 claims each citing 5 of 30 documents of 60 sentences (bench/cited-workload.ts
 *   AT_BUDGET: the red team's attack, with documents long enough to pass the 1,000-pair budget, which
 *   cuts it there): ms from observe() to its evaluation, model calls.
 * - at once (GROUNDWATCH_BENCH_AT_ONCE graphs, default "minilm:int8"): 8 such answers observed
 *   together, as the onnx default of 8 observations in flight per worker takes them: when each was
 *   scored, counted from observe() (what a limit timed from sending measures) and from the one scored
 *   before it (what a limit timed from the observation's start measures, with the batches led by the
 *   observation started first).
 *
 * Each is set against the onnx default timeoutMs (resolveMonitorOptions). Run on a checkout before
 * the change by copying this file and bench/cited-workload.ts there: the SDK calls are the same.
 */
import { execFileSync } from "node:child_process";
import { cpus } from "node:os";
import { join } from "node:path";
import { AT_BUDGET, CITED_WORDS, citedObservation } from "./cited-workload.ts";
import { SHAPES, tierModelDir } from "./models.ts";
import { createMonitor } from "../src/sdk/monitor.ts";
import { resolveMonitorOptions } from "../src/sdk/options.ts";

const ROOT = join(import.meta.dirname, "..");
const GRAPHS = (process.env.GROUNDWATCH_BENCH_GRAPHS ?? "deberta:int8,deberta:fp32,minilm:int8,minilm:fp32").split(",").map((g) => g.trim());
const AT_ONCE = new Set((process.env.GROUNDWATCH_BENCH_AT_ONCE ?? "minilm:int8").split(",").map((g) => g.trim()));
const N_AT_ONCE = 8;

function gitCommit(): string {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "unknown (not a git checkout)";
  }
}

interface Scored {
  readonly atMs: number;
  readonly calls: number;
  readonly verdict: string;
}

/** One monitor over a graph; `round(n, base)` observes n heavy observations together and says when each was scored (ms from observe()), in order. */
async function graphMonitor(dir: string, variant: string): Promise<{ round: (n: number, base: number) => Promise<Scored[]>; close: () => Promise<void> }> {
  let t0 = 0;
  let scored: Scored[] = [];
  const monitor = createMonitor({
    env: { HF_HOME: "/nonexistent" },
    sampling: { default: 1 },
    workers: 1,
    timeoutMs: 3_600_000,
    scoring: { backend: "onnx", model: dir, variant, nliCacheBytes: 0 },
    onEvaluation: (e) => {
      const r = e.result as { entailment?: { calls: number }; verdict: string };
      scored.push({ atMs: performance.now() - t0, calls: r.entailment?.calls ?? Number.NaN, verdict: r.verdict });
    },
  });
  await monitor.ready();
  return {
    async round(n, base) {
      scored = [];
      t0 = performance.now();
      for (let k = 0; k < n; k++) monitor.observe({ ...citedObservation(base + k, AT_BUDGET) });
      await monitor.flush();
      if (scored.length !== n) throw new Error(`${scored.length} of ${n} scored (failed: ${JSON.stringify(monitor.stats().failed)})`);
      return [...scored].sort((a, b) => a.atMs - b.atMs);
    },
    close: () => monitor.shutdown(1_000),
  };
}

const s = (ms: number): string => (ms / 1000).toFixed(1);

async function main(): Promise<void> {
  const limit = resolveMonitorOptions({ env: {}, scoring: { backend: "onnx" } }).timeoutMs;
  console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), Node ${process.version}, commit ${gitCommit()}, ${new Date().toISOString()}`);
  console.log(`onnx default timeoutMs: ${limit} ms; workload: ${AT_BUDGET.claims} claims citing ${AT_BUDGET.citations} of ${AT_BUDGET.documents} documents of ${AT_BUDGET.sentences ?? 4} sentences`);
  console.log("");
  console.log("| graph | alone: s to scored | model calls | pairs/s | share of timeoutMs |");
  console.log("|---|---|---|---|---|");
  const atOnce: string[] = [];
  let base = 0;
  for (const graph of GRAPHS) {
    const [name, variant = "fp32"] = graph.split(":");
    const shape = SHAPES.find((x) => x.name.includes(name ?? ""));
    if (!shape) throw new Error(`no shape matches ${graph}`);
    const m = await graphMonitor(tierModelDir(shape, CITED_WORDS), variant);
    // An untimed first observation: the session's first runs are slower (allocation, kernel choice).
    await m.round(1, (base += 1));
    const [alone] = await m.round(1, (base += 1));
    if (!alone) throw new Error("nothing scored");
    console.log(`| ${shape.name} ${variant} | ${s(alone.atMs)} | ${alone.calls} | ${(alone.calls / (alone.atMs / 1000)).toFixed(1)} | ${((100 * alone.atMs) / limit).toFixed(0)}% |`);
    if (AT_ONCE.has(graph)) {
      const all = await m.round(N_AT_ONCE, (base += N_AT_ONCE));
      const fromStart = all.map((x, i) => x.atMs - (i === 0 ? 0 : (all[i - 1] as Scored).atMs));
      atOnce.push(
        `| ${shape.name} ${variant} | ${all.map((x) => s(x.atMs)).join(", ")} | ${fromStart.map((x) => s(x)).join(", ")} | ${all.filter((x) => x.atMs > limit).length} | ${fromStart.filter((x) => x > limit).length} |`,
      );
    }
    await m.close();
  }
  if (atOnce.length > 0) {
    console.log("");
    console.log(`${N_AT_ONCE} observed at once (one worker, ${N_AT_ONCE} in flight):`);
    console.log("");
    console.log("| graph | scored at, s from observe() | s after the one before | over timeoutMs from observe() | over timeoutMs from its start |");
    console.log("|---|---|---|---|---|");
    for (const row of atOnce) console.log(row);
  }
}

await main();
