/**
 * `groundwatch calibrate` and `groundwatch eval` on a real dev set, run as a user
 * runs them (the CLI in a child process, the offline backend), with the labelled
 * truth beside what they report.
 *
 *   npm run bench:cli-gates [-- --set wice_dev] [-- --eval-rows 200]
 *
 * Dev rows become CLI rows: claim → answer, and the id gets the row index because
 * some sets (WiCE) repeat an id across sub-claims and the CLI refuses repeated ids.
 * Calibration runs twice: on every row, and on the held-out fifth the offline
 * weights were never fit on (the honest figure for a set the weights have not seen).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { FIT_ALLOWED, isHeldOut, loadDevSets } from "../scripts/devsets.ts";
import type { DevRow } from "../scripts/devsets.ts";

interface CalibrationFile {
  readonly threshold: number;
  readonly tpr: number;
  readonly fpr: number;
  readonly auroc: { readonly value: number; readonly low: number; readonly high: number };
}
interface EvalSummary {
  readonly threshold: number;
  readonly summary: { readonly rows: number; readonly unscorable: number; readonly hallucinationRate: number | null; readonly hallucinationInterval: { readonly low: number; readonly high: number } | null };
}

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

function writeRows(path: string, rows: ReadonlyArray<{ row: DevRow; index: number }>): void {
  writeFileSync(path, rows.map(({ row, index }) => JSON.stringify({ id: `${row.id}#${index}`, question: "", context: row.context, answer: row.claim, label: row.label })).join("\n") + "\n");
}

function cli(args: readonly string[]): { code: number; stdout: string; seconds: number } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [join(import.meta.dirname, "..", "bin", "groundwatch.js"), ...args], { encoding: "utf8" });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status === 2 || r.status === null) throw new Error(`groundwatch ${args[0]} failed (${r.status}): ${r.stderr}`);
  return { code: r.status, stdout: r.stdout, seconds };
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

function main(): void {
  const setName = flag("set", "wice_dev");
  const evalRows = Number(flag("eval-rows", "200"));
  const all = loadDevSets().get(setName);
  if (!all) throw new Error(`no dev set named ${setName}`);
  const indexed = all.map((row, index) => ({ row, index }));
  const dir = mkdtempSync(join(tmpdir(), "groundwatch-bench-"));
  try {
    console.log(`set ${setName} (${all.length} rows), backend offline, machine: ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), Node ${process.version}\n`);
    console.log("| run | rows | AUROC [95% CI] | threshold (Youden) | TPR | FPR | exit | seconds |");
    console.log("|---|---|---|---|---|---|---|---|");
    const parts: Array<[string, typeof indexed]> = [["calibrate, every row", indexed]];
    if (FIT_ALLOWED.has(setName)) parts.push(["calibrate, rows never fit", indexed.filter(({ row }) => isHeldOut(row))]);
    for (const [label, rows] of parts) {
      const input = join(dir, "set.jsonl");
      const out = join(dir, "calibration.json");
      writeRows(input, rows);
      const run = cli(["calibrate", "--set", input, "--criterion", "youden", "--backend", "offline", "--out", out]);
      const c = JSON.parse(readFileSync(out, "utf8")) as CalibrationFile;
      console.log(`| ${label} | ${rows.length} | ${c.auroc.value.toFixed(3)} [${c.auroc.low.toFixed(3)}, ${c.auroc.high.toFixed(3)}] | ${c.threshold.toFixed(3)} | ${pct(c.tpr)} | ${pct(c.fpr)} | ${run.code} | ${run.seconds.toFixed(1)} |`);
    }

    const first = indexed.slice(0, evalRows);
    const input = join(dir, "eval.jsonl");
    writeRows(input, first);
    const run = cli(["eval", "--set", input, "--max-hallucination-rate", "0.5", "--backend", "offline", "--out", join(dir, "report")]);
    const r = JSON.parse(readFileSync(join(dir, "report", "report.json"), "utf8")) as EvalSummary;
    const truth = first.filter(({ row }) => row.label === 0).length / first.length;
    const s = r.summary;
    console.log(`\neval on the first ${first.length} rows (gate: hallucination rate ≤ 50%), exit ${run.code}, ${run.seconds.toFixed(1)} s`);
    console.log(`| reported hallucination rate [95% CI] | labelled ungrounded share | unscorable | shipped threshold |`);
    console.log(`|---|---|---|---|`);
    console.log(`| ${s.hallucinationRate === null ? "–" : pct(s.hallucinationRate)} [${s.hallucinationInterval ? `${pct(s.hallucinationInterval.low)}, ${pct(s.hallucinationInterval.high)}` : "–"}] | ${pct(truth)} | ${s.unscorable} | ${r.threshold.toFixed(3)} |`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
