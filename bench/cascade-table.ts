import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import type { CascadeFigures } from "../src/core/cascade-fit.ts";

const pct = (x: number): string => (Number.isNaN(x) ? "–" : `${(100 * x).toFixed(1)}%`);
const side = (s: { readonly decided: number; readonly right: number }): string => (s.decided === 0 ? "0" : `${s.right}/${s.decided} (${pct(s.right / s.decided)})`);

/** The cascade's figures per set as a Markdown table (fit:cascade, bench:cascade). */
export function cascadeTable(rows: readonly { readonly name: string; readonly fitted: boolean; readonly figures: CascadeFigures }[]): string[] {
  const out = ["| set | fitted on its other half | rows | claims | model calls saved (claims decided) | decided supported: right | decided unsupported: right | accuracy of decided answers |", "|---|---|---|---|---|---|---|---|"];
  for (const { name, fitted, figures: f } of rows) {
    out.push(`| ${name} | ${fitted ? "yes" : "no"} | ${f.rows} | ${f.claims} | ${f.decidedClaims} (${pct(f.saved)}) | ${side(f.supported)} | ${side(f.unsupported)} | ${pct(f.accuracy)} |`);
  }
  return out;
}

/** The machine a run was made on, for the figures' record. */
export function machineLine(): string {
  const allowed = /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? "unknown";
  return `machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), Node ${process.version}, CPUs allowed: ${allowed}`;
}
