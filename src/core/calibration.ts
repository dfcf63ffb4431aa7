import type { Criterion, ThresholdChoice } from "./calibration-fit.ts";
import { fitThreshold } from "./calibration-fit.ts";
import { auroc } from "./stats.ts";

/** Standard error of an AUROC (Hanley & McNeil, 1982). */
export function hanleyMcNeilSe(a: number, nPos: number, nNeg: number): number {
  const q1 = a / (2 - a);
  const q2 = (2 * a * a) / (1 + a);
  const v = (a * (1 - a) + (nPos - 1) * (q1 - a * a) + (nNeg - 1) * (q2 - a * a)) / (nPos * nNeg);
  return Math.sqrt(Math.max(0, v));
}

export interface AurocEstimate {
  readonly auroc: number;
  /** 95% interval (Hanley–McNeil), clipped to [0, 1]. */
  readonly low: number;
  readonly high: number;
  readonly positives: number;
  readonly negatives: number;
  /** True when perfect separation made the plain interval degenerate and a continuity correction was used. */
  readonly continuityCorrected: boolean;
}

/**
 * AUROC (Mann–Whitney, mid-ranks for ties) with a 95% Hanley–McNeil interval. At perfect
 * separation the standard error is 0; the interval is then computed at a continuity-corrected
 * AUROC of 1 − 1/(2·n+·n−), so a perfect score on 6 labels does not claim certainty.
 */
export function aurocWithInterval(scores: readonly number[], labels: readonly number[]): AurocEstimate {
  const positives = labels.filter((l) => l === 1).length;
  const negatives = labels.length - positives;
  const a = auroc(scores, labels);
  const extreme = a === 1 || a === 0;
  const aForSe = extreme ? (a === 1 ? 1 - 1 / (2 * positives * negatives) : 1 / (2 * positives * negatives)) : a;
  const se = hanleyMcNeilSe(aForSe, positives, negatives);
  return { auroc: a, low: Math.max(0, a - 1.96 * se), high: Math.min(1, a + 1.96 * se), positives, negatives, continuityCorrected: extreme };
}

/**
 * How many labelled rows (split like the current set) would give a 95% interval that
 * excludes 0.5 if the true AUROC were the one observed; undefined when no realistic set
 * would (the effect is too small), 0 when the current set already does.
 */
export function labelsToSettle(est: AurocEstimate, maxRows = 100_000): number | undefined {
  const effect = Math.abs(est.auroc - 0.5);
  if (effect < 0.01) return undefined;
  const share = est.positives / Math.max(1, est.positives + est.negatives);
  for (let n = 10; n <= maxRows; n = Math.ceil(n * 1.05)) {
    const pos = Math.max(1, Math.round(n * share));
    const neg = Math.max(1, n - pos);
    if (1.96 * hanleyMcNeilSe(est.auroc, pos, neg) < effect) return Math.max(0, n - (est.positives + est.negatives));
  }
  return undefined;
}

export type { Criterion, ThresholdChoice } from "./calibration-fit.ts";

/**
 * Picks the threshold (answers scoring at or above it count as grounded) by a criterion:
 * Youden's J, F1 or accuracy maximised; the lowest false-positive rate at or under a
 * target ("target_fpr"); or the highest threshold that keeps recall at a target.
 * Positives are label 1 (grounded). The threshold is the value to store: it splits these scores
 * as the chosen cut does, between the chosen score and the next lower one (fitThreshold).
 */
export function chooseThreshold(scores: readonly number[], labels: readonly number[], criterion: Criterion, target?: number): ThresholdChoice {
  return fitThreshold(
    scores.map((score, i) => ({ score, label: labels[i] === 1 ? 1 : 0 })),
    criterion,
    target,
  );
}

/** Wilson score interval for a proportion (95%). */
export function wilsonInterval(successes: number, n: number): { low: number; high: number } {
  if (n === 0) return { low: 0, high: 1 };
  const z = 1.96;
  const p = successes / n;
  const denom = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / denom;
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/**
 * What a labelled set established about a score: "pass" when the AUROC's 95% interval lies
 * above 0.5, "anti-correlated" when it lies below, "weak" when it includes 0.5 (no signal shown).
 */
export type CalibrationVerdict = "pass" | "weak" | "anti-correlated";

export const CALIBRATION_VERDICTS: readonly CalibrationVerdict[] = ["pass", "weak", "anti-correlated"];

/** The verdict an AUROC interval supports. */
export function calibrationVerdict(interval: { readonly low: number; readonly high: number }): CalibrationVerdict {
  return interval.low > 0.5 ? "pass" : interval.high < 0.5 ? "anti-correlated" : "weak";
}

/** What a calibration record holds about its own validity (fields of calibration.json). */
export interface CalibrationEvidence {
  readonly verdict: CalibrationVerdict | undefined;
  readonly auroc: { readonly value: number; readonly low: number; readonly high: number } | undefined;
  /** calibrate's estimate of the extra labelled rows that would settle a weak verdict; null when no realistic set would. */
  readonly labelsToSettle: number | null | undefined;
}

/** Why a calibration establishes nothing, in plain sentences. */
export interface CalibrationFailure {
  /** "its verdict is weak (AUROC 0.600, 95% interval 0.450–0.750)": the verdict and its AUROC, as every message about it starts. */
  readonly verdict: string;
  /** What the verdict means for its threshold. */
  readonly meaning: string;
  /** What to do. */
  readonly advice: string;
}

/**
 * Plain sentences for a calibration that did not pass, shared by the SDK's warning, serve's
 * banner and the evidence report so that each says the same: what the verdict means, and
 * what to do. Undefined for a passing one.
 */
export function explainCalibrationFailure(c: CalibrationEvidence): CalibrationFailure | undefined {
  if (c.verdict === "pass") return undefined;
  const ci = c.auroc ? `the AUROC's 95% interval (${c.auroc.low.toFixed(3)}–${c.auroc.high.toFixed(3)})` : undefined;
  const verdict = `its verdict is ${c.verdict ?? "not recorded"}${c.auroc ? ` (AUROC ${c.auroc.value.toFixed(3)}, 95% interval ${c.auroc.low.toFixed(3)}–${c.auroc.high.toFixed(3)})` : ""}`;
  if (c.verdict === "anti-correlated") {
    return {
      verdict,
      meaning: `${ci ?? "the AUROC's 95% interval"} lies below 0.5, so on the labelled set higher scores went with answers labelled NOT grounded, and the threshold fitted on it is not evidence`,
      advice: 'check which way the labels point (1 must mean grounded), then run "groundwatch calibrate" again',
    };
  }
  if (c.verdict === "weak") {
    return {
      verdict,
      meaning: `${ci ?? "the AUROC's 95% interval"} includes 0.5, so the labelled set has not shown that the score separates grounded from ungrounded answers, and the threshold fitted on it is not evidence`,
      advice:
        typeof c.labelsToSettle === "number" && c.labelsToSettle > 0
          ? `label more answers (calibrate estimated that about ${c.labelsToSettle} more labelled rows would settle it at this effect size), then run "groundwatch calibrate" again`
          : c.labelsToSettle === null
            ? 'calibrate estimated that no realistic labelled set would settle it at this effect size: the signal is not there with this backend (try a production backend, then run "groundwatch calibrate" again)'
            : 'label more answers and run "groundwatch calibrate" again',
    };
  }
  return {
    verdict,
    meaning: "the calibration records no AUROC interval or verdict, so nothing shows that its threshold separates grounded from ungrounded answers",
    advice: 'run "groundwatch calibrate" on a labelled set to get one',
  };
}

/** A scoring backend as a calibration records it, or as it scores: name, version (the model, for onnx and judge) and tier. */
export interface BackendIdentity {
  readonly name: string;
  /** The model behind the backend: onnx's model folder and graph, the judge's model, the offline model's version. */
  readonly version?: string | undefined;
  readonly tier?: string | undefined;
}

/** What a calibration was fitted on, as calibrate records it in calibration.json's "dataset". */
export interface DatasetFingerprint {
  /** The --set path as the user gave it ("-" for standard input). */
  readonly path: string;
  /** Rows the AUROC and threshold were fitted on. */
  readonly rows: number | undefined;
  /** sha256 of the set's bytes (hex). */
  readonly sha256: string;
  /** True when the bytes are one of groundwatch's own example files (by hash, whatever the path). */
  readonly bundled: boolean;
  /** Present when the set's rows came from production review (`groundwatch review export`): how many, by how many reviewers, and when the answers were scored. */
  readonly production?: ProductionProvenance;
}

/** Labels from production review in a labelled set: rows carrying review fields, distinct reviewers, and the first and last time those answers were scored (ISO 8601). */
export interface ProductionProvenance {
  readonly rows: number;
  readonly reviewers: number;
  readonly from: string;
  readonly to: string;
}

/** Where a calibration came from: what the SDK, serve, doctor and evidence check before trusting it. */
export interface CalibrationProvenance {
  /** The file it was read from. */
  readonly path: string;
  /** Short hash of the file's bytes: the calibration_id the metrics carry. */
  readonly id: string;
  /** Undefined for a file written before calibrate recorded one ("fingerprint unknown"). */
  readonly dataset: DatasetFingerprint | undefined;
  readonly backend: BackendIdentity | undefined;
}

/** Why a calibration cannot be taken as the user's: each is warned about; those marked `refusesDrift` also refuse its drift reference. */
export type CalibrationCaveatKind = "bundled_examples" | "other_backend" | "fingerprint_unknown";

export interface CalibrationCaveat {
  readonly kind: CalibrationCaveatKind;
  /** One plain sentence, the same in the SDK's warning, serve's banner, doctor and evidence. */
  readonly message: string;
  /** Whether drift against this calibration's reference scores is refused. */
  readonly refusesDrift: boolean;
}

const describeBackend = (b: BackendIdentity): string => `${b.name}${b.version ? `/${b.version}` : ""}`;

/**
 * Whether a calibration fitted with `fitted` applies to scores from `scoring`: a different backend
 * name is another backend; a different version (the model) is another model. Undefined when it
 * cannot be told (the calibration records no backend, or the scoring backend is not known yet, "auto").
 */
export function backendMismatch(fitted: BackendIdentity | undefined, scoring: BackendIdentity | undefined): boolean | undefined {
  if (!fitted || !scoring || scoring.name === "auto") return undefined;
  if (fitted.name !== scoring.name) return true;
  if (fitted.version !== undefined && scoring.version !== undefined) return fitted.version !== scoring.version;
  return undefined;
}

/**
 * The caveats of a calibration against the backend that scores (when known): fitted on
 * groundwatch's bundled examples, fitted with another backend or model, or a file that does not
 * say what it was fitted on. Empty when it can be taken as the user's.
 */
export function calibrationCaveats(cal: CalibrationProvenance, scoring?: BackendIdentity): CalibrationCaveat[] {
  const caveats: CalibrationCaveat[] = [];
  if (!cal.dataset) {
    caveats.push({ kind: "fingerprint_unknown", refusesDrift: false, message: `fingerprint unknown: ${cal.path} does not record which labelled set it was fitted on (written by an older groundwatch calibrate); run groundwatch calibrate again on labelled answers of your own` });
  } else if (cal.dataset.bundled) {
    caveats.push({
      kind: "bundled_examples",
      refusesDrift: true,
      message: `calibrated on groundwatch's bundled examples (${cal.dataset.path}), not your data: its threshold, AUROC and drift reference say nothing about your service. Label answers of your own (groundwatch init writes a starter set) and run groundwatch calibrate on them`,
    });
  }
  if (backendMismatch(cal.backend, scoring) === true && cal.backend && scoring) {
    caveats.push({ kind: "other_backend", refusesDrift: true, message: `fitted with backend ${describeBackend(cal.backend)}, scoring uses ${describeBackend(scoring)}: its threshold and drift reference do not transfer; run groundwatch calibrate again with the backend that scores` });
  }
  return caveats;
}
