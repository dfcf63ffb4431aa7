import type { DriftSetRefusalReason, RouteReference, SetDriftReference } from "../core/drift-reference.ts";
import { DRIFT_SET_REFUSAL_REASONS } from "../core/drift-reference.ts";
import { ConfigError } from "./errors.ts";
import { asPlainObject } from "../core/plain-object.ts";

/**
 * calibration.json's drift reference fields, written by `groundwatch calibrate` and read back with
 * every field checked. A plain labelled set keeps the one pooled `referenceScores` array, as files
 * always had. A set from production review writes `referenceScores: []` (so an older groundwatch,
 * which would compare every route with the pooled review sample, refuses it as too short) and
 * `driftReference`: `{"weighting": "sample_rate", "routes": [{"route", "scores", "weights"}]}`, or
 * `{"refused": {"reason", "rows"}}` when its rows cannot stand for live traffic.
 */

/** What calibration.json says drift should use beyond `referenceScores`; undefined: the pooled `referenceScores` (a plain set, or a file written before). */
export type CalibrationDriftReference = Exclude<SetDriftReference, { readonly kind: "pooled" }>;

/** How weighted scores are written: the weights come from the rates the answers were sampled at. */
const WEIGHTING = "sample_rate";

/** The reference fields calibrate writes into calibration.json for a set's drift reference (scores to 6 decimals). */
export function driftReferenceFields(ref: SetDriftReference): { referenceScores: number[]; driftReference?: Record<string, unknown> } {
  const round = (x: number): number => Number(x.toFixed(6));
  if (ref.kind === "pooled") return { referenceScores: ref.scores.map(round) };
  if (ref.kind === "refused") return { referenceScores: [], driftReference: { refused: { reason: ref.reason, rows: ref.rows } } };
  return { referenceScores: [], driftReference: { weighting: WEIGHTING, routes: ref.routes.map((r) => ({ route: r.route, scores: r.scores.map(round), weights: r.weights.map((w) => Number(w.toPrecision(10))) })) } };
}

const finite = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

/**
 * calibration.json's "driftReference" (undefined when the file has none: a plain set, or a file
 * written before calibrate weighted review sets); anything malformed is a ConfigError naming `field`,
 * the path and the offending key.
 */
export function readDriftReference(v: unknown, field: string, path: string): CalibrationDriftReference | undefined {
  if (v === undefined) return undefined;
  const bad = (key: string, what: string): ConfigError => new ConfigError(field, path, `"driftReference${key}" ${what}`);
  const d = asPlainObject(v);
  if (!d) throw bad("", "is not a JSON object");
  if (d.refused !== undefined) {
    const r = asPlainObject(d.refused);
    if (!r) throw bad(".refused", "is not a JSON object");
    if (!(DRIFT_SET_REFUSAL_REASONS as readonly unknown[]).includes(r.reason)) throw bad(".refused.reason", `is not one of ${DRIFT_SET_REFUSAL_REASONS.join(", ")}`);
    if (!finite(r.rows) || !Number.isInteger(r.rows) || r.rows < 0) throw bad(".refused.rows", "is not a whole number");
    return { kind: "refused", reason: r.reason as DriftSetRefusalReason, rows: r.rows };
  }
  if (d.weighting !== WEIGHTING) throw bad(".weighting", `is not "${WEIGHTING}"`);
  if (!Array.isArray(d.routes)) throw bad(".routes", "is not an array");
  const seen = new Set<string>();
  const routes: RouteReference[] = d.routes.map((entry: unknown, i): RouteReference => {
    const at = `.routes[${i}]`;
    const e = asPlainObject(entry);
    if (!e) throw bad(at, "is not a JSON object");
    if (typeof e.route !== "string" || e.route === "") throw bad(`${at}.route`, "is not a route label");
    if (seen.has(e.route)) throw bad(`${at}.route`, "names a route listed before");
    seen.add(e.route);
    const { scores, weights } = e;
    if (!Array.isArray(scores) || !scores.every(finite)) throw bad(`${at}.scores`, "is not an array of numbers");
    if (!Array.isArray(weights) || weights.length !== scores.length || !weights.every((w) => finite(w) && w > 0)) throw bad(`${at}.weights`, "is not an array of positive numbers, one per score");
    return { route: e.route, scores: scores as number[], weights: weights as number[] };
  });
  return { kind: "per_route", routes };
}
