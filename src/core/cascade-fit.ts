import type { ClaimResult, TriageThresholds } from "./result.ts";
import { DECIDE_NOTHING, triageDecision } from "./triage.ts";

/**
 * Fitting the cascade's thresholds (core/triage.ts) from the cheap tier's claim scores and labelled
 * answers: the widest thresholds whose decided answers are right at least `target` of the time on
 * every set's fit half, kept only where they hold on every set's check half as well.
 *
 * An answer is decided unsupported when one of its claims is (its verdict is ungrounded whatever
 * the model says of the others), and supported when every claim is; a claim that cites a source
 * never is (core/triage.ts), nor is a likely contradicted one. The two sides are fitted apart, each
 * on its own accuracy, so that either may ship without the other.
 */

/** The share of decided answers that must be right. */
export const CASCADE_TARGET = 0.97;

/** Candidate thresholds are multiples of this (reproducible, and no finer than the sets resolve). */
export const CASCADE_STEP = 0.005;

/**
 * The half a labelled row falls in, by a hash of its key (a set's name and the row's id): fixed
 * for a row whatever else the set holds, so a fit is repeatable and its check half never seen by it.
 */
export function cascadeHalf(key: string): "fit" | "check" {
  let h = 2166136261;
  for (const c of `half/${key}`) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  return h % 2 === 0 ? "fit" : "check";
}

/** One labelled answer as the cheap tier scored it: each claim's score and strongest contradiction (none when unscorable). */
export interface CascadeRow {
  readonly label: 0 | 1;
  readonly claims: readonly Pick<ClaimResult, "score" | "contradiction">[];
}

/** A labelled set cut in two: thresholds are fitted on `fit` and checked on `check`. */
export interface CascadeSet {
  readonly name: string;
  readonly fit: readonly CascadeRow[];
  readonly check: readonly CascadeRow[];
}

/** What thresholds do to a set of answers. */
export interface CascadeFigures {
  readonly rows: number;
  readonly claims: number;
  /** Claims decided without a model call. */
  readonly decidedClaims: number;
  /** decidedClaims / claims: the share of model calls saved (NaN without claims). */
  readonly saved: number;
  /** Answers decided supported, and how many of them are labelled supported. */
  readonly supported: { readonly decided: number; readonly right: number };
  /** Answers decided unsupported, and how many of them are labelled not supported. */
  readonly unsupported: { readonly decided: number; readonly right: number };
  /** Right / decided over both sides (NaN when none is decided). */
  readonly accuracy: number;
}

/** The decision on one answer: unsupported when one claim is decided so, supported when all are, else none. */
export function answerDecision(row: CascadeRow, t: TriageThresholds): { decision: "supported" | "unsupported" | undefined; decidedClaims: number } {
  let supported = 0;
  let unsupported = 0;
  for (const c of row.claims) {
    const d = triageDecision(c, false, t);
    if (d === "supported") supported++;
    else if (d === "unsupported") unsupported++;
  }
  const decidedClaims = supported + unsupported;
  if (unsupported > 0) return { decision: "unsupported", decidedClaims };
  return { decision: row.claims.length > 0 && supported === row.claims.length ? "supported" : undefined, decidedClaims };
}

/** The figures of `t` on `rows`. */
export function cascadeFigures(rows: readonly CascadeRow[], t: TriageThresholds): CascadeFigures {
  let claims = 0;
  let decidedClaims = 0;
  const supported = { decided: 0, right: 0 };
  const unsupported = { decided: 0, right: 0 };
  for (const row of rows) {
    claims += row.claims.length;
    const { decision, decidedClaims: n } = answerDecision(row, t);
    decidedClaims += n;
    if (decision === "supported") {
      supported.decided++;
      if (row.label === 1) supported.right++;
    } else if (decision === "unsupported") {
      unsupported.decided++;
      if (row.label === 0) unsupported.right++;
    }
  }
  const decided = supported.decided + unsupported.decided;
  return { rows: rows.length, claims, decidedClaims, saved: claims === 0 ? Number.NaN : decidedClaims / claims, supported, unsupported, accuracy: decided === 0 ? Number.NaN : (supported.right + unsupported.right) / decided };
}

/** A side's accuracy, 1 when it decides nothing (deciding nothing is never wrong). */
function sideAccuracy(side: { readonly decided: number; readonly right: number }): number {
  return side.decided === 0 ? 1 : side.right / side.decided;
}

/** The cascade's fitted thresholds, and what they do to each set. */
export interface CascadeFit {
  readonly thresholds: TriageThresholds;
  /** Whether the thresholds decide anything (false: DECIDE_NOTHING, the cascade sends every claim to the model). */
  readonly decides: boolean;
  /** What the fit found, in words: each side's threshold on the fit halves and whether it held on the check halves. */
  readonly notes: readonly string[];
  /** Per set: the thresholds' figures on its fit and check halves. */
  readonly sets: readonly { readonly name: string; readonly fit: CascadeFigures; readonly check: CascadeFigures }[];
}

/** The candidate thresholds, from 0 to 1 in CASCADE_STEP. */
function candidates(): number[] {
  const n = Math.round(1 / CASCADE_STEP);
  return Array.from({ length: n + 1 }, (_, i) => Number((i * CASCADE_STEP).toFixed(6)));
}

/** Whether one side of `t` is right at least `target` of the time on every set's `half`. */
function sideHolds(sets: readonly CascadeSet[], half: "fit" | "check", t: TriageThresholds, side: "supported" | "unsupported", target: number): boolean {
  return sets.every((s) => sideAccuracy(cascadeFigures(s[half], t)[side]) >= target);
}

/**
 * Fits the widest thresholds whose decided answers are right at least `target` of the time on
 * every set's fit half, side by side: the lowest supportAbove (unsupportBelow none), the highest
 * unsupportBelow (supportAbove none) below the supportAbove kept. A side that does not hold on every set's
 * check half decides nothing (supportAbove 1, unsupportBelow 0), and the notes say so.
 */
export function fitCascade(sets: readonly CascadeSet[], target: number = CASCADE_TARGET): CascadeFit {
  const grid = candidates();
  // The other side off (1 or 0: core/triage.ts), so that one side is fitted alone.
  // A region that decides no answer of any fit half holds vacuously: it is no fit.
  const decidesAny = (t: TriageThresholds, side: "supported" | "unsupported"): boolean => sets.some((s) => cascadeFigures(s.fit, t)[side].decided > 0);
  const aboveAt = grid.find((a) => a > 0 && a < 1 && sideHolds(sets, "fit", { supportAbove: a, unsupportBelow: 0 }, "supported", target));
  const aboveFound = aboveAt !== undefined && decidesAny({ supportAbove: aboveAt, unsupportBelow: 0 }, "supported") ? aboveAt : undefined;
  const notes: string[] = [];
  const pct = `${(100 * target).toFixed(0)}%`;
  let supportAbove = DECIDE_NOTHING.supportAbove;
  let unsupportBelow = DECIDE_NOTHING.unsupportBelow;
  if (aboveFound === undefined) notes.push(`supported side: no threshold is right ${pct} of the time on every fit half`);
  else if (!sideHolds(sets, "check", { supportAbove: aboveFound, unsupportBelow: 0 }, "supported", target)) notes.push(`supported side: ${aboveFound} is right ${pct} of the time on every fit half but not on every check half (${failing(sets, { supportAbove: aboveFound, unsupportBelow: 0 }, "supported", target)}): it decides nothing`);
  else {
    supportAbove = aboveFound;
    notes.push(`supported side: ${aboveFound} holds on every fit and check half`);
  }
  // The unsupported side below the supported side in force (a claim at or above supportAbove is supported).
  const belowAt = [...grid].reverse().find((b) => b > 0 && b < supportAbove && sideHolds(sets, "fit", { supportAbove: 1, unsupportBelow: b }, "unsupported", target));
  const belowFound = belowAt !== undefined && decidesAny({ supportAbove: 1, unsupportBelow: belowAt }, "unsupported") ? belowAt : undefined;
  if (belowFound === undefined) notes.push(`unsupported side: no threshold is right ${pct} of the time on every fit half`);
  else if (!sideHolds(sets, "check", { supportAbove: 1, unsupportBelow: belowFound }, "unsupported", target)) notes.push(`unsupported side: ${belowFound} is right ${pct} of the time on every fit half but not on every check half (${failing(sets, { supportAbove: 1, unsupportBelow: belowFound }, "unsupported", target)}): it decides nothing`);
  else {
    unsupportBelow = belowFound;
    notes.push(`unsupported side: ${belowFound} holds on every fit and check half`);
  }
  const thresholds = { supportAbove, unsupportBelow };
  const decides = supportAbove < DECIDE_NOTHING.supportAbove || unsupportBelow > DECIDE_NOTHING.unsupportBelow;
  return { thresholds, decides, notes, sets: sets.map((s) => ({ name: s.name, fit: cascadeFigures(s.fit, thresholds), check: cascadeFigures(s.check, thresholds) })) };
}

/** The sets whose check half one side fails on, with their accuracy. */
function failing(sets: readonly CascadeSet[], t: TriageThresholds, side: "supported" | "unsupported", target: number): string {
  return sets
    .map((s) => ({ name: s.name, figures: cascadeFigures(s.check, t)[side] }))
    .filter((f) => sideAccuracy(f.figures) < target)
    .map((f) => `${f.name} ${f.figures.right}/${f.figures.decided}`)
    .join(", ");
}
