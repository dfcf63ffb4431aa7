import type { Calibration } from "../../config/calibration-file.ts";
import { ratesAt } from "../../core/calibration-fit.ts";
import { escapeHtml } from "../shared/escape.ts";
import { checkClaimedRates } from "./calibration-claims.ts";
import { verdictRatesText } from "./labels.ts";

const share = (k: number, n: number): string => `${k} of ${n}${n > 0 ? ` (${(100 * (k / n)).toFixed(1)}%)` : ""}`;

/**
 * The evidence report's account of what a calibration's threshold does: its rates counted again
 * from the rows it was fitted on (in red when the file claims others), and what it did to each class
 * of the labelled set beside the threshold in force when it was fitted, as calibrate printed it.
 * Empty for a file that records neither (an older calibrate).
 */
export function calibrationOutcomesHtml(calibration: Calibration): string {
  const parts: string[] = [];
  if (calibration.fittedRows) {
    const check = checkClaimedRates(calibration);
    const rates = verdictRatesText(ratesAt(calibration.fittedRows, calibration.threshold));
    parts.push(
      check?.status === "FAIL"
        ? `<p class="over">What the threshold does on the ${calibration.fittedRows.length} rows it was fitted on: ${escapeHtml(rates)}. ${escapeHtml(check.detail)}: the file's own figures are wrong; run groundwatch calibrate again.</p>`
        : `<p>What the threshold does on the ${calibration.fittedRows.length} rows it was fitted on, by the scorer's verdicts: ${escapeHtml(rates)}.</p>`,
    );
  } else if (calibration.claimed) {
    parts.push(`<p class="no-data">The file's TPR and FPR cannot be checked: it does not record the rows they were counted on (written by an older groundwatch calibrate).</p>`);
  }
  const c = calibration.comparison;
  if (c) {
    const rows = c.classes.map((k) => {
      const worse = k.right.proposed < k.right.inForce;
      const what = k.label === 1 ? "grounded answers passed" : `not grounded, ${k.name}: caught`;
      return `<tr><td>${escapeHtml(what)}</td><td>${k.rows}</td><td>${share(k.right.inForce, k.rows)}</td><td class="${worse ? "over" : ""}">${share(k.right.proposed, k.rows)}</td></tr>`;
    });
    parts.push(
      `<h3>What the threshold did to each class of the labelled set</h3><p>Beside the threshold in force when it was fitted: ${escapeHtml(String(c.inForce.threshold))} (${escapeHtml(c.inForce.source)}). In red: a class it gets fewer of right.</p><table><tr><th>class</th><th>rows</th><th>at ${escapeHtml(String(c.inForce.threshold))}</th><th>at ${escapeHtml(String(calibration.threshold))}</th></tr>${rows.join("")}</table>`,
    );
  }
  return parts.join("\n");
}
