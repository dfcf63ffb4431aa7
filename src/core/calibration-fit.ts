
/**
 * Fitting a threshold to labelled answers by the rule the scorer applies, not by `score ≥ t` alone.
 *
 * The verdict rule (groundedness.ts, verdict.ts): an answer is grounded when its score is at or
 * above the threshold and every claim is supported. A claim is supported when it is not contradicted
 * and its score is at or above the threshold; the answer's score is the least of its claims' (a
 * contradicted claim contributes less), so for an answer with no contradicted claim and no citation
 * of a document that was not retrieved, "every claim supported" is "score ≥ t". An answer with such
 * a claim is ungrounded at every threshold: whether a claim is contradicted does not depend on the
 * threshold. So each labelled row is its score and, where it has one, what holds it ungrounded
 * whatever the threshold — and the rates of any threshold are counted from the verdicts themselves.
 *
 * The threshold stored is a value every fitted row classifies the same way with as the chosen cut,
 * short when one is (0.18 rather than 0.1794413), and strictly between two scores where it can be, so
 * a score that moves in its last digits on another machine does not flip a row.
 */

/** How a threshold is chosen (calibrate --criterion). */
export type Criterion = "youden" | "f1" | "accuracy" | "target_fpr" | "target_recall";

/** A chosen threshold and what it gives. */
export interface ThresholdChoice {
  readonly threshold: number;
  readonly tpr: number;
  readonly fpr: number;
  readonly precision: number;
  readonly accuracy: number;
  readonly f1: number;
}

/** What makes a row ungrounded at every threshold. */
export type Blocked = "contradicted" | "citation_not_retrieved" | "unscorable";
export const BLOCKED_REASONS: readonly Blocked[] = ["contradicted", "citation_not_retrieved", "unscorable"];

/** One labelled row as a threshold is fitted to it. */
export interface FitRow {
  /** 1 grounded, 0 not. */
  readonly label: 0 | 1;
  /** The answer's score (0 for a row fitted without one: --unscorable as-ungrounded). */
  readonly score: number;
  /** Present when the row is ungrounded whatever the threshold, and why. */
  readonly blocked?: Blocked | undefined;
}

/**
 * What holds a scored answer ungrounded whatever the threshold: no score (unscorable), a contradicted
 * claim, or a claim citing a document that was not retrieved; undefined when only its score decides.
 */
export function blockedBy(result: { readonly verdict: string; readonly claims?: ReadonlyArray<{ readonly verdict: string; readonly reason?: string }> }): Blocked | undefined {
  if (result.verdict === "unscorable") return "unscorable";
  const claims = result.claims ?? [];
  if (claims.some((c) => c.verdict === "contradicted")) return "contradicted";
  if (claims.some((c) => c.reason === "citation_not_retrieved")) return "citation_not_retrieved";
  return undefined;
}

/** The verdict the scorer gives the row at threshold `t`. */
export function groundedAt(row: FitRow, t: number): boolean {
  return row.blocked === undefined && row.score >= t;
}

/** The confusion counts of threshold `t` over the rows, grounded (label 1) as the positive class, and the rates. */
export interface Rates {
  readonly threshold: number;
  /** Grounded-labelled rows the threshold passes (true positives) and flags (false alarms). */
  readonly groundedPassed: number;
  readonly groundedFlagged: number;
  /** Not-grounded-labelled rows the threshold passes (missed) and flags (caught). */
  readonly ungroundedPassed: number;
  readonly ungroundedFlagged: number;
  /** groundedPassed ÷ grounded rows (0 with none). */
  readonly tpr: number;
  /** ungroundedPassed ÷ not-grounded rows (0 with none). */
  readonly fpr: number;
  /** groundedPassed ÷ rows passed (1 when none passes). */
  readonly precision: number;
  readonly accuracy: number;
  readonly f1: number;
}

function ratesOf(threshold: number, tp: number, fp: number, pos: number, neg: number): Rates {
  const tpr = pos ? tp / pos : 0;
  const fpr = neg ? fp / neg : 0;
  const precision = tp + fp ? tp / (tp + fp) : 1;
  const f1 = precision + tpr ? (2 * precision * tpr) / (precision + tpr) : 0;
  return { threshold, groundedPassed: tp, groundedFlagged: pos - tp, ungroundedPassed: fp, ungroundedFlagged: neg - fp, tpr, fpr, precision, accuracy: (tp + neg - fp) / Math.max(1, pos + neg), f1 };
}

/** The verdicts of threshold `t` on the rows, counted. */
export function ratesAt(rows: readonly FitRow[], t: number): Rates {
  let pos = 0;
  let tp = 0;
  let fp = 0;
  for (const r of rows) {
    if (r.label === 1) pos++;
    if (groundedAt(r, t)) {
      if (r.label === 1) tp++;
      else fp++;
    }
  }
  return ratesOf(t, tp, fp, pos, rows.length - pos);
}

/**
 * A number in (low, high] to store as a threshold: the shortest decimal strictly between the two
 * (nearest their midpoint), else `high` itself. `low` undefined: the shortest decimal at or under
 * `high`, no further under it than 1e-6.
 */
export function storableBetween(low: number | undefined, high: number): number {
  if (low === undefined) {
    for (let p = 1; p <= 15; p++) {
      const f = 10 ** p;
      const v = Math.floor(high * f) / f;
      if (v <= high && high - v <= 1e-6) return v;
    }
    return high;
  }
  const mid = low + (high - low) / 2;
  for (let p = 1; p <= 17; p++) {
    const f = 10 ** p;
    const v = Math.round(mid * f) / f;
    if (v > low && v < high) return v;
  }
  return high;
}

/**
 * Chooses a threshold by a criterion — Youden's J, F1 or accuracy maximised; the highest TPR at or
 * under a target FPR ("target_fpr"); the highest threshold keeping TPR at a target ("target_recall")
 * — over every cut of the rows' scores, counting each cut's verdicts by the verdict rule, in
 * O(n log n). Ties go to the lower threshold, as before. The threshold returned is the value to
 * store (storableBetween), and the rates are that value's, counted again from the rows.
 */
export function fitThreshold(rows: readonly FitRow[], criterion: Criterion, target?: number): ThresholdChoice & Rates {
  const pos = rows.filter((r) => r.label === 1).length;
  const neg = rows.length - pos;
  // Rows that can pass, by score from the highest: a cut at score s passes every one scoring ≥ s.
  const open = rows.filter((r) => r.blocked === undefined).sort((a, b) => b.score - a.score);
  // Cuts from the highest threshold down: [passes nothing, at each distinct score].
  const cuts: Array<{ low: number | undefined; high: number; tp: number; fp: number }> = [];
  const top = open[0]?.score;
  if (top === undefined) cuts.push({ low: undefined, high: 0.5, tp: 0, fp: 0 });
  else if (top < 1) cuts.push({ low: top, high: 1, tp: 0, fp: 0 });
  let tp = 0;
  let fp = 0;
  for (let i = 0; i < open.length; ) {
    const s = (open[i] as FitRow).score;
    while (i < open.length && (open[i] as FitRow).score === s) {
      if ((open[i] as FitRow).label === 1) tp++;
      else fp++;
      i++;
    }
    cuts.push({ low: open[i]?.score, high: s, tp, fp });
  }
  // Ascending threshold, so that the first of equals is the lowest, as chooseThreshold always chose.
  const stats = cuts.reverse().map((c) => ({ cut: c, r: ratesOf(c.high, c.tp, c.fp, pos, neg) }));
  const best = (key: (r: Rates) => number, pool = stats): (typeof stats)[number] => pool.reduce((a, b) => (key(b.r) > key(a.r) ? b : a));
  let chosen: (typeof stats)[number];
  switch (criterion) {
    case "youden":
      chosen = best((r) => r.tpr - r.fpr);
      break;
    case "f1":
      chosen = best((r) => r.f1);
      break;
    case "accuracy":
      chosen = best((r) => r.accuracy);
      break;
    case "target_fpr": {
      const ok = stats.filter((s) => s.r.fpr <= (target ?? 0.05));
      chosen = best((r) => r.tpr, ok.length > 0 ? ok : stats);
      break;
    }
    case "target_recall": {
      const ok = stats.filter((s) => s.r.tpr >= (target ?? 0.9));
      chosen = best((r) => r.threshold, ok.length > 0 ? ok : stats);
      break;
    }
  }
  const stored = storableBetween(chosen.cut.low, chosen.cut.high);
  return ratesAt(rows, stored);
}

/** One class of a labelled set: grounded answers, or not-grounded ones by their labelled cause. */
export interface ClassOutcome {
  /** "grounded", or the labelled cause of not-grounded answers ("retrieval", "generation", "citation", …; "unlabelled" without one). */
  readonly name: string;
  readonly label: 0 | 1;
  readonly rows: number;
  /** Rows the threshold in force and the new one get right: a grounded answer passed, a not-grounded one flagged. */
  readonly right: { readonly inForce: number; readonly proposed: number };
}

/** A fitted row with the cause its label names, when not grounded. */
export interface CausedFitRow extends FitRow {
  readonly cause?: string | undefined;
}

/** The label for not-grounded rows whose cause is not labelled. */
export const UNLABELLED_CAUSE = "unlabelled";

/**
 * What each class of the set gets from the threshold in force and from the proposed one: grounded
 * answers passed; not-grounded answers flagged, by labelled cause (classes in the order of `causes`,
 * then any other, then unlabelled).
 */
export function classOutcomes(rows: readonly CausedFitRow[], inForce: number, proposed: number, causes: readonly string[] = []): ClassOutcome[] {
  const byName = new Map<string, { label: 0 | 1; rows: number; inForce: number; proposed: number }>();
  for (const r of rows) {
    const name = r.label === 1 ? "grounded" : (r.cause ?? UNLABELLED_CAUSE);
    const c = byName.get(name) ?? { label: r.label, rows: 0, inForce: 0, proposed: 0 };
    c.rows++;
    if (groundedAt(r, inForce) === (r.label === 1)) c.inForce++;
    if (groundedAt(r, proposed) === (r.label === 1)) c.proposed++;
    byName.set(name, c);
  }
  const order = ["grounded", ...causes, ...[...byName.keys()].filter((k) => k !== "grounded" && k !== UNLABELLED_CAUSE && !causes.includes(k)).sort(), UNLABELLED_CAUSE];
  return order.flatMap((name) => {
    const c = byName.get(name);
    return c ? [{ name, label: c.label, rows: c.rows, right: { inForce: c.inForce, proposed: c.proposed } }] : [];
  });
}
