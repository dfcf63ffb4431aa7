/**
 * The model tier at production rates: the collector (`groundwatch serve --backend onnx`) and the
 * SDK's scoring workers (createMonitor in-process) on the generated NLI graphs, against the ONNX
 * engine's own rate measured in the same run.
 *
 *   npx tsx scripts/build.ts && npm run bench:model-tier
 *
 * Models: random-weight graphs with the shapes of MiniLM-L6-H384 and of deberta-v3-xsmall's encoder
 * (bench/models.ts; built by scripts/onnx_fixtures.py on first use), fp32 and int8, each in a model
 * directory with three NLI labels, model_max_length 256 and a WordPiece tokenizer whose vocabulary
 * is the workload's words (one token per word and per digit: a little shorter than a real
 * tokenizer's 1.2–1.4 tokens per word). Their judgements are noise: the figures measure cost.
 *
 * Workload (bench/rag-workload.ts, seed 29): a question, 3–5 documents of 3–6 sentences, an answer of
 * 2–4 claims. Every claim is a paraphrase of a document sentence (none verbatim) and names its
 * observation's own product, so no two observations share a (window, claim) pair: every pair the
 * scorer sends is a model call (nothing verbatim, nothing cached), and pairs/s is model work.
 *
 * Per model × variant:
 *  - engine: the pairs the scorer sends for a sample of observations (recorded in-process through
 *    createScorer with a backend that answers neutral), through createOnnxEngine in length-sorted
 *    batches of 32, and of 1, with the collector's intra-op threads (GROUNDWATCH_ONNX_THREADS, else
 *    onnxruntime's default); pairs/s;
 *  - onnx backend: the same pairs through createOnnxBackend (the batcher, one inference worker; no
 *    scorer, no collector), 1 and 16 concurrent callers each sending one observation's pairs at a time:
 *    pairs/s and pairs a session.run (inferenceStats) — batching across observations on its own;
 *  - the scorer's own CPU per observation, besides the model (a backend that answers at once);
 *  - collector: `serve --port 0 --backend onnx --model DIR --variant V --sample-rate 1
 *    --log-evaluations`, one process per cell, driven closed loop by 1, 4 and 16 clients (each keeps
 *    one observation posted and not yet scored; scored = its route's --log-evaluations line, so
 *    latency is post → scored, end to end); observations/s, per core (cores = os.cpus().length),
 *    pairs/s (groundwatch_entailment_calls_total over the window when the build has it, else the
 *    recorded pairs per observation × observations), as a share of the engine's batch-32 rate,
 *    p50/p99 latency, peak RSS (VmHWM of the serve process), and the CPU seconds the serve process
 *    used per second of the window (/proc: cores busy; the load clients run on the same machine). Each cell scores one untimed warm-up
 *    observation first, then runs its loops for about one round (clients × that observation's
 *    latency, at most the window) before the window opens; observations still outstanding when the
 *    window ends are not counted;
 *  - the lone observation: the 1-client collector cell again with GROUNDWATCH_ONNX_BATCH_WAIT_MS=0;
 *    target p99(batching on) ≤ p99(wait 0) + the wait bound;
 *  - SDK: the same workload through createMonitor (dist/) in a child process, latency observe() →
 *    onEvaluation, pairs from its groundwatch.entailment.calls counter, peak RSS of that process.
 *
 * Knobs (env): GROUNDWATCH_BENCH_SECONDS per cell (default 8: the whole run ≈ 10–12 minutes on a
 * 2-core machine), GROUNDWATCH_BENCH_LONE_SECONDS for the two 1-client collector cells the
 * lone-observation target compares (default the same; a p99 wants a few hundred observations),
 * GROUNDWATCH_BENCH_MODELS (comma list, matched against minilm-l6-h384 and
 * deberta-v3-xsmall-encoder), GROUNDWATCH_BENCH_VARIANTS (fp32,int8), GROUNDWATCH_BENCH_CLIENTS
 * (1,4,16); GROUNDWATCH_ONNX_* and the other GROUNDWATCH_* settings reach the collector and the
 * SDK, and GROUNDWATCH_ONNX_THREADS the engine rows too (which batch by 32 and by 1 whatever
 * GROUNDWATCH_ONNX_MAX_BATCH says).
 */
import { execFileSync, fork } from "node:child_process";
import { readFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { cpus } from "node:os";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import type { EntailmentBackend, NliPair, NliResult } from "../src/core/backend.ts";
import { resolveScoreOptions } from "../src/config/score-options.ts";
import { createOnnxBackend } from "../src/nli/onnx/backend.ts";
import { createOnnxEngine } from "../src/nli/onnx/engine.ts";
import { createScorer } from "../src/sdk/create-scorer.ts";
import { closedLoop, clientRoute, completionWaiter, quantile, warmupSeconds } from "./closed-loop.ts";
import type { SdkCell, SdkCellResult } from "./model-tier-sdk.ts";
import { ROOT, SHAPES, tierModelDir } from "./models.ts";
import type { RagObservation } from "./rag-workload.ts";
import { ragObservation, workloadOverlap, workloadWords } from "./rag-workload.ts";
import { metricSum, procStatusMb, startServe, stopServe } from "./serve-process.ts";

function list(name: string, fallback: string[]): string[] {
  const given = (process.env[name] ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  return given.length > 0 ? given : fallback;
}
const SECONDS = Number(process.env.GROUNDWATCH_BENCH_SECONDS ?? 8);
const LONE_SECONDS = Number(process.env.GROUNDWATCH_BENCH_LONE_SECONDS ?? SECONDS);
const MODELS = list("GROUNDWATCH_BENCH_MODELS", SHAPES.map((s) => s.name));
const VARIANTS = list("GROUNDWATCH_BENCH_VARIANTS", ["fp32", "int8"]);
const CLIENTS = list("GROUNDWATCH_BENCH_CLIENTS", ["1", "4", "16"]).map(Number);
const SEED = 29;
/** Observations scored in-process to record the pairs the scorer sends. */
const SAMPLE = 48;
/** An observation not reported scored within this is counted lost. */
const TIMEOUT_MS = 120_000;
const CORES = cpus().length;
const TARGET_SHARE = 0.8;

/** One cell's figures: an SDK cell's (model-tier-sdk.ts), and which cell it is. */
interface Cell extends SdkCellResult {
  readonly model: string;
  readonly variant: string;
  readonly clients: number;
  readonly label: string;
  /** CPU seconds the collector process used per second of the window (cores busy); undefined for the SDK cells. */
  readonly coresBusy?: number;
}

/** CPU seconds (user + system) process `pid` has used, from /proc (clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "").split(" ");
  // After "pid (comm) ": state is field 3, utime 14 and stime 15 (1-based), so indexes 11 and 12 here.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The pairs the scorer sends for `observations`, recorded by a backend that answers neutral. */
async function recordPairs(observations: readonly RagObservation[]): Promise<{ pairs: NliPair[]; groups: NliPair[][] }> {
  const pairs: NliPair[] = [];
  const groups: NliPair[][] = [];
  const recorder: EntailmentBackend = {
    name: "bench-recorder",
    version: "1",
    tier: "production",
    classify(batch: readonly NliPair[]): Promise<NliResult[]> {
      const group = batch.map((p) => ({ premise: p.premise, hypothesis: p.hypothesis }));
      pairs.push(...group);
      groups.push(group);
      return Promise.resolve(batch.map(() => ({ entailment: 0, neutral: 1, contradiction: 0 })));
    },
    close: () => Promise.resolve(),
  };
  const scorer = await createScorer({}, { backend: recorder, env: process.env });
  for (const o of observations) await scorer.score({ context: o.context, answer: o.answer, question: o.question });
  await scorer.close();
  return { pairs, groups };
}

/**
 * The scorer's own CPU per observation, besides the model: claims, windows, verdicts and the lexical
 * relevance the onnx backend uses without a relevance model, with a backend that answers at once
 * (neutral, as the random-weight graphs mostly do). Over observations the recording pass did not see,
 * after it warmed the code up. ms per observation.
 */
async function pipelineMs(observations: readonly RagObservation[]): Promise<number> {
  const instant: EntailmentBackend = {
    name: "bench-instant",
    version: "1",
    tier: "production",
    classify: (batch) => Promise.resolve(batch.map(() => ({ entailment: 0, neutral: 1, contradiction: 0 }))),
    close: () => Promise.resolve(),
  };
  const scorer = await createScorer({}, { backend: instant, env: process.env });
  try {
    const start = performance.now();
    for (const o of observations) await scorer.score({ context: o.context, answer: o.answer, question: o.question });
    return (performance.now() - start) / observations.length;
  } finally {
    await scorer.close();
  }
}

/** Pairs/s of the engine over `pairs`, `maxBatch` at a time (length-sorted within each run of 4 batches), for about `seconds`. */
async function engineRate(dir: string, variant: string, threads: number | undefined, pairs: readonly NliPair[], maxBatch: number, seconds: number): Promise<number> {
  const engine = await createOnnxEngine({ dir, variant, maxBatch, ...(threads ? { threads } : {}) });
  try {
    await engine.classify(pairs.slice(0, maxBatch));
    const chunk = 4 * maxBatch;
    let done = 0;
    let next = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < seconds * 1000 || done === 0) {
      const run = Array.from({ length: chunk }, (_, i) => pairs[(next + i) % pairs.length] as NliPair);
      next = (next + chunk) % pairs.length;
      await engine.classify(run);
      done += run.length;
    }
    return done / ((performance.now() - t0) / 1000);
  } finally {
    await engine.close();
  }
}

/**
 * Pairs/s through the onnx backend itself — the batcher and one inference worker, no scorer, no
 * collector — with `clients` concurrent callers, each sending one observation's pairs at a time (the
 * scorer's groups, as recorded), for about `seconds`; and the pairs a session.run averaged.
 */
async function poolRate(dir: string, variant: string, threads: number | undefined, groups: readonly (readonly NliPair[])[], clients: number, seconds: number): Promise<{ pairsPerS: number; perRun: number }> {
  const backend = await createOnnxBackend({ dir, variant, workers: 1, ...(threads ? { threads } : {}) });
  try {
    await backend.classify(groups.flat().slice(0, 32));
    const s0 = await backend.inferenceStats();
    let done = 0;
    let g = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (performance.now() - t0 < seconds * 1000) {
          const group = groups[g++ % groups.length] ?? [];
          await backend.classify(group);
          done += group.length;
        }
      }),
    );
    const pairsPerS = done / ((performance.now() - t0) / 1000);
    const s1 = await backend.inferenceStats();
    return { pairsPerS, perRun: (s1.pairs - s0.pairs) / Math.max(1, s1.runs - s0.runs) };
  } finally {
    await backend.close();
  }
}

function post(port: number, agent: Agent, body: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, path: "/v1/observations", method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", () => resolve(0));
    req.end(body);
  });
}

async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** One collector cell: a fresh serve process, warmed by one observation and a round of the loops, then `seconds` of closed-loop load. */
async function collectorCell(model: string, dir: string, variant: string, clients: number, seconds: number, base: number, label: string, env: NodeJS.ProcessEnv = {}): Promise<Cell> {
  const serve = await startServe(["--backend", "onnx", "--model", dir, "--variant", variant, "--sample-rate", "1", "--log-evaluations"], env);
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  try {
    const url = `http://127.0.0.1:${serve.port}`;
    await until(async () => (await fetch(`${url}/readyz`)).ok, TIMEOUT_MS, "the collector to be ready");
    const waiter = completionWaiter();
    serve.onLine((line) => {
      const m = /evaluation route=(\S+)/.exec(line);
      if (m?.[1]) waiter.done(m[1]);
    });
    let n = base;
    const one = async (client: number, k: number): Promise<boolean> => {
      const route = clientRoute(client, k);
      const scored = waiter.wait(route, TIMEOUT_MS);
      if ((await post(serve.port, agent, JSON.stringify([{ route, ...ragObservation(SEED, n++) }]))) !== 202) waiter.cancel(route);
      return scored;
    };
    // Warm-up, not timed: one observation through the whole path, then the loops' first round.
    const t0 = performance.now();
    if (!(await one(0, 3))) throw new Error(`${model} ${variant}: the warm-up observation was not scored`);
    const warmupS = warmupSeconds(clients, performance.now() - t0, seconds);
    const scrape = async (): Promise<string> => (await fetch(`${url}/metrics`)).text();
    const pid = serve.child.pid ?? 0;
    const cpu: number[] = [];
    const at = (s: number): Promise<string> =>
      new Promise<string>((resolve) =>
        setTimeout(() => {
          cpu.push(cpuSeconds(pid));
          resolve(scrape());
        }, s * 1000),
      );
    const [before, after] = [at(warmupS), at(warmupS + seconds)];
    const loop = await closedLoop(clients, warmupS, seconds, one);
    const [textBefore, textAfter] = await Promise.all([before, after]);
    const delta = (name: string): number | undefined => {
      const a = metricSum(textAfter, name, true);
      return a === undefined ? undefined : a - metricSum(textBefore, name);
    };
    const peakRssMb = procStatusMb(serve.child.pid ?? 0, "VmHWM");
    return { model, variant, clients, label, completed: loop.completed, lost: loop.lost, p50Ms: quantile(loop.latenciesMs, 0.5), p99Ms: quantile(loop.latenciesMs, 0.99), elapsedS: loop.elapsedS, calls: delta("groundwatch_entailment_calls_total"), saved: delta("groundwatch_entailment_saved_total"), peakRssMb, coresBusy: ((cpu[1] ?? Number.NaN) - (cpu[0] ?? Number.NaN)) / seconds };
  } finally {
    agent.destroy();
    // Killed, not drained: what is still queued is past the window and would only delay the next cell.
    await stopServe(serve.child, "SIGKILL");
  }
}

/** One SDK cell, in a child process (bench/model-tier-sdk.ts). */
function sdkCell(model: string, dir: string, variant: string, clients: number, base: number): Promise<Cell> {
  const cell: SdkCell = { dir, variant, clients, seconds: SECONDS, seed: SEED, base, timeoutMs: TIMEOUT_MS };
  const child = fork(join(import.meta.dirname, "model-tier-sdk.ts"), [], { execArgv: ["--import", "tsx"], env: { ...process.env, BENCH_CELL: JSON.stringify(cell) } });
  // Resolves once the child has reported and exited, so that it does not run into the next cell.
  return new Promise((resolve, reject) => {
    let result: SdkCellResult | undefined;
    child.once("message", (r: SdkCellResult) => (result = r));
    child.once("exit", (code) => (result ? resolve({ model, variant, clients, label: "SDK", ...result }) : reject(new Error(`SDK cell exited ${code} before reporting`))));
  });
}

/** The checkout's short commit, or why there is none. */
function gitCommit(): string {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "unknown (not a git checkout)";
  }
}

const fmt = (x: number, digits = 1): string => (Number.isFinite(x) ? x.toFixed(digits) : "–");

async function main(): Promise<void> {
  const shapes = SHAPES.filter((s) => MODELS.some((m) => s.name.includes(m)));
  if (shapes.length === 0) throw new Error(`GROUNDWATCH_BENCH_MODELS matches none of ${SHAPES.map((s) => s.name).join(", ")}`);
  const resolved = resolveScoreOptions({}, { env: process.env });
  const threads = resolved.onnxThreads;
  // The contract's batching options (issue 29): absent from a build without batching across observations.
  const waitBound = (resolved as { onnxBatchWaitMs?: number }).onnxBatchWaitMs;
  const engineBatch = (resolved as { onnxMaxBatch?: number }).onnxMaxBatch ?? 32;
  const sample = Array.from({ length: SAMPLE }, (_, i) => ragObservation(SEED, i));
  const words = workloadWords(Array.from({ length: 500 }, (_, i) => ragObservation(SEED, i)));
  const { pairs, groups } = await recordPairs(sample);
  const pairsPerObservation = pairs.length / SAMPLE;
  const pipeline = await pipelineMs(Array.from({ length: 4 * SAMPLE }, (_, i) => ragObservation(SEED, SAMPLE + i)));
  const overlap = workloadOverlap(Array.from({ length: 2000 }, (_, i) => ragObservation(SEED, i)));
  const repeatedPairs = pairs.length - new Set(pairs.map((p) => `${p.premise}\u0000${p.hypothesis}`)).size;
  const commit = gitCommit();
  console.log(`machine: ${CORES} cores (os.cpus().length; ${cpus()[0]?.model ?? "unknown"}), Node ${process.version}, onnxruntime-node ${ort.env.versions.common}, commit ${commit}, ${new Date().toISOString()}`);
  console.log(`workload: seed ${SEED}; ${pairsPerObservation.toFixed(2)} pairs per observation (the scorer's, over ${SAMPLE} observations); ${SECONDS} s per cell; intra-op threads ${threads ?? "onnxruntime default"}; batching across observations: ${waitBound === undefined ? "not in this build" : `wait bound ${waitBound} ms, max batch ${engineBatch}`}`);
  console.log(`the scorer without the model (a backend that answers at once; on this thread): ${fmt(pipeline, 2)} ms per observation — CPU each observation needs besides the model's`);
  console.log(`workload check: of 2000 observations, ${overlap.verbatim} claims are a document sentence verbatim and ${overlap.sharedClaims} claims recur in another observation; of the ${pairs.length} pairs recorded, ${repeatedPairs} repeat${overlap.verbatim + overlap.sharedClaims + repeatedPairs > 0 ? " (NOT every pair is a model call: the figures overstate model work)" : ""}`);
  console.log("");
  const engineRows: string[] = [];
  const cells: Cell[] = [];
  const engine = new Map<string, { b1: number; b32: number }>();
  let base = 1_000_000;
  for (const shape of shapes) {
    const dir = tierModelDir(shape, words);
    for (const variant of VARIANTS) {
      const key = `${shape.name} ${variant}`;
      const b32 = await engineRate(dir, variant, threads, pairs, 32, SECONDS);
      const b1 = await engineRate(dir, variant, threads, pairs, 1, SECONDS);
      engine.set(key, { b1, b32 });
      const pool1 = await poolRate(dir, variant, threads, groups, 1, SECONDS);
      const pool16 = await poolRate(dir, variant, threads, groups, 16, SECONDS);
      engineRows.push(`| ${shape.name} | ${variant} | ${fmt(b1)} | ${fmt(b32)} | ${fmt(b32 / b1, 2)}× | ${fmt(pool1.pairsPerS)} (${fmt(pool1.perRun)} a run) | ${fmt(pool16.pairsPerS)} (${fmt(pool16.perRun)} a run): ${fmt((100 * pool16.pairsPerS) / b32, 0)}% of batch 32 |`);
      for (const clients of CLIENTS) {
        const seconds = clients === 1 ? LONE_SECONDS : SECONDS;
        cells.push(await collectorCell(shape.name, dir, variant, clients, seconds, (base += 1_000_000), "collector"));
        if (clients === 1) cells.push(await collectorCell(shape.name, dir, variant, clients, seconds, (base += 1_000_000), "collector, wait 0", { GROUNDWATCH_ONNX_BATCH_WAIT_MS: "0" }));
      }
      for (const clients of CLIENTS) cells.push(await sdkCell(shape.name, dir, variant, clients, (base += 1_000_000)));
    }
  }
  console.log(`engine (createOnnxEngine on this thread, the scorer's pairs for this workload, length-sorted batches), and the onnx backend (createOnnxBackend: the batcher and one inference worker; each caller sends one observation's pairs at a time):`);
  console.log("");
  console.log("| model | variant | batch 1 pairs/s | batch 32 pairs/s | batch 32 ÷ batch 1 | onnx backend, 1 caller, pairs/s | onnx backend, 16 concurrent callers, pairs/s |");
  console.log("|---|---|---|---|---|---|---|");
  for (const r of engineRows) console.log(r);
  console.log("");
  console.log(`end to end, closed loop (each client keeps one observation outstanding; latency from post or observe() to scored; per core: ÷ ${CORES}):`);
  console.log("");
  console.log("| model | variant | path | clients | observations/s | per core | pairs/s | share of engine batch 32 | p50 ms | p99 ms | scored in window | peak RSS MB | calls saved | lost | collector cores busy |");
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
  const pairsPerS = (c: Cell): { value: number; measured: boolean } => (c.calls !== undefined ? { value: c.calls / c.elapsedS, measured: true } : { value: (c.completed * pairsPerObservation) / c.elapsedS, measured: false });
  for (const c of cells) {
    const e = engine.get(`${c.model} ${c.variant}`);
    const p = pairsPerS(c);
    const obs = c.completed / c.elapsedS;
    console.log(`| ${c.model} | ${c.variant} | ${c.label} | ${c.clients} | ${fmt(obs, 2)} | ${fmt(obs / CORES, 2)} | ${p.measured ? "" : "≈"}${fmt(p.value)} | ${e ? `${fmt((100 * p.value) / e.b32, 0)}%` : "–"} | ${fmt(c.p50Ms, 0)} | ${fmt(c.p99Ms, 0)} | ${c.completed} in ${c.elapsedS} s | ${fmt(c.peakRssMb, 0)} | ${c.saved ?? "–"} | ${c.lost} | ${c.coresBusy === undefined ? "–" : fmt(c.coresBusy, 2)} |`);
  }
  if (cells.some((c) => c.calls === undefined)) console.log(`\n≈: this build counts no groundwatch.entailment.calls; pairs/s is observations/s × ${pairsPerObservation.toFixed(2)} (the scorer's pairs per observation).`);
  console.log("");
  for (const shape of shapes) {
    for (const variant of VARIANTS) {
      const pick = (label: string, clients: number): Cell | undefined => cells.find((c) => c.model === shape.name && c.variant === variant && c.label === label && c.clients === clients);
      const on = pick("collector", 1);
      const off = pick("collector, wait 0", 1);
      if (on && off && waitBound === undefined) {
        console.log(`target, lone observation (${shape.name} ${variant}, collector, 1 client): not measurable, this build has no batching across observations (p99 ${fmt(on.p99Ms, 0)} ms and ${fmt(off.p99Ms, 0)} ms are two unbatched runs)`);
      } else if (on && off) {
        const bound = waitBound ?? 0;
        const met = on.p99Ms <= off.p99Ms + bound;
        console.log(`target, lone observation (${shape.name} ${variant}, collector, 1 client): p99 ${fmt(on.p99Ms, 0)} ms with batching (wait bound ${bound} ms; ${on.completed} observations) ≤ p99 ${fmt(off.p99Ms, 0)} ms at wait 0 (${off.completed} observations) + ${bound} ms: ${met ? "met" : "not met"}`);
      }
      const busy = pick("collector", 16);
      const e = engine.get(`${shape.name} ${variant}`);
      if (busy && e) {
        const p = pairsPerS(busy).value;
        console.log(`target, 16 clients (${shape.name} ${variant}, collector): ${fmt(p)} pairs/s ≥ ${TARGET_SHARE * 100}% of the engine's batch-32 ${fmt(e.b32)} pairs/s (${fmt(TARGET_SHARE * e.b32)}): ${p >= TARGET_SHARE * e.b32 ? "met" : "not met"} (${fmt((100 * p) / e.b32, 0)}%)`);
      }
    }
  }
  printSizing(cells, shapes.map((s) => s.name));
}

/** Scored observations a second that docs/deploy.md's model-tier table sizes for (requests/s × sample rate). */
const SIZING_RATES = [1, 5, 20, 100];
/** The CPU utilisation a deployment is sized to (the HPA's target in deploy/kubernetes). */
const SIZING_UTILISATION = 0.7;

/**
 * docs/deploy.md's model-tier table, from this run: the collector's observations/s per core at its
 * busiest (the most clients run), and the cores that many scored observations a second need at 70%
 * utilisation. Per core is observations/s ÷ os.cpus().length: on this machine the load clients and
 * the collector share the cores, so it is a floor for a dedicated one.
 */
function printSizing(cells: readonly Cell[], models: readonly string[]): void {
  const busiest = Math.max(...cells.map((c) => c.clients));
  console.log("");
  console.log(`sizing (collector, ${busiest} clients; cores = scored observations/s ÷ (observations/s per core × ${SIZING_UTILISATION})):`);
  console.log("");
  console.log(`| model | variant | observations/s per core | ${SIZING_RATES.map((r) => `cores for ${r} scored/s`).join(" | ")} |`);
  console.log(`|---|---|---|${SIZING_RATES.map(() => "---").join("|")}|`);
  for (const model of models) {
    for (const c of cells.filter((x) => x.model === model && x.label === "collector" && x.clients === busiest)) {
      const perCore = c.completed / c.elapsedS / CORES;
      console.log(`| ${c.model} | ${c.variant} | ${fmt(perCore, 2)} | ${SIZING_RATES.map((r) => fmt(r / (perCore * SIZING_UTILISATION), 1)).join(" | ")} |`);
    }
  }
}

await main();
