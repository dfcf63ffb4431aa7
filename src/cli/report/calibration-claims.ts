import type { Calibration } from "../../config/calibration-file.ts";
import { ratesAt } from "../../core/calibration-fit.ts";
import { verdictRatesText } from "./labels.ts";

/**
 * A calibration's claims about its own threshold, checked from the file alone: the TPR and FPR it
 * states against what its threshold gives on the rows it records. doctor prints it; evidence shows it.
 */

/** One doctor line (doctor.ts's Check). */
export interface RecheckLine {
  readonly status: "PASS" | "WARN" | "FAIL" | "INFO";
  readonly what: string;
  readonly detail: string;
  readonly fix?: string;
}

export const RERUN = "run groundwatch calibrate again: it stores a threshold that splits the fitted rows as it reports, and counts rates from the scorer's verdicts";
const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;

/** The file's claimed TPR and FPR against what its threshold gives on its fitted rows. */
export function checkClaimedRates(cal: Calibration): RecheckLine | undefined {
  const claimed = cal.claimed;
  if (!cal.fittedRows) {
    return claimed
      ? { status: "WARN", what: "calibration rates", detail: `the file claims TPR ${pct(claimed.tpr)}, FPR ${pct(claimed.fpr)} but does not record the rows they were counted on (an older groundwatch calibrate, which counted answers with a contradicted claim as passing and rounded the threshold): they cannot be checked`, fix: RERUN }
      : undefined;
  }
  const rates = ratesAt(cal.fittedRows, cal.threshold);
  const counted = `${verdictRatesText(rates)} on its ${cal.fittedRows.length} fitted rows`;
  if (!claimed) return { status: "WARN", what: "calibration rates", detail: `the file records no TPR/FPR; its threshold ${cal.threshold} gives ${counted}` };
  const c = claimed.counts;
  const same = Math.abs(rates.tpr - claimed.tpr) < 1e-12 && Math.abs(rates.fpr - claimed.fpr) < 1e-12 && (!c || (c.groundedPassed === rates.groundedPassed && c.groundedFlagged === rates.groundedFlagged && c.ungroundedPassed === rates.ungroundedPassed && c.ungroundedFlagged === rates.ungroundedFlagged));
  return same
    ? { status: "PASS", what: "calibration rates", detail: `threshold ${cal.threshold} gives ${counted}, as the file says` }
    : { status: "FAIL", what: "calibration rates", detail: `the file claims TPR ${pct(claimed.tpr)}, FPR ${pct(claimed.fpr)}, but its threshold ${cal.threshold} gives ${counted}`, fix: RERUN };
}
