/**
 * What bench/quality.ts prints: per dev set, one scoring's figures with their intervals, and,
 * against another revision, before, after, the difference and the verdict; as tables, or as one
 * JSON object (`--json`).
 */
import { FIT_ALLOWED, isHeldOut } from "../scripts/devsets.ts";
import type { DevRow } from "../scripts/devsets.ts";
import { auroc } from "../src/core/stats.ts";
import { overlapFloor } from "./overlap-floor.ts";
import type { BootstrapOptions, Interval, QualityDelta, QualityFigures, QualityVerdict } from "./quality-stats.ts";
import { compareQuality, qualityFigures } from "./quality-stats.ts";
import type { TreeScores } from "./quality-tree.ts";

/** The sets whose mean AUROC is the macro figure. */
export const TARGET_SETS = ["wice_dev", "anli_r1_dev", "anli_r2_dev", "summedits_news", "summedits_podcast", "summedits_sales_call", "summedits_samsum"];

/** The revision compared against, and its scores. */
export interface Against {
  readonly rev: string;
  readonly commit: string;
  readonly subject: string;
  readonly scores: TreeScores;
}

/** One set's line of the report. */
export interface SetReport {
  readonly name: string;
  readonly rows: number;
  readonly fitOn: boolean;
  readonly unscorable: number;
  readonly rowsPerSecond: number;
  /** AUROC on the rows the weights were never fit on, and how many. */
  readonly heldOut: { readonly auroc: number; readonly rows: number };
  readonly floor: { readonly auroc: number; readonly heldOutAuroc: number };
  readonly figures: QualityFigures;
  readonly against?: { readonly before: QualityFigures; readonly delta: QualityDelta; readonly verdict: QualityVerdict; readonly unscorable: number };
}

export interface QualityReport {
  readonly backend: TreeScores["backend"];
  readonly threshold: number;
  readonly topK: number;
  readonly tokenBudget: number;
  readonly resamples: number;
  readonly against?: { readonly rev: string; readonly commit: string; readonly subject: string; readonly backend: TreeScores["backend"]; readonly threshold: number };
  readonly sets: SetReport[];
  readonly macroAuroc: number;
  readonly macroAurocBefore?: number;
  readonly rowsPerSecond: number;
}

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The report of `after` (this checkout's scores) on the sets, against another revision's when given. */
export function buildReport(sets: ReadonlyMap<string, readonly DevRow[]>, after: TreeScores, against: Against | undefined, options: Required<Pick<BootstrapOptions, "resamples">>): QualityReport {
  const reports: SetReport[] = [];
  let rows = 0;
  let ms = 0;
  for (const [name, setRows] of sets) {
    const mine = after.sets[name];
    if (!mine) throw new Error(`no scores for ${name}`);
    const labels = setRows.map((r) => r.label);
    const unseen = setRows.map((r, i) => ({ r, i })).filter(({ r }) => !FIT_ALLOWED.has(name) || isHeldOut(r));
    const floor = setRows.map((r) => overlapFloor(r.context, r.claim));
    const theirs = against?.scores.sets[name];
    const compared = theirs ? compareQuality(name, labels, { scores: theirs.scores, threshold: against.scores.threshold }, { scores: mine.scores, threshold: after.threshold }, options) : undefined;
    rows += setRows.length;
    ms += mine.ms;
    reports.push({
      name,
      rows: setRows.length,
      fitOn: FIT_ALLOWED.has(name),
      unscorable: mine.unscorable,
      rowsPerSecond: (setRows.length / mine.ms) * 1000,
      heldOut: { auroc: auroc(unseen.map(({ i }) => mine.scores[i] ?? 0), unseen.map(({ r }) => r.label)), rows: unseen.length },
      floor: { auroc: auroc(floor, labels), heldOutAuroc: auroc(unseen.map(({ i }) => floor[i] ?? 0), unseen.map(({ r }) => r.label)) },
      figures: compared?.after ?? qualityFigures(name, mine.scores, labels, after.threshold, options),
      ...(compared && theirs ? { against: { before: compared.before, delta: compared.delta, verdict: compared.verdict, unscorable: theirs.unscorable } } : {}),
    });
  }
  const byName = new Map(reports.map((s) => [s.name, s]));
  const macroOf = (pick: (s: SetReport) => number | undefined): number =>
    mean(
      TARGET_SETS.map((t) => {
        const s = byName.get(t);
        return (s ? pick(s) : undefined) ?? NaN;
      }),
    );
  return {
    backend: after.backend,
    threshold: after.threshold,
    topK: after.topK,
    tokenBudget: after.tokenBudget,
    resamples: options.resamples,
    ...(against ? { against: { rev: against.rev, commit: against.commit, subject: against.subject, backend: against.scores.backend, threshold: against.scores.threshold } } : {}),
    sets: reports,
    macroAuroc: macroOf((s) => s.figures.auroc),
    ...(against ? { macroAurocBefore: macroOf((s) => s.against?.before.auroc) } : {}),
    rowsPerSecond: (rows / ms) * 1000,
  };
}

const f3 = (x: number): string => x.toFixed(3);
const signed = (x: number): string => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(3)}`;
const interval = (i: Interval): string => `[${f3(i.low)}, ${f3(i.high)}]`;
const signedInterval = (i: Interval): string => `[${signed(i.low)}, ${signed(i.high)}]`;
const withInterval = (x: number, i: Interval): string => `${f3(x)} ${interval(i)}`;

/** The report as the tables and lines printed by default. */
export function formatReport(r: QualityReport, machine: string): string {
  const out: string[] = [];
  out.push(`backend ${r.backend.name} ${r.backend.version} (tier ${r.backend.tier}), threshold ${f3(r.threshold)}, topK ${r.topK}, token budget ${r.tokenBudget}`);
  out.push(machine);
  out.push(`intervals: 95%, stratified bootstrap, ${r.resamples} resamples seeded by set name`);
  out.push("");
  out.push("| set | rows | fit on | unscorable | AUROC [95%] | AUROC on rows never fit | overlap floor AUROC | floor on rows never fit | balanced acc. @ threshold [95%] | false alarms | misses | rows/s |");
  out.push("|---|---|---|---|---|---|---|---|---|---|---|---|");
  for (const s of r.sets) {
    const g = s.figures;
    out.push(
      `| ${s.name} | ${s.rows} | ${s.fitOn ? "80%" : "no"} | ${s.unscorable} | ${withInterval(g.auroc, g.aurocInterval)} | ${f3(s.heldOut.auroc)} (${s.heldOut.rows}) | ${f3(s.floor.auroc)} | ${f3(s.floor.heldOutAuroc)} | ${withInterval(g.balancedAccuracy, g.balancedAccuracyInterval)} | ${f3(g.falseAlarmRate)} | ${f3(g.missRate)} | ${s.rowsPerSecond.toFixed(0)} |`,
    );
  }
  out.push("");
  out.push(`macro AUROC over ${TARGET_SETS.join(", ")}: ${f3(r.macroAuroc)}`);
  out.push(`throughput over all sets: ${r.rowsPerSecond.toFixed(0)} rows/s`);
  if (r.against) {
    const a = r.against;
    out.push("");
    out.push(`against ${a.rev} = ${a.commit.slice(0, 7)} "${a.subject}" (backend ${a.backend.version}, threshold ${f3(a.threshold)}); after = this checkout's working tree`);
    out.push("verdict: \"lower beyond interval\" when the after AUROC lies below the before's 95% interval; Δ intervals are paired (the same resamples)");
    out.push("");
    out.push("| set | AUROC before [95%] | AUROC after | Δ AUROC [paired 95%] | bal. acc. before → after | Δ bal. acc. [paired 95%] | false alarms before → after | misses before → after | unscorable before → after | verdict |");
    out.push("|---|---|---|---|---|---|---|---|---|---|");
    for (const s of r.sets) {
      if (!s.against) continue;
      const { before: b, delta: d } = s.against;
      const g = s.figures;
      out.push(
        `| ${s.name} | ${withInterval(b.auroc, b.aurocInterval)} | ${f3(g.auroc)} | ${signed(d.auroc)} ${signedInterval(d.aurocInterval)} | ${f3(b.balancedAccuracy)} → ${f3(g.balancedAccuracy)} | ${signed(d.balancedAccuracy)} ${signedInterval(d.balancedAccuracyInterval)} | ${f3(b.falseAlarmRate)} → ${f3(g.falseAlarmRate)} | ${f3(b.missRate)} → ${f3(g.missRate)} | ${s.against.unscorable} → ${s.unscorable} | ${s.against.verdict} |`,
      );
    }
    out.push("");
    out.push(`macro AUROC: ${f3(r.macroAurocBefore ?? NaN)} → ${f3(r.macroAuroc)} (${signed(r.macroAuroc - (r.macroAurocBefore ?? NaN))})`);
    const lower = r.sets.filter((s) => s.against?.verdict === "lower beyond interval").map((s) => s.name);
    out.push(lower.length === 0 ? "no set lower beyond its interval" : `LOWER BEYOND INTERVAL: ${lower.join(", ")}`);
  }
  return out.join("\n");
}
