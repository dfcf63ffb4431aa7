/**
 * What measuring relevance and cause costs the offline pipeline: every dev row scored once by a
 * scorer with relevance on (the default) and once by one with it off (`relevance: false`), each
 * with caches of its own, the two interleaved row by row (the order alternating) so that both see
 * the same machine. HaluEval QA rows carry their question (context and answer relevance against
 * it); the others have none (relevance of the documents to the failing claims only). A warm-up
 * on altered copies of rows comes first, untimed.
 *
 *   GROUNDWATCH_DEV_DIR=… taskset -c 0 npx tsx bench/relevance-cost.ts [--limit N] [--set NAME[,NAME…]]
 */
import { createScorer } from "../src/sdk/create-scorer.ts";
import type { Observation, Scorer } from "../src/scoring/scorer.ts";
import type { DevRow } from "../scripts/devsets.ts";
import { selectedDevSets } from "./dev-relevance.ts";

function observation(row: DevRow, suffix = ""): Observation {
  return { answer: `${row.claim}${suffix}`, context: `${row.context}${suffix}`, ...(row.question ? { question: `${row.question}${suffix}` } : {}) };
}

async function timed(scorer: Scorer, input: Observation): Promise<number> {
  const t0 = process.hrtime.bigint();
  await scorer.score(input);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

async function main(): Promise<void> {
  const sets = selectedDevSets();
  const on = await createScorer({ backend: "offline" });
  const off = await createScorer({ backend: "offline", relevance: false });
  for (const rows of sets.values()) for (const row of rows.slice(0, 30)) for (const s of [on, off]) await s.score(observation(row, " (warm-up)"));
  console.log("| set | rows | question | ms/row relevance off | ms/row relevance on | on / off |");
  console.log("|---|---|---|---|---|---|");
  const total = { on: 0, off: 0, rows: 0 };
  for (const [name, rows] of sets) {
    let tOn = 0;
    let tOff = 0;
    for (const [i, row] of rows.entries()) {
      const input = observation(row);
      if (i % 2 === 0) {
        tOff += await timed(off, input);
        tOn += await timed(on, input);
      } else {
        tOn += await timed(on, input);
        tOff += await timed(off, input);
      }
    }
    total.on += tOn;
    total.off += tOff;
    total.rows += rows.length;
    console.log(`| ${name} | ${rows.length} | ${rows.some((r) => r.question) ? "yes" : "no"} | ${(tOff / rows.length).toFixed(3)} | ${(tOn / rows.length).toFixed(3)} | ${(tOn / tOff).toFixed(2)} |`);
  }
  console.log(`| all sets | ${total.rows} | | ${(total.off / total.rows).toFixed(3)} | ${(total.on / total.rows).toFixed(3)} | ${(total.on / total.off).toFixed(2)} |`);
  await Promise.all([on.close(), off.close()]);
}

await main();
