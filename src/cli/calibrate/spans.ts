import type { Criterion } from "../../core/calibration.ts";
import { aurocWithInterval } from "../../core/calibration.ts";
import { fitThreshold } from "../../core/calibration-fit.ts";
import type { GroundednessResult } from "../../core/result.ts";
import type { ResolvedScoreOptions } from "../../config/score-options.ts";
import type { Scorer } from "../../scoring/scorer.ts";

/**
 * calibrate's span part (docs/scoring.md, "Spans"). Alone (backend spans), the span threshold is the
 * fitted answer threshold's complement: a token is unsupported at p ≥ 1 − τ, so the file records
 * 1 − τ beside τ. Refining a claim detector, the span threshold is fitted on the answer labels: an
 * answer is flagged by its spans when its highest token probability is at or above s, and s is
 * picked the way the answer threshold is (the same criterion, on 1 − that probability). To read every
 * answer's highest probability the rows are scored with a span threshold of 0 (spansScoring): every
 * token is then in a span, and refine-mode verdicts never read spans.
 */

/** calibration.json's "spans": the span threshold for the mode it was fitted in, or why it was not fitted. */
export interface SpanCalibration {
  readonly mode: "alone" | "refine";
  /** The token probability at or above which a word is marked; null when it could not be fitted. */
  readonly threshold: number | null;
  /** Refine: answers the fit read (their spans measured), and the AUROC of their highest token probability. */
  readonly rows?: number;
  readonly auroc?: { readonly value: number; readonly low: number; readonly high: number };
  readonly tpr?: number;
  readonly fpr?: number;
  /** Why it was not fitted. */
  readonly reason?: string;
}

/** The scoring options calibrate scores the rows with: refining, a span threshold of 0 (every token in a span) so each answer's highest probability can be read. */
export function spansScoring(scoring: ResolvedScoreOptions): ResolvedScoreOptions {
  return scoring.spanModel !== undefined && scoring.backend !== "spans" ? { ...scoring, spanThreshold: 0 } : scoring;
}

/** A complement kept short: 1 − 0.35 is 0.65, not 0.6499999999999999. */
const complement = (x: number): number => Math.min(1, Math.max(0, Number((1 - x).toPrecision(12))));

/** Collects each row's highest token probability (refine) and fits the span threshold at the end. */
export interface SpanCollector {
  /** Adds one labelled row, given the scorer's result for it. */
  add(label: 0 | 1, scored: GroundednessResult): void;
  /** The span threshold for the fitted answer threshold `tau`; undefined without a span detector. */
  fit(tau: number, criterion: Criterion, target: number): SpanCalibration | undefined;
}

export function spanCollector(scorer: Pick<Scorer, "spans">): SpanCollector {
  const rows: Array<{ label: 0 | 1; score: number }> = [];
  return {
    add(label, scored) {
      // Unscorable answers, and answers whose spans were not measured, say nothing about the span threshold.
      if (scorer.spans?.mode !== "refine" || scored.verdict === "unscorable" || scored.spans === undefined) return;
      const highest = scored.spans.reduce((m, s) => Math.max(m, s.probability), 0);
      rows.push({ label, score: 1 - highest });
    },
    fit(tau, criterion, target) {
      if (!scorer.spans) return undefined;
      if (scorer.spans.mode === "alone") return { mode: "alone", threshold: complement(tau) };
      const positives = rows.filter((r) => r.label === 1).length;
      if (positives === 0 || positives === rows.length) {
        return { mode: "refine", threshold: null, rows: rows.length, reason: `the answers whose spans were measured need both labels: ${positives} grounded and ${rows.length - positives} not` };
      }
      const fitted = fitThreshold(rows, criterion, target);
      const est = aurocWithInterval(
        rows.map((r) => r.score),
        rows.map((r) => r.label),
      );
      return { mode: "refine", threshold: complement(fitted.threshold), rows: rows.length, auroc: { value: est.auroc, low: est.low, high: est.high }, tpr: fitted.tpr, fpr: fitted.fpr };
    },
  };
}

/** calibrate's lines about the span threshold. */
export function spanLines(c: SpanCalibration | undefined): string[] {
  if (!c) return [];
  if (c.mode === "alone") return [`span threshold: ${c.threshold} (= 1 − the answer threshold: with --backend spans a token is unsupported at or above it)`];
  if (c.threshold === null) return [`span threshold: not fitted (${c.reason ?? "no rows"}); the detector's default stays in force`];
  const auroc = c.auroc ? `, AUROC of the highest token probability ${c.auroc.value.toFixed(3)} (95% CI ${c.auroc.low.toFixed(3)}–${c.auroc.high.toFixed(3)})` : "";
  return [`span threshold: ${c.threshold} (refine: an answer's spans flag it when a token reaches it; fitted on ${c.rows} answers${auroc}; used where --span-threshold is not set)`];
}
