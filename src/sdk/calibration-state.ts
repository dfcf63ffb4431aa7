import type { Attributes } from "@opentelemetry/api";
import { diag } from "@opentelemetry/api";
import type { BackendIdentity } from "../core/calibration.ts";
import { calibrationCaveats, explainCalibrationFailure } from "../core/calibration.ts";
import { ATTR_BACKEND_MODEL, ATTR_BACKEND_NAME, ATTR_BACKEND_TIER, ATTR_CALIBRATION_ID, ATTR_THRESHOLD, METRICS } from "../telemetry/semconv.ts";
import type { WeightedSample } from "../core/drift.ts";
import type { DriftReferenceRefusal, DriftRefusedReason } from "./drift-options.ts";
import { describeRouteSize, driftRefusal, listSome } from "./drift-options.ts";
import type { ResolvedMonitorOptions } from "./types.ts";
import type { Calibration } from "../config/calibration-file.ts";
import { readCalibrationFile } from "../config/calibration-file.ts";
import { ConfigError } from "../config/errors.ts";
import { parseBoolean, parseNonEmpty } from "../config/parse.ts";
import type { FieldReader } from "../config/resolve.ts";
import { fileRelativePath } from "../config/resolve.ts";

/**
 * The calibration in force (calibrationFile: option > GROUNDWATCH_CALIBRATION > the config file's
 * monitor section, a path there relative to the file's folder) and requireValidCalibration, which
 * refuses one whose verdict is not "pass" with a ConfigError saying why (explainCalibrationFailure).
 */
export function resolveCalibration(read: FieldReader<"calibrationFile" | "requireValidCalibration">, configFile: string | undefined): { readonly calibration: Calibration | undefined; readonly requireValidCalibration: boolean } {
  const picked = read.field("calibrationFile", parseNonEmpty);
  const path = fileRelativePath(picked, configFile);
  const calibration = path !== undefined ? readCalibrationFile(path, picked.source === "file" ? picked.field : "calibrationFile") : undefined;
  const requireValidCalibration = read("requireValidCalibration", parseBoolean, false);
  const failed = calibration && requireValidCalibration ? explainCalibrationFailure(calibration) : undefined;
  if (failed) throw new ConfigError("calibrationFile", path, `${failed.verdict}, and requireValidCalibration is set: ${failed.meaning}; ${failed.advice}`);
  return { calibration, requireValidCalibration };
}

/**
 * Where the calibration in force stands as scoring goes: its caveats said once each (diag.warn),
 * the drift reference each new route gets, why the calibration's reference was refused (whole, or
 * a route's), and what the latest evaluation was scored with, for groundwatch.scoring.info.
 */
export interface CalibrationState {
  /** Called with each result: the first one names the backend that scores, so a calibration fitted with another is warned about and its drift reference refused. */
  scored(backend: BackendIdentity, threshold: number | null): void;
  /** The reference for a route's drift tracker (by route label); undefined: the route's own first window. */
  driftReference(route: string): WeightedSample | undefined;
  /**
   * References refused, by reason (groundwatch.drift.reference_refused): the calibration's (1), or
   * per route — routes whose reference is too small (`too_few_scores`) and routes seen live that a
   * per-route reference does not name (`no_route_reference`).
   */
  driftRefused(): Readonly<Partial<Record<DriftRefusedReason, number>>>;
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
  const firstWindow = `its first ${resolved.drift.windowSize} scores become its reference instead`;
  const warnRefused = (r: DriftReferenceRefusal): void => diag.warn(`groundwatch: drift runs without a reference: ${r.message}; each route's first ${resolved.drift.windowSize} scores become its reference instead.`);
  warnCaveats(backend !== "auto" ? { name: backend } : undefined);
  const status = resolved.drift.referenceStatus;
  let refused = status.source === "none" ? status.refused : undefined;
  if (refused) warnRefused(refused);
  const routesRefused = status.source === "calibration" ? (status.perRoute?.refused ?? []) : [];
  const refusedNames = new Set(routesRefused.map((r) => r.route));
  if (routesRefused.length > 0) {
    diag.warn(`groundwatch: drift on ${routesRefused.length === 1 ? "a route" : `${routesRefused.length} routes`} runs without the calibration's reference, worth fewer than drift.minScores (${resolved.drift.minScores}) answers (${listSome(routesRefused.map(describeRouteSize))}): ${firstWindow}.`);
  }
  let reference = resolved.drift.reference;
  let routeReferences = resolved.drift.routeReferences;
  /** Live routes a per-route reference does not name (route labels: bounded by the route cap). */
  const unnamed = new Set<string>();
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
        routeReferences = undefined;
        warnRefused(why);
      }
    },
    driftReference(route) {
      if (!routeReferences) return reference ? { scores: reference } : undefined;
      const own = routeReferences.get(route);
      if (!own && !refusedNames.has(route) && !unnamed.has(route)) {
        if (unnamed.size === 0) diag.warn(`groundwatch: the calibration's per-route drift reference does not name route ${route} (no reviewed answers of it): ${firstWindow}; such routes are counted on ${METRICS.driftReferenceRefused.prometheus}{groundwatch_reason="no_route_reference"}.`);
        unnamed.add(route);
      }
      return own;
    },
    driftRefused() {
      if (refused) return { [refused.reason]: 1 };
      if (!routeReferences) return {};
      return { ...(routesRefused.length > 0 ? { too_few_scores: routesRefused.length } : {}), ...(unnamed.size > 0 ? { no_route_reference: unnamed.size } : {}) };
    },
    scoringInfo() {
      if (!last) return undefined;
      const { backend: b, threshold } = last;
      return { threshold, attributes: { [ATTR_BACKEND_NAME]: b.name, [ATTR_BACKEND_TIER]: b.tier ?? "", [ATTR_BACKEND_MODEL]: b.version ?? "", [ATTR_THRESHOLD]: String(threshold), [ATTR_CALIBRATION_ID]: cal?.id ?? "none" } };
    },
  };
}
