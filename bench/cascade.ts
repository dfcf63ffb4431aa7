/**
 * The cascade's figures for given thresholds (core/cascade-fit.ts): per dev set, on the check half
 * (the half fit:cascade never fits on) and on all rows, the share of model calls saved (claims
 * decided by the offline tier) and the accuracy of the decided answers.
 *
 *   npm run bench:cascade -- --support-above 0.9 --unsupport-below 0.05 [--limit N]
 *
 * Without thresholds it measures DEFAULT_CASCADE_THRESHOLDS (config/defaults.ts).
 */
import { cascadeFigures } from "../src/core/cascade-fit.ts";
import { DEFAULT_CASCADE_THRESHOLDS } from "../src/config/defaults.ts";
import { cascadeSets } from "../scripts/cascade-rows.ts";
import { flag } from "./args.ts";
import { cascadeTable, machineLine } from "./cascade-table.ts";

const t = { supportAbove: Number(flag("support-above") ?? DEFAULT_CASCADE_THRESHOLDS.supportAbove), unsupportBelow: Number(flag("unsupport-below") ?? DEFAULT_CASCADE_THRESHOLDS.unsupportBelow) };
if (!(t.supportAbove > t.unsupportBelow)) throw new Error(`--support-above (${t.supportAbove}) must be above --unsupport-below (${t.unsupportBelow})`);
const { sets, backend, threshold } = await cascadeSets(Number(flag("limit") ?? Infinity));
console.log(`cheap tier ${backend}, answer threshold ${threshold.toFixed(3)}; thresholds supportAbove ${t.supportAbove}, unsupportBelow ${t.unsupportBelow}`);
console.log(machineLine());
console.log("");
console.log("check halves:");
console.log(cascadeTable(sets.map((s) => ({ name: s.name, fitted: s.fit.length > 0, figures: cascadeFigures(s.check, t) }))).join("\n"));
console.log("");
console.log("both halves (ANLI: its check half only; its other half is never read):");
console.log(cascadeTable(sets.map((s) => ({ name: s.name, fitted: s.fit.length > 0, figures: cascadeFigures([...s.fit, ...s.check], t) }))).join("\n"));
