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
import { buildWindows, createWindowCache } from "../src/core/context.ts";
import { contextRelevance } from "../src/core/relevance.ts";
import { auroc } from "../src/core/stats.ts";
import { createTextAnalyzer } from "../src/core/text.ts";
import { createOfflineBackend } from "../src/nli/offline/backend.ts";
import { DEFAULT_LIMITS, DEFAULT_SETTINGS } from "../src/config/defaults.ts";
import type { DevRow } from "../scripts/devsets.ts";
import { loadDevSets } from "../scripts/devsets.ts";
import { overlapFloor } from "./overlap-floor.ts";
import { flag } from "./args.ts";
import { rng } from "./rng.ts";

/**
 * For each row, another row of the set whose context differs (SummEdits and WiCE hold several
 * claims per context): a seeded permutation, each row taking the first row after its own place in
 * it whose context is another text. Undefined when every row of the set shares one context.
 */
function swappedContexts(rows: readonly DevRow[], seed: number): Array<string | undefined> {
  const next = rng(seed);
  const order = rows.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j] ?? 0, order[i] ?? 0];
  }
  const place = new Map(order.map((row, at) => [row, at]));
  return rows.map((row, i) => {
    const at = place.get(i) ?? 0;
    for (let k = 1; k < order.length; k++) {
      const other = rows[order[(at + k) % order.length] ?? 0];
      if (other && other.context !== row.context) return other.context;
    }
    return undefined;
  });
}

async function main(): Promise<void> {
  const limit = Number(flag("limit") ?? Infinity);
  const seed = Number(flag("seed") ?? 27);
  const analyzer = createTextAnalyzer({ cacheBytes: DEFAULT_LIMITS.cacheBytes / 2 });
  const backend = createOfflineBackend({ analyzer });
  const cache = createWindowCache(DEFAULT_LIMITS.cacheBytes / 2);
  const relevance = async (claim: string, context: string): Promise<number> => {
    const windows = buildWindows(context, analyzer, { tokenBudget: DEFAULT_SETTINGS.tokenBudget, cache });
    return (await contextRelevance({ claims: [claim], windows, documents: 1, backend, analyzer, topK: DEFAULT_SETTINGS.topK })).best;
  };
  // Untimed warm-up on altered copies of rows, so no set is timed through a cold start and no
  // analysis or window the timed rows could reuse is cached by it.
  for (const row of [...loadDevSets().values()].flatMap((rows) => rows.slice(0, 40))) await relevance(`${row.claim} (warm-up)`, `${row.context} (warm-up)`);

  const only = flag("set") === undefined ? undefined : new Set((flag("set") ?? "").split(","));
  const sets = new Map([...loadDevSets()].filter(([name]) => !only || only.has(name)));
  if (only && sets.size !== only.size) throw new Error(`--set: unknown set in ${[...only].join(",")} (have ${[...loadDevSets().keys()].join(", ")})`);
  const table = [
    "| set | rows | swapped pairs | AUROC relevant vs swapped | overlap floor AUROC | AUROC, unsupported rows only (n) | floor, unsupported rows only | mean relevance own / swapped | rows/s |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  const all = { scores: [] as number[], floor: [] as number[], labels: [] as number[], unsupported: { scores: [] as number[], floor: [] as number[], labels: [] as number[] } };
  let totalRows = 0;
  let totalMs = 0;
  for (const [name, rowsAll] of sets) {
    const rows = rowsAll.slice(0, limit);
    const swapped = swappedContexts(rows, seed);
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
