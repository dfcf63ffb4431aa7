/**
 * What guard mode adds to an answer's latency: `npm run bench:guard` (docs/benchmarks.md, "Guard mode").
 *
 * Workload (bench/guard-workload.ts, seed 41): RAG answers of 3–6 sentences against 2–3 documents,
 * half grounded, half with one invented figure; no two share a document or a sentence.
 *
 * Per tier (`--tiers offline,onnx`; onnx over the MiniLM-L6-H384-shaped graph, `--variant int8`
 * or `fp32` or both, comma-separated; its random weights' verdicts forced to pass, bench/guard-tiers.ts), one monitor (nothing sampled: guard checks only), after
 * `--warmup` answers (4) not timed:
 *
 * 1. guard() alone: `--answers` answers (200) guarded one after another, `budgetMs` `--budget-ms`
 *    (10,000: high enough that nothing is given up, so the figure is the decision's time); ms from
 *    the call to the decision as the caller sees it, p50/p99, model calls, and the decisions made.
 *
 * 2. Streams: `--stream-answers` answers (12; kinds alternating) streamed by a synthetic source as
 *    token-sized deltas, one every `--token-ms` (20, a typical LLM serving rate), each way of
 *    reading them getting answers of its own from the same seeded distribution: unguarded, and
 *    Monitor.guardStream in buffer, sentence and annotate mode (action block), the ways rotated per
 *    answer, all in one run so their ratios compare. Time to first and to last text as the consumer
 *    sees them, what the guard added to each (against the source's own first and last delta), how
 *    long each released part was held after its last character arrived, retractions, checks an
 *    answer, and what the user was sent (the answer byte for byte; an invented figure or not).
 *
 * `--json` prints the report as one JSON object (`npm run -s bench:guard -- --json`).
 */
import { execFileSync } from "node:child_process";
import { cpus } from "node:os";
import { flag } from "./args.ts";
import type { GuardBenchOptions, GuardBenchReport, Spread } from "./guard-run.ts";
import { runGuardBench } from "./guard-run.ts";
import { ROOT } from "./models.ts";

function gitCommit(): string {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "unknown (not a git checkout)";
  }
}

const f = (ms: number): string => (Number.isNaN(ms) ? "–" : ms < 10 ? ms.toFixed(2) : ms.toFixed(1));

const pp = (x: Spread): string => `${f(x.p50)} / ${f(x.p99)}`;
const count = (d: Record<string, number>): string =>
  Object.entries(d)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");

function printStreams(report: GuardBenchReport, tokenMs: number): void {
  const rows = report.streams;
  console.log("");
  console.log(`Streams, grounded answers (on a tier whose verdicts are forced to pass, every answer): ms from the stream's start, one delta every ${tokenMs} ms; "added" is against the source's own first / last delta`);
  console.log("");
  console.log("| tier | read | streams | deltas | TTFT p50 / p99 | added to TTFT p50 / p99 | last text p50 / p99 | added at the end p50 / p99 | held after arriving p50 / p99 | checks an answer | sent unchanged |");
  console.log("|---|---|---|---|---|---|---|---|---|---|---|");
  for (const r of rows.filter((x) => x.kind !== "invented")) {
    console.log(`| ${r.tier} | ${r.config} | ${r.streams} | ${r.deltasMean.toFixed(0)} | ${pp(r.ttft)} | ${pp(r.ttftAdded)} | ${pp(r.last)} | ${pp(r.lastAdded)} | ${pp(r.hold)} | ${r.checksMean.toFixed(1)} | ${r.unchanged} of ${r.streams} |`);
  }
  console.log("");
  console.log("Streams, answers with one invented figure (tiers whose verdicts are their own):");
  console.log("");
  console.log("| tier | read | streams | TTFT p50 / p99 | last text p50 / p99 | decision and ending | invented figure reached the user | retracted after arriving p50 / p99 | checks an answer |");
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const r of rows.filter((x) => x.kind === "invented")) {
    console.log(`| ${r.tier} | ${r.config} | ${r.streams} | ${pp(r.ttft)} | ${pp(r.last)} | ${count(r.outcomes)} | ${r.leaked} of ${r.streams} | ${r.retract.n > 0 ? pp(r.retract) : "–"} | ${r.checksMean.toFixed(1)} |`);
  }
}

async function main(): Promise<void> {
  const options: GuardBenchOptions = {
    seed: 41,
    answers: Number(flag("answers") ?? 200),
    warmup: Number(flag("warmup") ?? 4),
    budgetMs: Number(flag("budget-ms") ?? 10_000),
    tiers: (flag("tiers") ?? "offline,onnx").split(",").map((t) => t.trim()),
    variants: (flag("variant") ?? "int8").split(",").map((v) => v.trim()),
    streamAnswers: Number(flag("stream-answers") ?? 12),
    tokenMs: Number(flag("token-ms") ?? 20),
  };
  const started = performance.now();
  const machine = `${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), Node ${process.version}`;
  const header = { date: new Date().toISOString(), commit: gitCommit(), machine, options };
  const report = await runGuardBench(options);
  const seconds = Math.round((performance.now() - started) / 1000);
  if (process.argv.includes("--json")) {
    console.log(JSON.stringify({ ...header, ...report, seconds }, null, 2));
    return;
  }
  console.log(`machine: ${machine}, commit ${header.commit}, ${header.date}`);
  console.log(`workload: bench/guard-workload.ts seed ${options.seed}; ${options.answers} answers (half grounded, half with one invented figure) after ${options.warmup} warm-up answers; budgetMs ${options.budgetMs}`);
  for (const [name, t] of Object.entries(report.tiers)) console.log(`tier ${name}: ${t.detail}`);
  console.log("");
  console.log("guard() alone: ms from the call to the decision (the latency guard mode adds to an answer that is not streamed)");
  console.log("");
  console.log("| tier | answers | p50 ms | p99 ms | max ms | grounded p50 / p99 | invented p50 / p99 | model calls an answer | decisions |");
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const r of report.guard) {
    console.log(`| ${r.tier} | ${r.all.n} | ${f(r.all.p50)} | ${f(r.all.p99)} | ${f(r.all.max)} | ${f(r.grounded.p50)} / ${f(r.grounded.p99)} | ${f(r.invented.p50)} / ${f(r.invented.p99)} | ${r.callsMean.toFixed(1)} | ${count(r.decisions)} |`);
  }
  if (report.streams.length > 0) printStreams(report, options.tokenMs);
  console.log("");
  console.log(`ran ${seconds} s`);
}

await main();
