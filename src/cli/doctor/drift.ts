import type { Calibration } from "../../config/calibration-file.ts";
import type { BackendIdentity } from "../../core/calibration.ts";
import { describePerRoute, driftRefusal, resolveDrift } from "../../sdk/drift-options.ts";
import { sanitizeForTerminal } from "../shared/io.ts";

/** doctor's line on a calibration's drift reference, or undefined when there is nothing to say (a plain set's pooled reference, as always). */
export interface DriftReferenceCheck {
  readonly status: "PASS" | "WARN";
  readonly what: "drift reference";
  readonly detail: string;
  readonly fix?: string;
}

/**
 * What drift will make of a calibration's reference at the default drift.minScores (the monitor's
 * own `drift` settings may differ): refused, with why and what to do; per route, with each route's
 * size and those too small to use; nothing to say for a plain set's pooled reference.
 */
export function driftReferenceCheck(cal: Calibration, scoring: BackendIdentity | undefined): DriftReferenceCheck | undefined {
  const backend = scoring ?? { name: "auto" };
  const refused = driftRefusal(cal, backend, 20);
  const firstWindow = "drift compares each route with its own first window instead";
  if (refused?.reason === "bundled_examples" || refused?.reason === "other_backend") {
    return { status: "WARN", what: "drift reference", detail: `refused: ${refused.reason === "bundled_examples" ? "fitted on groundwatch's bundled examples" : "fitted with another backend or model"}; ${firstWindow}`, fix: "calibrate on labelled answers of your own, with the backend that scores" };
  }
  if (refused && cal.driftReference) return { status: "WARN", what: "drift reference", detail: `refused: ${refused.message}; ${firstWindow}`, fix: "calibrate on every reviewed answer of a groundwatch review export (--only all), alone, and review more of each route's grounded sample" };
  if (cal.driftReference?.kind !== "per_route") return undefined;
  const status = resolveDrift({}, cal, backend.name).referenceStatus;
  if (status.source === "none" || !status.perRoute) return undefined;
  // Route labels come from the file: printable only.
  const line = sanitizeForTerminal(describePerRoute(status.perRoute, 200));
  return status.perRoute.refused.length > 0 ? { status: "WARN", what: "drift reference", detail: line, fix: "review more of those routes' grounded sample, export and calibrate again" } : { status: "PASS", what: "drift reference", detail: line };
}
