import type { Calibration } from "../config/calibration-file.ts";
import { ConfigError } from "../config/errors.ts";
import type { Parser } from "../config/parse.ts";
import { integerIn, parseInteger } from "../config/parse.ts";
import { fieldReader } from "../config/resolve.ts";
import { isPlainObject } from "../core/plain-object.ts";
import type { BackendIdentity, CalibrationCaveatKind } from "../core/calibration.ts";
import { calibrationCaveats } from "../core/calibration.ts";
import type { DriftSetRefusalReason, RouteReference, RouteReferenceSize } from "../core/drift-reference.ts";
import { describeSetRefusal, routeReferenceSize } from "../core/drift-reference.ts";

/**
 * Which reference drift compares each route's recent scores with: `drift.reference` (the user's,
 * one for every route), a calibration's pooled reference scores (a plain labelled set), a
 * calibration's per-route weighted references (a set from production review: route R's live scores
 * against route R's reviewed answers), or none (each route's first full window becomes its own).
 * A calibration's reference is refused, with its reason, when it cannot stand for the live traffic.
 */

/** `drift` of MonitorOptions. */
export interface DriftOptionsInput {
  readonly windowSize?: number;
  readonly minScores?: number;
  readonly reference?: readonly number[];
}

/**
 * The drift reference in force: from the `drift.reference` option, from the calibration's reference
 * scores, or none (each route's first full window becomes its reference); `refused` when the
 * calibration's scores cannot be one: too few of them, fitted on groundwatch's bundled examples,
 * fitted with another backend than the one that scores, or a set whose rows cannot stand for live
 * traffic. A calibration from production review has one reference per route (`perRoute`): the
 * routes whose reference is used, and those refused for too few rows (they use their first window).
 */
export type DriftReferenceStatus =
  | { readonly source: "option" | "calibration"; readonly scores: number; readonly perRoute?: { readonly routes: readonly RouteReferenceSize[]; readonly refused: readonly RouteReferenceSize[] } }
  | { readonly source: "none"; readonly refused?: DriftReferenceRefusal };

/** Why the calibration's reference scores are not the drift reference (counted on groundwatch.drift.reference_refused by reason). */
export interface DriftReferenceRefusal {
  readonly reason: "too_few_scores" | Extract<CalibrationCaveatKind, "bundled_examples" | "other_backend"> | DriftSetRefusalReason;
  /** The calibration's reference scores (rows), and the fewest a reference needs. */
  readonly scores: number;
  readonly minScores: number;
  /** One plain sentence saying why. */
  readonly message: string;
}

/**
 * What groundwatch.drift.reference_refused counts, by reason: a calibration's reference refused
 * whole, a route's refused for too few answers (`too_few_scores`), or a live route that a per-route
 * reference does not name (`no_route_reference`).
 */
export type DriftRefusedReason = DriftReferenceRefusal["reason"] | "no_route_reference";

/** A route's reference refused for too few answers, said the same way in the SDK's warning, serve's banner and doctor. */
export function describeRouteSize(r: RouteReferenceSize): string {
  return `${r.route}: ${r.rows} row${r.rows === 1 ? "" : "s"}, worth ${r.effective} answer${r.effective === 1 ? "" : "s"}`;
}

/** The first few of a list, and how many more. */
export function listSome(items: readonly string[], max = 5): string {
  return items.length <= max ? items.join("; ") : `${items.slice(0, max).join("; ")}; and ${items.length - max} more`;
}

/** A calibration's per-route references split by drift.minScores: those worth at least that many answers, and those not. */
export function splitRouteReferences(calibration: Pick<Calibration, "driftReference">, minScores: number): { readonly used: readonly RouteReference[]; readonly sizes: readonly RouteReferenceSize[]; readonly refused: readonly RouteReferenceSize[] } | undefined {
  const ref = calibration.driftReference;
  if (ref?.kind !== "per_route") return undefined;
  const sized = ref.routes.map((r) => ({ r, size: routeReferenceSize(r) }));
  const used = sized.filter((s) => s.size.effective >= minScores);
  return { used: used.map((s) => s.r), sizes: used.map((s) => s.size), refused: sized.filter((s) => s.size.effective < minScores).map((s) => s.size) };
}

/**
 * Why a calibration's reference cannot be the drift reference against scores from `scoring`, or
 * undefined when it can: fitted on groundwatch's bundled examples, fitted with another backend or
 * model, a set whose rows cannot stand for live traffic, or too few scores (a per-route reference:
 * no route worth `minScores` answers).
 */
export function driftRefusal(calibration: Calibration, scoring: BackendIdentity, minScores: number): DriftReferenceRefusal | undefined {
  const ref = calibration.driftReference;
  const scores = ref?.kind === "per_route" ? ref.routes.reduce((n, r) => n + r.scores.length, 0) : ref?.kind === "refused" ? ref.rows : calibration.referenceScores.length;
  const caveat = calibrationCaveats(calibration, scoring).find((c) => c.refusesDrift);
  if (caveat && (caveat.kind === "bundled_examples" || caveat.kind === "other_backend")) {
    const why = caveat.kind === "bundled_examples" ? "it was fitted on groundwatch's bundled examples, not your data" : "it was fitted with another backend or model than the one that scores";
    return { reason: caveat.kind, scores, minScores, message: `the calibration's reference is refused: ${why}` };
  }
  if (ref?.kind === "refused") return { reason: ref.reason, scores, minScores, message: `the calibration's reference is refused: ${describeSetRefusal(ref.reason, ref.rows)}` };
  const perRoute = splitRouteReferences(calibration, minScores);
  if (perRoute && perRoute.used.length === 0) {
    const routes = perRoute.refused.length === 0 ? "it names no route" : `no route's reference is worth drift.minScores (${minScores}) answers (${listSome(perRoute.refused.map(describeRouteSize))})`;
    return { reason: "too_few_scores", scores, minScores, message: `the calibration's reference is weighted per route, and ${routes}` };
  }
  if (!perRoute && scores < minScores) return { reason: "too_few_scores", scores, minScores, message: `the calibration has ${scores} reference scores, fewer than drift.minScores (${minScores})` };
  return undefined;
}

/** A drift reference: scores from 0 to 1, or undefined when not set. */
const parseReference: Parser<readonly number[]> = (field, raw) => {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw) || !raw.every((v) => typeof v === "number" && Number.isFinite(v) && v >= 0 && v <= 1)) throw new ConfigError(field, raw, "expected an array of scores from 0 to 1");
  return raw as readonly number[];
};

/**
 * The drift settings in force, each on its own: the `drift` option's field > the config file's
 * monitor.drift field (no environment variables). A section that is not an object, or a value of
 * the wrong type, is a ConfigError naming where it was set.
 */
export function pickDrift(option: DriftOptionsInput | undefined, fileSection: unknown): DriftOptionsInput {
  if (option !== undefined && !isPlainObject(option)) throw new ConfigError("drift", option, "expected an object");
  if (fileSection !== undefined && !isPlainObject(fileSection)) throw new ConfigError("config file monitor.drift", fileSection, "expected an object");
  const read = fieldReader<keyof DriftOptionsInput>({ options: option ?? {}, file: fileSection, section: "monitor.drift", prefix: "drift." });
  const windowSize = read("windowSize", integerIn(20, 100_000));
  const minScores = read("minScores", integerIn(20, 100_000));
  const reference = read("reference", parseReference);
  return { ...(windowSize !== undefined ? { windowSize } : {}), ...(minScores !== undefined ? { minScores } : {}), ...(reference !== undefined ? { reference } : {}) };
}

/** Drift as the monitor runs it: the window, the minimum, and the reference(s) with their status. */
export interface ResolvedDrift {
  readonly windowSize: number;
  readonly minScores: number;
  /** The one reference every route is compared with (drift.reference, or a plain calibration's scores); undefined otherwise. */
  readonly reference: readonly number[] | undefined;
  /** A calibration from production review: each route's weighted reference (a route not in it: its first window); undefined otherwise. */
  readonly routeReferences: ReadonlyMap<string, RouteReference> | undefined;
  readonly referenceStatus: DriftReferenceStatus;
}

/** Resolves `drift` against the calibration in force and the configured backend; a bad value is a ConfigError naming it. */
export function resolveDrift(drift: DriftOptionsInput, calibration: Calibration | undefined, backend: string): ResolvedDrift {
  const windowSize = parseInteger("drift.windowSize", drift.windowSize, 20, 100_000) ?? 200;
  const minScores = parseInteger("drift.minScores", drift.minScores, 20, 100_000) ?? 20;
  // A reference shorter than minScores never gives a verdict: an explicit one is an error; the
  // calibration's is refused (createMonitor warns), and drift runs without a reference.
  if (drift.reference !== undefined && drift.reference.length < minScores) {
    throw new ConfigError("drift.reference length", drift.reference.length, `expected at least drift.minScores (${minScores}) scores`);
  }
  if (drift.reference !== undefined) return { windowSize, minScores, reference: drift.reference, routeReferences: undefined, referenceStatus: { source: "option", scores: drift.reference.length } };
  if (!calibration) return { windowSize, minScores, reference: undefined, routeReferences: undefined, referenceStatus: { source: "none" } };
  const refused = driftRefusal(calibration, { name: backend }, minScores);
  if (refused) return { windowSize, minScores, reference: undefined, routeReferences: undefined, referenceStatus: { source: "none", refused } };
  const perRoute = splitRouteReferences(calibration, minScores);
  if (!perRoute) return { windowSize, minScores, reference: calibration.referenceScores, routeReferences: undefined, referenceStatus: { source: "calibration", scores: calibration.referenceScores.length } };
  const scores = perRoute.sizes.reduce((n, s) => n + s.rows, 0);
  return {
    windowSize,
    minScores,
    reference: undefined,
    routeReferences: new Map(perRoute.used.map((r) => [r.route, r])),
    referenceStatus: { source: "calibration", scores, perRoute: { routes: perRoute.sizes, refused: perRoute.refused } },
  };
}

/** A per-route reference in one line (serve's banner, doctor): each route's size, and the routes that use their first window instead. */
export function describePerRoute(perRoute: NonNullable<Extract<DriftReferenceStatus, { readonly source: "option" | "calibration" }>["perRoute"]>, windowSize: number): string {
  const used = `reference per route from the calibration, weighted by the rates its reviewed answers were sampled at (${listSome(perRoute.routes.map(describeRouteSize))})`;
  if (perRoute.refused.length === 0) return `${used}; a route it does not name: its first ${windowSize} scores become its reference`;
  return `${used}; too few to stand for their traffic, so their first ${windowSize} scores become their reference: ${listSome(perRoute.refused.map(describeRouteSize))}`;
}
