/**
 * Quality benchmark of the scoring pipeline on every dev set: AUROC, balanced
 * accuracy at the shipped threshold, rows/s, and the word-overlap floor beside it.
 *
 *   npm run bench:quality [-- --limit N] [-- --set NAME[,NAME…]]
 *
 * The scorer has the shipped caches (analyses and windows, 16 MiB each): contexts that recur
 * across rows are read once, as in a monitor. Before timing it scores altered copies of 40 rows
 * of each set, so the first set is not timed through a cold start (see the warm-up below).
 *
 * Unscorable answers (no checkable claim, …) score 0 here: the pipeline fails closed,
 * so they count as "not grounded"; how many there were is printed per set.
 */
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { createGroundednessScorer } from "../src/core/groundedness.ts";
import { auroc, balancedAccuracy } from "../src/core/stats.ts";
import { createTextAnalyzer } from "../src/core/text.ts";
import { createOfflineBackend } from "../src/nli/offline/backend.ts";
import { DEFAULT_LIMITS, DEFAULT_SETTINGS } from "../src/config/defaults.ts";
import { FIT_ALLOWED, isHeldOut, loadDevSets } from "../scripts/devsets.ts";
import { overlapFloor } from "./overlap-floor.ts";

const TARGET_SETS = ["wice_dev", "anli_r1_dev", "anli_r2_dev", "summedits_news", "summedits_podcast", "summedits_sales_call", "summedits_samsum"];

async function main(): Promise<void> {
  const limitArg = process.argv.indexOf("--limit");
  const limit = limitArg >= 0 ? Number(process.argv[limitArg + 1]) : Infinity;
  const analyzer = createTextAnalyzer({ cacheBytes: DEFAULT_LIMITS.cacheBytes / 2 });
  const backend = createOfflineBackend({ analyzer });
  const threshold = backend.recommendedThreshold ?? DEFAULT_SETTINGS.threshold;
  const scorer = createGroundednessScorer(backend, analyzer, { ...DEFAULT_SETTINGS, threshold, windowCacheBytes: DEFAULT_LIMITS.cacheBytes / 2 });
  // Untimed warm-up, so every set is timed in a running process (JIT compiled, wink-nlp's and
  // the lexicon's lazily built tables filled), not the first one through a cold start. The
  // warm-up texts are altered copies of rows ("(warm-up)" appended to each), so no analysis or
  // window the timed rows could reuse is cached by it.
  for (const row of [...loadDevSets().values()].flatMap((rows) => rows.slice(0, 40))) {
    await scorer.score({ answer: `${row.claim} (warm-up)`, context: `${row.context} (warm-up)` });
  }
  const setArg = process.argv.indexOf("--set");
  const only = setArg >= 0 ? new Set((process.argv[setArg + 1] ?? "").split(",")) : undefined;
  const sets = new Map([...loadDevSets()].filter(([name]) => !only || only.has(name)));
  if (only && sets.size !== only.size) throw new Error(`--set: unknown set in ${[...only].join(",")} (have ${[...loadDevSets().keys()].join(", ")})`);
  const table: string[] = [];
  const aurocs = new Map<string, number>();
  let totalRows = 0;
  let totalMs = 0;
  table.push("| set | rows | fit on | unscorable | AUROC | AUROC on rows never fit | overlap floor AUROC | floor on rows never fit | balanced acc. @ threshold | rows/s |");
  table.push("|---|---|---|---|---|---|---|---|---|---|");
  for (const [name, all] of sets) {
    const rows = all.slice(0, limit);
    const scores: number[] = [];
    let unscorable = 0;
    const t0 = performance.now();
    for (const row of rows) {
      const r = await scorer.score({ answer: row.claim, context: row.context });
      if (r.verdict === "unscorable") unscorable++;
      scores.push(r.score ?? 0);
    }
    const ms = performance.now() - t0;
    totalRows += rows.length;
    totalMs += ms;
    const labels = rows.map((r) => r.label);
    const floor = rows.map((r) => overlapFloor(r.context, r.claim));
    const a = auroc(scores, labels);
    aurocs.set(name, a);
    const unseen = rows.map((r, i) => ({ r, i })).filter(({ r }) => !FIT_ALLOWED.has(name) || isHeldOut(r));
    const unseenAuroc = auroc(unseen.map(({ i }) => scores[i] ?? 0), unseen.map(({ r }) => r.label));
    table.push(
      `| ${name} | ${rows.length} | ${FIT_ALLOWED.has(name) ? "80%" : "no"} | ${unscorable} | ${a.toFixed(3)} | ${unseenAuroc.toFixed(3)} (${unseen.length}) | ${auroc(floor, labels).toFixed(3)} | ${auroc(unseen.map(({ i }) => floor[i] ?? 0), unseen.map(({ r }) => r.label)).toFixed(3)} | ${balancedAccuracy(scores, labels, threshold).toFixed(3)} | ${((rows.length / ms) * 1000).toFixed(0)} |`,
    );
    console.error(`${name}: done`);
  }
  const macro = TARGET_SETS.map((s) => aurocs.get(s) ?? NaN);
  console.log(`backend ${backend.name} ${backend.version} (tier ${backend.tier}), threshold ${threshold.toFixed(3)}, topK ${DEFAULT_SETTINGS.topK}, token budget ${DEFAULT_SETTINGS.tokenBudget}`);
  const allowed = /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? "unknown";
  console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), Node ${process.version}, one thread, CPUs allowed: ${allowed}`);
  console.log("");
  console.log(table.join("\n"));
  console.log("");
  console.log(`macro AUROC over ${TARGET_SETS.join(", ")}: ${(macro.reduce((a, b) => a + b, 0) / macro.length).toFixed(3)}`);
  console.log(`throughput over all sets: ${((totalRows / totalMs) * 1000).toFixed(0)} rows/s`);
  await backend.close();
}

await main();
