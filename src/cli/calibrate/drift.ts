import { driftReferenceFields } from "../../config/drift-reference-file.ts";
import type { SetDriftReference } from "../../core/drift-reference.ts";
import { buildDriftReference, describeSetRefusal, routeReferenceSize } from "../../core/drift-reference.ts";
import { describeRouteSize, listSome } from "../../sdk/drift-options.ts";
import { sanitizeForTerminal } from "../shared/io.ts";

/** drift.minScores' default: a route's reference worth fewer answers is not used unless the monitor lowers it. */
const DEFAULT_MIN_SCORES = 20;

/** calibrate's drift reference: what it writes into calibration.json, and what it says about it. */
export interface CalibrateDrift {
  /** `referenceScores`, and `driftReference` for a set from production review. */
  readonly fields: ReturnType<typeof driftReferenceFields>;
  /** Lines for standard output (empty for a plain set: its reference is its scores, as always). */
  readonly lines: readonly string[];
  /** A warning for standard error when the set's scores cannot stand for live traffic. */
  readonly warning: string | undefined;
}

/**
 * Collects each row's `review` as calibrate reads the set (`add`), then builds the drift reference
 * from the rows that were scored (`build`): a plain set's scores pooled, a review export's weighted
 * per route, or refused with its reason (core/drift-reference.ts).
 */
export function calibrateDrift(): { add(id: string | number, row: unknown): void; build(scored: ReadonlyArray<{ readonly id: string | number; readonly score: number }>): CalibrateDrift } {
  const reviews = new Map<string | number, unknown>();
  return {
    add(id, row) {
      const review = row && typeof row === "object" ? (row as { review?: unknown }).review : undefined;
      if (review !== undefined) reviews.set(id, review);
    },
    build(scored) {
      const ref = buildDriftReference(scored.map((r) => ({ score: r.score, review: reviews.get(r.id) })));
      return { fields: driftReferenceFields(ref), ...said(ref) };
    },
  };
}

function said(ref: SetDriftReference): { lines: string[]; warning: string | undefined } {
  if (ref.kind === "pooled") return { lines: [], warning: undefined };
  if (ref.kind === "refused") return { lines: [], warning: `groundwatch calibrate: WARNING: no drift reference written: ${describeSetRefusal(ref.reason, ref.rows)}. The SDK and serve will refuse it for drift (reason ${ref.reason}) and compare each route with its own first window of scores.\n` };
  const sizes = ref.routes.map(routeReferenceSize);
  const small = sizes.filter((s) => s.effective < DEFAULT_MIN_SCORES);
  const lines = [sanitizeForTerminal(`drift reference: per route, each reviewed answer weighted by the rate it was sampled at (${listSome(sizes.map(describeRouteSize), 10)})`)];
  if (small.length > 0) lines.push(sanitizeForTerminal(`  worth fewer than drift.minScores (${DEFAULT_MIN_SCORES}) answers, so drift on ${small.length === 1 ? "that route" : "those routes"} will use ${small.length === 1 ? "its" : "their"} first window instead: ${listSome(small.map(describeRouteSize), 10)}; review more of ${small.length === 1 ? "its" : "their"} grounded sample to give ${small.length === 1 ? "it" : "them"} one`));
  return { lines, warning: undefined };
}
