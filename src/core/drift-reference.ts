import type { WeightedSample } from "./drift.ts";
import { effectiveSize } from "./drift.ts";
import { asPlainObject } from "./plain-object.ts";

/**
 * The drift reference a labelled set's scores make, and whether they can make one. A drift
 * reference must describe the traffic it is compared with. A plain labelled set stands for itself:
 * one pooled reference, every score counted once. A set exported from production review does not:
 * it holds every flagged answer but only a sample of the grounded ones (5%, 50%), from every route
 * at once. Its scores are therefore weighted by the chance each answer had of being in the set
 * (the rate its kind was spooled at, times the share of its route's spooled answers of that kind
 * that were reviewed and exported), and kept per route, so that route R's live scores are compared
 * with route R's answers. A set whose rows cannot be weighted is refused, with its reason. Pure.
 */

/** Why a labelled set's scores cannot stand for live traffic (calibration.json's driftReference.refused.reason). */
export type DriftSetRefusalReason = "selected_by_label" | "mixed_set" | "no_sample_rate";
export const DRIFT_SET_REFUSAL_REASONS = ["selected_by_label", "mixed_set", "no_sample_rate"] as const satisfies readonly DriftSetRefusalReason[];

/** One scored row of a labelled set: its score and its `review` field as read (present on a row exported from production review). */
export interface ReferenceRow {
  readonly score: number;
  readonly review?: unknown;
}

/** One route's reference: its answers' scores, each weighing the answers it stands for. */
export interface RouteReference extends WeightedSample {
  readonly route: string;
  readonly weights: readonly number[];
}

/** What a labelled set's scores make: a pooled reference (a plain set), one per route (a review export), or none, with why. */
export type SetDriftReference =
  | { readonly kind: "pooled"; readonly scores: readonly number[] }
  | { readonly kind: "per_route"; readonly routes: readonly RouteReference[] }
  | { readonly kind: "refused"; readonly reason: DriftSetRefusalReason; readonly rows: number };

const rate = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) && v > 0 && v <= 1 ? v : undefined);

/** A review row's route and weight (1 / (sampleRate × reviewedShare)), or undefined when it does not carry them. */
function weightOf(review: Record<string, unknown>): { readonly route: string; readonly weight: number } | undefined {
  const sampleRate = rate(review.sampleRate);
  const share = rate(review.reviewedShare);
  const route = review.route;
  if (sampleRate === undefined || share === undefined || typeof route !== "string" || route === "") return undefined;
  return { route, weight: 1 / (sampleRate * share) };
}

/**
 * The drift reference of a labelled set's scored rows. Rows without a `review` object: one pooled,
 * unweighted reference. Rows with one: a weighted reference per route, or refused —
 * `selected_by_label` when any row was exported for its label (review export --only disagreements),
 * `mixed_set` when review rows and plain rows are mixed, `no_sample_rate` when a review row lacks
 * its route, sample rate or reviewed share (exported by an older groundwatch); `rows` counts the
 * rows that refuse it.
 */
export function buildDriftReference(rows: readonly ReferenceRow[]): SetDriftReference {
  const reviews = rows.map((r) => asPlainObject(r.review));
  const reviewed = reviews.filter((r) => r !== undefined);
  if (reviewed.length === 0) return { kind: "pooled", scores: rows.map((r) => r.score) };
  const selected = reviewed.filter((r) => r.selected !== undefined).length;
  if (selected > 0) return { kind: "refused", reason: "selected_by_label", rows: selected };
  if (reviewed.length < rows.length) return { kind: "refused", reason: "mixed_set", rows: rows.length - reviewed.length };
  const byRoute = new Map<string, { scores: number[]; weights: number[] }>();
  let unweighted = 0;
  rows.forEach((row, i) => {
    const at = weightOf(reviews[i] ?? {});
    if (!at) {
      unweighted++;
      return;
    }
    let route = byRoute.get(at.route);
    if (!route) byRoute.set(at.route, (route = { scores: [], weights: [] }));
    route.scores.push(row.score);
    route.weights.push(at.weight);
  });
  if (unweighted > 0) return { kind: "refused", reason: "no_sample_rate", rows: unweighted };
  return { kind: "per_route", routes: [...byRoute].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([route, r]) => ({ route, ...r })) };
}

/** One sentence on why a set's scores were refused as a drift reference: the same in calibrate, the SDK's warning, serve's banner, doctor and evidence. */
export function describeSetRefusal(reason: DriftSetRefusalReason, rows: number): string {
  const n = `${rows} row${rows === 1 ? "" : "s"}`;
  switch (reason) {
    case "selected_by_label":
      return `the set was exported for its labels (review export --only disagreements: ${n}), so its scores do not stand for the traffic; export every reviewed answer (--only all) to calibrate on`;
    case "mixed_set":
      return `the set mixes answers from production review with ${n} of another labelled set, so its scores stand for neither's traffic; calibrate on the review export alone`;
    case "no_sample_rate":
      return `${n} from production review do not say their route and the rate they were sampled at (exported by an older groundwatch), so they cannot be weighted to stand for the traffic; export them again with groundwatch review export`;
  }
}

/** How a route's reference stands: its rows and how many equally weighted answers they are worth. */
export interface RouteReferenceSize {
  readonly route: string;
  readonly rows: number;
  /** effectiveSize (core/drift.ts), rounded down: what drift.minScores is compared with. */
  readonly effective: number;
}

/** The size of a route's reference, in rows and in equally weighted answers (drift counts the latter). */
export function routeReferenceSize(r: RouteReference): RouteReferenceSize {
  // A hair below a whole number (floating point) is that number: 20 weights of 1 are worth 20 answers.
  return { route: r.route, rows: r.scores.length, effective: Math.floor(effectiveSize(r) + 1e-9) };
}
