import { resolve } from "node:path";
import type { Calibration, FittedRowRecord } from "../../config/calibration-file.ts";
import { withCalibratedThresholds } from "../../config/calibration-file.ts";
import type { ResolvedScoreOptions } from "../../config/score-options.ts";
import { blockedBy, groundedAt } from "../../core/calibration-fit.ts";
import { rng } from "../../core/rng.ts";
import { scorerFor } from "../shared/command.ts";
import { inputLines, readsOnce, sha256OfFile } from "../shared/files.ts";
import type { CommandIo } from "../shared/io.ts";
import { sanitizeForTerminal } from "../shared/io.ts";
import type { RecheckLine } from "../report/calibration-claims.ts";
import { RERUN } from "../report/calibration-claims.ts";
import { parseScoreRow } from "../shared/score-rows.ts";

/**
 * What doctor checks of a calibration beyond its own file (calibration-claims.ts checks the file's
 * figures): that the scorer configured now gives a sample of its fitted rows the verdicts the file
 * records for them, re-scored from the labelled set.
 */

/** Up to `n` of the fitted rows, drawn without replacement, seeded by the calibration's id (the same rows each run). */
export function recheckSample(rows: readonly FittedRowRecord[], n: number, id: string): FittedRowRecord[] {
  const random = rng(Number.parseInt(id.slice(0, 8), 16) || 1);
  const picked = [...rows];
  const k = Math.min(n, picked.length);
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(random() * (picked.length - i));
    [picked[i], picked[j]] = [picked[j] as FittedRowRecord, picked[i] as FittedRowRecord];
  }
  return picked.slice(0, k);
}

/** How doctor re-scores a calibration's sample. */
export interface RecheckOptions {
  /** Rows to re-score (0: none). */
  readonly rows: number;
  /** The labelled set; default the path the calibration records (relative to the working directory). */
  readonly set: string | undefined;
  /** The scoring resolved from doctor's flags, environment and config; the calibration's threshold and relevance thresholds are applied to it. */
  readonly scoring: ResolvedScoreOptions;
}

/** Scores differing by more than this are reported even when the verdicts agree: another model or runtime. */
const SCORE_TOLERANCE = 1e-4;

/**
 * Re-scores a seeded sample of the calibration's fitted rows from its labelled set with the scorer
 * configured now, at the calibration's threshold, and compares each verdict (and score) with what
 * the file records. The set must be the one calibrated on (by sha256).
 */
export async function recheckCalibration(cal: Calibration, options: RecheckOptions, io: CommandIo): Promise<RecheckLine> {
  const what = "re-scored sample";
  if (options.rows === 0) return { status: "INFO", what, detail: "not re-scored (--recheck 0)" };
  if (!cal.fittedRows) return { status: "WARN", what, detail: "the file records no fitted rows to compare with (an older groundwatch calibrate)", fix: RERUN };
  const given = options.set ?? cal.dataset?.path;
  if (given === undefined || given === "(path not recorded)") return { status: "WARN", what, detail: "the file does not record its labelled set's path", fix: "pass --set labelled.jsonl (the set calibrate was run on)" };
  if (given === "-") return { status: "WARN", what, detail: "the calibration was fitted on standard input: doctor cannot read it again", fix: "pass --set labelled.jsonl (the rows calibrate read)" };
  const path = resolve(io.cwd, given);
  if (readsOnce(path)) return { status: "WARN", what, detail: `${sanitizeForTerminal(given)} is a pipe: doctor cannot read what calibrate read`, fix: "pass --set with the file itself" };
  let sha256: string;
  try {
    sha256 = await sha256OfFile(path);
  } catch (error) {
    return { status: "WARN", what, detail: `cannot read the labelled set ${sanitizeForTerminal(given)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, fix: "run doctor where the set's path resolves, or pass --set" };
  }
  if (cal.dataset && sha256 !== cal.dataset.sha256) return { status: "WARN", what, detail: `${sanitizeForTerminal(given)} is not the set the calibration was fitted on (its sha256 differs): not re-scored`, fix: "pass --set with the set calibrate was run on" };
  const sample = recheckSample(cal.fittedRows, options.rows, cal.id);
  const wanted = new Map(sample.map((r) => [String(r.id), r]));
  let scorer: Awaited<ReturnType<typeof scorerFor>>;
  try {
    scorer = await scorerFor(withCalibratedThresholds({ ...options.scoring, threshold: cal.threshold }, cal), io);
  } catch (error) {
    return { status: "FAIL", what, detail: `the scorer did not start: ${sanitizeForTerminal((error as Error).message)}` };
  }
  const differ: string[] = [];
  let largest = 0;
  let found = 0;
  try {
    let n = 0;
    for await (const line of inputLines(path, io)) {
      n++;
      if (line.trim() === "") continue;
      const parsed = parseScoreRow(line, n);
      if (!parsed.ok) continue;
      const recorded = wanted.get(String(parsed.row.id));
      if (!recorded) continue;
      found++;
      const r = await scorer.score({ answer: parsed.row.answer, context: parsed.row.context });
      const blocked = blockedBy(r);
      const score = r.verdict === "unscorable" ? 0 : r.score;
      // An unscorable row fitted (--unscorable as-ungrounded) is recorded as blocked, flagged at every threshold.
      if (r.verdict === "unscorable" && recorded.blocked !== "unscorable") differ.push(`${String(recorded.id)} (now unscorable)`);
      else if ((r.verdict === "grounded") !== groundedAt(recorded, cal.threshold) || blocked !== recorded.blocked) {
        differ.push(`${String(recorded.id)} (recorded ${groundedAt(recorded, cal.threshold) ? "grounded" : "ungrounded"}${recorded.blocked ? `, ${recorded.blocked}` : ""}; now ${r.verdict}${blocked && blocked !== "unscorable" ? `, ${blocked}` : ""})`);
      }
      if (r.verdict !== "unscorable") largest = Math.max(largest, Math.abs(score - recorded.score));
    }
  } finally {
    await scorer.close();
  }
  const missing = sample.length - found;
  const detail = `re-scored ${found} of ${cal.fittedRows.length} fitted rows at threshold ${cal.threshold}`;
  if (differ.length > 0) {
    return { status: "FAIL", what, detail: `${detail}: ${differ.length} verdict${differ.length === 1 ? " differs" : "s differ"} from what the file records: ${sanitizeForTerminal(differ.slice(0, 5).join("; "))}${differ.length > 5 ? "; …" : ""}`, fix: "the scorer configured here is not the one the calibration was fitted with (backend, model, or its settings): calibrate with the scorer that serves" };
  }
  if (missing > 0) return { status: "WARN", what, detail: `${detail}; ${missing} sampled row${missing === 1 ? " is" : "s are"} not in the set any more`, fix: "pass --set with the set calibrate was run on" };
  if (largest > SCORE_TOLERANCE) return { status: "WARN", what, detail: `${detail}: every verdict as recorded, but scores moved by up to ${largest.toFixed(4)} (another model build or runtime)` };
  return { status: "PASS", what, detail: `${detail}: every verdict and score as recorded (largest score difference ${largest.toExponential(1)})` };
}
