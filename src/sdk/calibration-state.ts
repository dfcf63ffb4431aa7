import type { Attributes } from "@opentelemetry/api";
import { diag } from "@opentelemetry/api";
import type { BackendIdentity } from "../core/calibration.ts";
import { calibrationCaveats } from "../core/calibration.ts";
import { ATTR_BACKEND_MODEL, ATTR_BACKEND_NAME, ATTR_BACKEND_TIER, ATTR_CALIBRATION_ID, ATTR_THRESHOLD } from "../telemetry/semconv.ts";
import type { DriftReferenceRefusal, ResolvedMonitorOptions } from "./options.ts";
import { driftRefusal } from "./options.ts";

/**
 * Where the calibration in force stands as scoring goes: its caveats said once each (diag.warn),
 * the drift reference new routes get, why the calibration's reference was refused, and what the
 * latest evaluation was scored with, for groundwatch.scoring.info.
 */
export interface CalibrationState {
  /** Called with each result: the first one names the backend that scores, so a calibration fitted with another is warned about and its drift reference refused. */
  scored(backend: BackendIdentity, threshold: number | null): void;
  /** The reference for a route's drift tracker; undefined: the route's own first window. */
  driftReference(): readonly number[] | undefined;
  /** The reason the calibration's reference was refused (groundwatch.drift.reference_refused), if it was. */
  driftRefused(): DriftReferenceRefusal["reason"] | undefined;
  /** groundwatch.scoring.info's attributes and the threshold in force, once anything was scored. */
  scoringInfo(): { readonly attributes: Attributes; readonly threshold: number } | undefined;
}

/** Warns at once about what is known before anything is scored (`backend`: the configured one, "auto" when not known yet). */
export function createCalibrationState(resolved: ResolvedMonitorOptions, backend: string): CalibrationState {
  const cal = resolved.calibration;
  const warned = new Set<string>();
  const warnCaveats = (scoring: BackendIdentity | undefined): void => {
    if (!cal) return;
    for (const c of calibrationCaveats(cal, scoring)) {
      if (warned.has(c.kind)) continue;
      warned.add(c.kind);
      diag.warn(`groundwatch: WARNING: the calibration ${cal.path} (id ${cal.id}): ${c.message}`);
    }
  };
  const warnRefused = (r: DriftReferenceRefusal): void => diag.warn(`groundwatch: drift runs without a reference: ${r.message}; each route's first ${resolved.drift.windowSize} scores become its reference instead.`);
  warnCaveats(backend !== "auto" ? { name: backend } : undefined);
  const status = resolved.drift.referenceStatus;
  let refused = status.source === "none" ? status.refused : undefined;
  if (refused) warnRefused(refused);
  let reference = resolved.drift.reference;
  // Only a calibration's reference is checked against the backend that scores; an explicit drift.reference is the user's.
  let checked = status.source !== "calibration";
  let last: { readonly backend: BackendIdentity; readonly threshold: number } | undefined;
  return {
    scored(scoring, threshold) {
      if (threshold !== null) last = { backend: scoring, threshold };
      if (checked) return;
      checked = true;
      warnCaveats(scoring);
      const why = cal ? driftRefusal(cal, scoring, resolved.drift.minScores) : undefined;
      if (why) {
        refused = why;
        reference = undefined;
        warnRefused(why);
      }
    },
    driftReference: () => reference,
    driftRefused: () => refused?.reason,
    scoringInfo() {
      if (!last) return undefined;
      const { backend: b, threshold } = last;
      return { threshold, attributes: { [ATTR_BACKEND_NAME]: b.name, [ATTR_BACKEND_TIER]: b.tier ?? "", [ATTR_BACKEND_MODEL]: b.version ?? "", [ATTR_THRESHOLD]: String(threshold), [ATTR_CALIBRATION_ID]: cal?.id ?? "none" } };
    },
  };
}
