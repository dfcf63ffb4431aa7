import { existsSync } from "node:fs";
import type { ResolvedScoreOptions } from "../../config/score-options.ts";
import { readCalibrationFile } from "../../config/calibration-file.ts";
import type { AurocEstimate, CalibrationVerdict, ProductionProvenance } from "../../core/calibration.ts";
import type { ClassOutcome, Rates } from "../../core/calibration-fit.ts";
import { describeProduction } from "../../review/export.ts";
import { readCalibrationFlag } from "../shared/command.ts";
import type { CommandIo } from "../shared/io.ts";
import { verdictRatesText } from "../report/labels.ts";
import { sanitizeForTerminal } from "../shared/io.ts";

/** The threshold a new calibration is compared with, and where it comes from, in words. */
export interface ThresholdInForce {
  readonly threshold: number;
  /** "calibration.json (--compare)", "the scoring threshold set by flag, environment or config", "the offline backend's default". */
  readonly source: string;
}

/**
 * The threshold in force before this calibration: --compare's calibration; else the calibration at
 * --out when there is one (the file being replaced); else the scoring threshold the flags, the
 * environment or the config file set; else the backend's default.
 */
export function thresholdInForce(from: { readonly compared: ThresholdInForce | undefined; readonly out: string; readonly scoring: ResolvedScoreOptions; readonly scorerThreshold: number; readonly backend: string }): ThresholdInForce {
  if (from.compared) return from.compared;
  if (existsSync(from.out)) {
    try {
      return { threshold: readCalibrationFile(from.out, "--out", { requireReferenceScores: false }).threshold, source: `${from.out}, the calibration this run replaces` };
    } catch {
      // Not a calibration: nothing in force there, and it is about to be overwritten.
    }
  }
  if (from.scoring.threshold !== undefined) return { threshold: from.scoring.threshold, source: "the scoring threshold set by flag, environment or config file" };
  return { threshold: from.scorerThreshold, source: `the ${from.backend} backend's default` };
}

/** --compare's calibration, read before any row is scored (a bad file should not cost a whole run); undefined without the flag. */
export function comparedCalibration(compare: string | undefined, io: CommandIo): ThresholdInForce | undefined {
  if (compare === undefined) return undefined;
  return { threshold: readCalibrationFlag("--compare", compare, io, { requireReferenceScores: false }).threshold, source: `${compare} (--compare)` };
}

/** What calibrate prints, gathered. */
export interface CalibrationReport {
  readonly est: AurocEstimate;
  readonly fit: Rates;
  readonly criterion: string;
  readonly inForce: ThresholdInForce;
  readonly classes: readonly ClassOutcome[];
  readonly unscorable: ReadonlyArray<{ readonly label: 0 | 1 }>;
  readonly unscorablePolicy: "exclude" | "as-ungrounded";
  readonly rows: number;
  readonly positives: number;
  readonly verdict: CalibrationVerdict;
  readonly settle: number | undefined;
  readonly production: ProductionProvenance | undefined;
  readonly relevance: readonly string[];
  readonly audit: ReadonlyArray<{ readonly id: string | number; readonly label: 0 | 1; readonly score: number; readonly blocked?: string }>;
  readonly outPath: string;
  readonly bundled: boolean;
  readonly set: string;
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
const share = (k: number, n: number): string => `${k} of ${n}${n > 0 ? ` (${pct(k / n)})` : ""}`;
const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** The class table: rows, then what the threshold in force and the new one get right. */
export function classLines(classes: readonly ClassOutcome[], inForce: number, proposed: number): string[] {
  const name = (c: ClassOutcome): string => (c.label === 1 ? "grounded (label 1): passed" : `not grounded, ${c.name}: caught`);
  const width = Math.max(...classes.map((c) => name(c).length));
  const lines = classes.map((c) => {
    const change = c.right.proposed - c.right.inForce;
    const delta = change === 0 ? "" : change > 0 ? `  (+${change})` : `  (${change})`;
    return `  ${name(c).padEnd(width)}  ${share(c.right.inForce, c.rows).padEnd(18)} → ${share(c.right.proposed, c.rows)}${delta}`;
  });
  return [`  ${"".padEnd(width)}  ${`at ${inForce}`.padEnd(18)}   at ${proposed}`, ...lines];
}

/** Classes the new threshold gets fewer of right than the threshold in force, in words ("generation: 4 fewer caught"). */
export function worseClasses(classes: readonly ClassOutcome[]): string[] {
  return classes.filter((c) => c.right.proposed < c.right.inForce).map((c) => `${c.label === 1 ? "grounded answers" : `${c.name} answers`}: ${c.right.inForce - c.right.proposed} fewer ${c.label === 1 ? "passed" : "caught"}`);
}

/** Prints what calibrate found, before the file is written. */
export function writeCalibrationReport(io: CommandIo, r: CalibrationReport): void {
  const out = (line: string): void => void io.stdout.write(`${line}\n`);
  if (r.unscorable.length > 0) {
    const grounded = r.unscorable.filter((u) => u.label === 1).length;
    const split = `${grounded} labelled grounded, ${r.unscorable.length - grounded} not`;
    out(
      r.unscorablePolicy === "exclude"
        ? `excluded ${plural(r.unscorable.length, "unscorable row")} from the fit (${split}): the backend could not score them (no checkable claim, e.g. a refusal, or no context); --unscorable as-ungrounded fits them as score 0`
        : `fitted ${plural(r.unscorable.length, "unscorable row")} as score 0, flagged at every threshold (${split}; --unscorable as-ungrounded)`,
    );
  }
  if (r.production) out(`${describeProduction(r.production)} (dataset.production in calibration.json)`);
  const { est } = r;
  out(`AUROC ${est.auroc.toFixed(3)} [${est.low.toFixed(3)}, ${est.high.toFixed(3)}] on ${r.rows} rows (${r.positives} grounded, ${r.rows - r.positives} not)${est.continuityCorrected ? " — perfect separation; interval continuity-corrected" : ""}`);
  if (r.verdict === "pass") out("PASS: the interval excludes 0.5 — the score separates grounded from ungrounded answers on this set.");
  else if (r.verdict === "anti-correlated") out("FAIL: ANTI-CORRELATED — higher scores go with answers labelled NOT grounded. Check which way the labels point (1 must mean grounded) before anything else.");
  else out(`FAIL: the interval includes 0.5 — this set has not established a signal. ${r.settle === undefined ? "No realistic set would settle it at this effect size: the signal is not there." : `About ${r.settle} more labelled rows would settle it at this effect size.`}`);
  out(`threshold ${r.fit.threshold} (${r.criterion}): ${verdictRatesText(r.fit)}`);
  out(`what it does to each class of the set, beside the threshold in force (${r.inForce.threshold}: ${sanitizeForTerminal(r.inForce.source)}):`);
  for (const l of classLines(r.classes, r.inForce.threshold, r.fit.threshold)) out(l);
  const worse = worseClasses(r.classes);
  if (worse.length > 0) io.stderr.write(`groundwatch calibrate: WARNING: the new threshold does worse than the one in force on ${worse.join("; ")}. Weigh it before serving it.\n`);
  for (const l of r.relevance) out(l);
  if (r.audit.length > 0) {
    out("label review candidates (the score disagrees most; not verdicts):");
    for (const a of r.audit) out(`  ${sanitizeForTerminal(String(a.id))}: label ${a.label}, score ${a.score.toFixed(3)}${a.blocked ? ` (${a.blocked.replaceAll("_", " ")}: ungrounded at any threshold)` : ""}`);
  }
  if (r.bundled) {
    io.stderr.write(
      `groundwatch calibrate: WARNING: ${sanitizeForTerminal(r.set)} is one of groundwatch's bundled examples: this run demonstrates the command, it does not calibrate your service. serve, doctor, evidence and the SDK will say so, and will refuse its reference scores for drift. Label answers of your own (groundwatch init writes a starter set) and calibrate on them.\n`,
    );
  }
}
