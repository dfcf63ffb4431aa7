import type { CascadeFigures, CascadeRow } from "../../core/cascade-fit.ts";
import { CASCADE_TARGET, cascadeFigures, cascadeHalf, fitCascade } from "../../core/cascade-fit.ts";
import type { GroundednessResult } from "../../core/result.ts";
import type { ResolvedScoreOptions } from "../../config/score-options.ts";
import type { Scorer } from "../../scoring/scorer.ts";
import type { CommandIo } from "../shared/io.ts";
import { scorerFor } from "../shared/command.ts";

/**
 * calibrate's cascade part: scores each row with the offline tier too (the cascade's cheap tier;
 * the scorer's own results when the backend is the offline one), then fits the cascade's
 * thresholds on half the set and checks them on the other half (core/cascade-fit.ts). The file
 * records them as "cascade"; a scorer with the cascade on reads them where none is set.
 */

/** calibration.json's "cascade". */
export interface CascadeCalibration {
  readonly supportAbove: number;
  readonly unsupportBelow: number;
  /** Whether they decide anything (false: 1 and 0, every claim goes to the model). */
  readonly decides: boolean;
  readonly target: number;
  readonly notes: readonly string[];
  /** What they do to each half of the set: calls saved (claims decided) and the accuracy of the decided answers. */
  readonly fit: CascadeFigures;
  readonly check: CascadeFigures;
}

/** Collects the rows' offline scores as calibrate reads them, and fits at the end. */
export interface CascadeCollector {
  /** Adds one labelled row, given the scorer's result for it. */
  add(id: string | number, label: 0 | 1, scored: GroundednessResult, answer: { readonly answer: string; readonly context: Parameters<Scorer["score"]>[0]["context"] }): Promise<void>;
  /** Fits the thresholds on the rows added. */
  fit(): CascadeCalibration;
  close(): Promise<void>;
}

const asRow = (label: 0 | 1, r: GroundednessResult): CascadeRow => ({ label, claims: r.claims.map((c) => ({ score: c.score, contradiction: c.contradiction })) });

/** A collector for calibrate's rows: the offline scorer is the calibrated one when it is offline, else one of its own. */
export async function cascadeCollector(scoring: ResolvedScoreOptions, scorer: Pick<Scorer, "backend">, io: CommandIo): Promise<CascadeCollector> {
  const cheap = scorer.backend.tier === "triage" ? undefined : await scorerFor({ ...scoring, backend: "offline", cascade: false, relevance: false, threshold: undefined, spanModel: undefined }, io);
  const halves = { fit: [] as CascadeRow[], check: [] as CascadeRow[] };
  return {
    async add(id, label, scored, input) {
      const r = cheap ? await cheap.score(input) : scored;
      halves[cascadeHalf(String(id))].push(asRow(label, r));
    },
    fit() {
      const set = { name: "set", fit: halves.fit, check: halves.check };
      const fitted = fitCascade([set]);
      return { ...fitted.thresholds, decides: fitted.decides, target: CASCADE_TARGET, notes: fitted.notes, fit: cascadeFigures(set.fit, fitted.thresholds), check: cascadeFigures(set.check, fitted.thresholds) };
    },
    close: async () => {
      await cheap?.close();
    },
  };
}

/** calibrate's lines about the cascade's thresholds. */
export function cascadeLines(c: CascadeCalibration): string[] {
  const pct = (x: number): string => (Number.isNaN(x) ? "–" : `${(100 * x).toFixed(1)}%`);
  const head = c.decides
    ? `cascade thresholds: supportAbove ${c.supportAbove}, unsupportBelow ${c.unsupportBelow} (used with --cascade on): on the check half, ${pct(c.check.saved)} of model calls saved, decided answers ${pct(c.check.accuracy)} right`
    : `cascade thresholds: none decide claims right ${pct(c.target)} of the time on both halves of the set: 1 and 0 recorded (every claim goes to the model)`;
  return [head, ...c.notes.map((n) => `  ${n}`)];
}
