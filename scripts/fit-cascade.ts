/**
 * Fits the cascade's thresholds (core/cascade-fit.ts) on the dev sets' fit halves and checks them
 * on every set's other half; prints per set the share of model calls saved (claims decided) and
 * the accuracy of the decided answers on the check halves.
 *
 *   npm run fit:cascade [-- --limit N] [-- --target 0.97]
 *
 * Deterministic: the halves are cut by id and the candidate thresholds are a fixed grid. It writes
 * nothing: the thresholds it prints go into config/defaults.ts DEFAULT_CASCADE_THRESHOLDS by hand,
 * with docs/benchmarks.md's figures.
 */
import { CASCADE_TARGET, fitCascade } from "../src/core/cascade-fit.ts";
import { flag } from "../bench/args.ts";
import { cascadeSets } from "./cascade-rows.ts";
import { cascadeTable, machineLine } from "../bench/cascade-table.ts";

const target = Number(flag("target") ?? CASCADE_TARGET);
const { sets, backend, threshold } = await cascadeSets(Number(flag("limit") ?? Infinity));
const fit = fitCascade(sets, target);
console.log(`cheap tier ${backend}, answer threshold ${threshold.toFixed(3)}; target ${(100 * target).toFixed(1)}% right on every set's check half`);
console.log(machineLine());
for (const note of fit.notes) console.log(`- ${note}`);
console.log(`fitted thresholds: supportAbove ${fit.thresholds.supportAbove}, unsupportBelow ${fit.thresholds.unsupportBelow}${fit.decides ? "" : " (they decide nothing: the cascade ships off)"}`);
console.log("");
console.log(cascadeTable(fit.sets.map((s) => ({ name: s.name, fitted: s.fit.rows > 0, figures: s.check }))).join("\n"));
console.log("");
console.log("each set alone (fitted on its own fit half, checked on its own check half: what the set would allow by itself):");
console.log("");
console.log("| set | supportAbove | unsupportBelow | model calls saved on its check half | accuracy of decided answers there |");
console.log("|---|---|---|---|---|");
for (const set of sets.filter((s) => s.fit.length > 0)) {
  const alone = fitCascade([set], target);
  const check = alone.sets[0]?.check;
  const pct = (x: number | undefined): string => (x === undefined || Number.isNaN(x) ? "–" : `${(100 * x).toFixed(1)}%`);
  console.log(`| ${set.name} | ${alone.thresholds.supportAbove} | ${alone.thresholds.unsupportBelow} | ${pct(check?.saved)} | ${pct(check?.accuracy)} |`);
}
