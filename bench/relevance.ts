/**
 * Context-relevance benchmark on every dev set: can the backend's relevance tell a claim's own
 * context from another row's? Each row gives two pairs: (claim, its own context), relevant, and
 * (claim, the context of another row of the same set, chosen by a seeded shuffle, never the same
 * text), swapped. The claim is measured as the query (the dev sets have no question), through
 * core's contextRelevance over the scorer's windows. AUROC of relevant vs swapped per set and over
 * all rows, also among the rows labelled unsupported (a claim the context does not support is
 * still about it: the "generation" failures relevance must not mistake for retrieval ones), with
 * the word-overlap floor beside it.
 *
 *   GROUNDWATCH_DEV_DIR=… taskset -c 0 npx tsx bench/relevance.ts [--limit N] [--set NAME[,NAME…]] [--seed S]
 */
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { swapPartners } from "../src/core/relevance-fit.ts";
import { auroc } from "../src/core/stats.ts";
import { createTextAnalyzer } from "../src/core/text.ts";
import { createOfflineBackend } from "../src/nli/offline/backend.ts";
import { DEFAULT_LIMITS, DEFAULT_SETTINGS } from "../src/config/defaults.ts";
import { loadDevSets } from "../scripts/devsets.ts";
import { claimRelevance, selectedDevSets } from "./dev-relevance.ts";
import { overlapFloor } from "./overlap-floor.ts";
import { flag } from "./args.ts";

async function main(): Promise<void> {
  const seed = Number(flag("seed") ?? 27);
  const analyzer = createTextAnalyzer({ cacheBytes: DEFAULT_LIMITS.cacheBytes / 2 });
  const backend = createOfflineBackend({ analyzer });
  const relevance = claimRelevance(backend, analyzer);
  // Untimed warm-up on altered copies of rows, so no set is timed through a cold start and no
  // analysis or window the timed rows could reuse is cached by it.
  for (const row of [...loadDevSets().values()].flatMap((rows) => rows.slice(0, 40))) await relevance(`${row.claim} (warm-up)`, `${row.context} (warm-up)`);

  const sets = selectedDevSets();
  const table = [
    "| set | rows | swapped pairs | AUROC relevant vs swapped | overlap floor AUROC | AUROC, unsupported rows only (n) | floor, unsupported rows only | mean relevance own / swapped | rows/s |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  const all = { scores: [] as number[], floor: [] as number[], labels: [] as number[], unsupported: { scores: [] as number[], floor: [] as number[], labels: [] as number[] } };
  let totalRows = 0;
  let totalMs = 0;
  for (const [name, rows] of sets) {
    const swapped = swapPartners(
      rows.map((r) => r.context),
      seed,
    ).map((at) => (at === undefined ? undefined : rows[at]?.context));
    const set = { scores: [] as number[], floor: [] as number[], labels: [] as number[], unsupported: { scores: [] as number[], floor: [] as number[], labels: [] as number[] } };
    let pairs = 0;
    let own = 0;
    let other = 0;
    const t0 = performance.now();
    for (const [i, row] of rows.entries()) {
      const ctx = swapped[i];
      if (ctx === undefined) continue;
      const a = await relevance(row.claim, row.context);
      const b = await relevance(row.claim, ctx);
      pairs++;
      own += a;
      other += b;
      const floorA = overlapFloor(row.context, row.claim);
      const floorB = overlapFloor(ctx, row.claim);
      for (const into of row.label === 0 ? [set, set.unsupported] : [set]) {
        into.scores.push(a, b);
        into.floor.push(floorA, floorB);
        into.labels.push(1, 0);
      }
    }
    const ms = performance.now() - t0;
    totalRows += rows.length;
    totalMs += ms;
    for (const [from, into] of [[set, all], [set.unsupported, all.unsupported]] as const) {
      into.scores.push(...from.scores);
      into.floor.push(...from.floor);
      into.labels.push(...from.labels);
    }
    table.push(
      `| ${name} | ${rows.length} | ${pairs} | ${auroc(set.scores, set.labels).toFixed(3)} | ${auroc(set.floor, set.labels).toFixed(3)} | ${auroc(set.unsupported.scores, set.unsupported.labels).toFixed(3)} (${set.unsupported.labels.length / 2}) | ${auroc(set.unsupported.floor, set.unsupported.labels).toFixed(3)} | ${(own / Math.max(1, pairs)).toFixed(3)} / ${(other / Math.max(1, pairs)).toFixed(3)} | ${((rows.length / ms) * 1000).toFixed(0)} |`,
    );
    console.error(`${name}: done`);
  }
  table.push(
    `| all sets | ${totalRows} | ${all.labels.length / 2} | ${auroc(all.scores, all.labels).toFixed(3)} | ${auroc(all.floor, all.labels).toFixed(3)} | ${auroc(all.unsupported.scores, all.unsupported.labels).toFixed(3)} (${all.unsupported.labels.length / 2}) | ${auroc(all.unsupported.floor, all.unsupported.labels).toFixed(3)} | | ${((totalRows / totalMs) * 1000).toFixed(0)} |`,
  );
  console.log(`backend ${backend.name} ${backend.version} (tier ${backend.tier}), relevance of the context to the claim (no question), topK ${DEFAULT_SETTINGS.topK}, token budget ${DEFAULT_SETTINGS.tokenBudget}, seed ${seed}`);
  const allowed = /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? "unknown";
  console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), Node ${process.version}, one thread, CPUs allowed: ${allowed}`);
  console.log("rows/s: rows per second, each row scored twice (own and swapped context)");
  console.log("");
  console.log(table.join("\n"));
  await backend.close();
}

await main();
