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
  readonly fittedRows: ReadonlyArray<{ readonly id: string; readonly label: 0 | 1; readonly score: number; readonly blocked?: string }>;
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

/** TPR and FPR of verdicts: grounded (label 1) passed, and not-grounded passed. */
function rates(rows: ReadonlyArray<{ label: 0 | 1; passed: boolean }>): { tpr: number; fpr: number; text: string } {
  const pos = rows.filter((r) => r.label === 1);
  const neg = rows.filter((r) => r.label === 0);
  const tp = pos.filter((r) => r.passed).length;
  const fp = neg.filter((r) => r.passed).length;
  return { tpr: tp / pos.length, fpr: fp / neg.length, text: `TPR ${pct(tp / pos.length)} (${tp}/${pos.length}), FPR ${pct(fp / neg.length)} (${fp}/${neg.length})` };
}

/**
 * What calibrate did before issue 36, for comparison: Youden's J over the raw scores (score ≥ t,
 * an answer with a contradicted claim counted as passing when its score is high enough), the
 * threshold stored rounded to 6 decimals (which can round it up past tied scores).
 */
function formerCalibrate(rows: CalibrationFile["fittedRows"]): { printed: ReturnType<typeof rates>; stored: number } {
  const scores = [...new Set(rows.map((r) => r.score))].sort((a, b) => a - b);
  let best = { t: scores[0] ?? 0, j: -Infinity };
  for (const t of scores) {
    const r = rates(rows.map((x) => ({ label: x.label, passed: x.score >= t })));
    if (r.tpr - r.fpr > best.j) best = { t, j: r.tpr - r.fpr };
  }
  return { printed: rates(rows.map((x) => ({ label: x.label, passed: x.score >= best.t }))), stored: Number(best.t.toFixed(6)) };
}

/**
 * Does calibrate print what eval --calibration then reports on the same rows? Calibrates every row,
 * runs eval with that calibration on the same set, and counts eval's verdicts by label; beside them,
 * what the former calibrate would have printed and what its stored threshold would have given.
 */
function agreement(dir: string, setName: string, rows: ReadonlyArray<{ row: DevRow; index: number }>): void {
  const input = join(dir, "agree.jsonl");
  const out = join(dir, "agree-calibration.json");
  writeRows(input, rows);
  cli(["calibrate", "--set", input, "--criterion", "youden", "--backend", "offline", "--out", out]);
  const c = JSON.parse(readFileSync(out, "utf8")) as CalibrationFile;
  cli(["eval", "--set", input, "--calibration", out, "--no-gate", "--backend", "offline", "--out", join(dir, "agree-report")]);
  const report = JSON.parse(readFileSync(join(dir, "agree-report", "report.json"), "utf8")) as { rows: ReadonlyArray<{ id: string; label?: 0 | 1; verdict: string }> };
  const scored = report.rows.filter((r) => r.verdict !== "unscorable" && r.label !== undefined);
  const evalRates = rates(scored.map((r) => ({ label: r.label as 0 | 1, passed: r.verdict === "grounded" })));
  const former = formerCalibrate(c.fittedRows);
  const formerActual = rates(c.fittedRows.map((x) => ({ label: x.label, passed: !x.blocked && x.score >= former.stored })));
  const blocked = c.fittedRows.filter((r) => r.blocked === "contradicted").length;
  console.log(`\ncalibrate's figures against eval --calibration on the same ${c.fittedRows.length} scored rows of ${setName} (${blocked} with a contradicted claim)`);
  console.log("| | threshold | TPR, FPR |");
  console.log("|---|---|---|");
  console.log(`| calibrate prints | ${c.threshold} | TPR ${pct(c.tpr)}, FPR ${pct(c.fpr)} |`);
  console.log(`| eval --calibration counts | ${c.threshold} | ${evalRates.text} |`);
  console.log(`| former calibrate printed | ${former.stored} | ${former.printed.text} |`);
  console.log(`| its stored threshold gave | ${former.stored} | ${formerActual.text} |`);
}

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

    agreement(dir, setName, indexed);

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
