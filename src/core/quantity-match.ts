/**
 * Comparing a claim's quantity with the evidence's: the same value, another value of the same
 * kind (a contradiction), or nothing comparable. The quantities are read by `extractQuantities`.
 */
import type { Quantity } from "./quantities.ts";

/** How a claim's quantity relates to the evidence. */
export type QuantityMatch = "matched" | "contradicted" | "missing";

function sameValue(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

/**
 * Two quantities state the same value of the same kind; a 12-hour time matches either half of
 * the day, an amount needs the same currency and a duration the same unit. A count of a noun is
 * never a percentage, an amount, a duration or a date ("20 projects" does not state "20%"); a
 * bare number ("thirty-five", no noun after it) stands for any kind but a time, and counts,
 * ordinals and years stand for each other ("1500 staff" is read as a year, "first" as "one").
 * Counts of different nouns still match ("870 infections", "870 people"): only a count of the
 * same noun contradicts.
 */
function sameQuantity(q: Quantity, e: Quantity): boolean {
  if (q.kind === "time" && e.kind === "time") return q.unit === "12h" || e.unit === "12h" ? q.value % 720 === e.value % 720 : q.value === e.value;
  if (q.kind === "time" || e.kind === "time") return false;
  if (!sameValue(e.value, q.value)) return false;
  if (e.kind === q.kind) return q.kind === "money" || q.kind === "duration" ? q.unit === e.unit : true;
  const bare = (x: Quantity): boolean => x.kind === "count" && x.unit === "";
  const countLike = (x: Quantity): boolean => x.kind === "year" || x.kind === "count" || x.kind === "ordinal";
  return bare(q) || bare(e) || (countLike(q) && countLike(e));
}

/** A difference or a ratio is not an amount: only another of the same relation can state another value of it. */
const relative = (x: Quantity): string => (x.relation === "sum" ? "" : (x.relation ?? ""));

/**
 * An evidence quantity that would contradict `q` by stating another value: the same kind and unit
 * (a count of the same noun), and the same relation ("$15 more than" is not contradicted by "$10").
 */
function conflicts(q: Quantity, e: Quantity): boolean {
  if (e.kind !== q.kind || relative(q) !== relative(e)) return false;
  if (q.kind === "count" && (q.unit === "" || e.unit !== q.unit)) return false;
  if ((q.kind === "duration" || q.kind === "money") && e.unit !== q.unit) return false;
  return true;
}

/** Whether an evidence quantity says anything about `q`: it states its value, or another value of its kind. */
export function sameKindAs(q: Quantity, e: Quantity): boolean {
  return sameQuantity(q, e) || conflicts(q, e);
}

/**
 * Matched when the evidence states the same value (a count, of the same noun when the evidence
 * counts that noun); contradicted when the evidence states a different value of the same kind
 * and unit and never the claimed one; missing otherwise.
 */
export function matchQuantity(q: Quantity, evidence: readonly Quantity[]): { match: QuantityMatch; other?: Quantity } {
  // A count is bound to its noun: where the evidence counts the same noun, a count of another
  // noun does not state it ("3 nurses" is not "3 doctors and 9 nurses").
  const noun = q.kind === "count" && q.unit !== "" && !q.relation && evidence.some((e) => e.kind === "count" && e.unit === q.unit);
  for (const e of evidence) {
    if (sameQuantity(q, e) && (!noun || (e.kind === "count" && (e.unit === q.unit || e.unit === "")))) return { match: "matched" };
  }
  for (const e of evidence) {
    if (conflicts(q, e)) return { match: "contradicted", other: e };
  }
  return { match: "missing" };
}

/** A claim quantity read against the part of the evidence the claim is about. */
export interface AlignedQuantityMatch {
  readonly match: QuantityMatch;
  /** The evidence's value of the same kind, when contradicted. */
  readonly other?: Quantity;
  /** The same value stated only outside the aligned sentences (it supports nothing there). */
  readonly elsewhere?: Quantity;
}

/**
 * Reads a claim quantity against the evidence sentences the claim aligns with (those sharing
 * most of its other content words): the same value of the same kind there is a match, another
 * value of that kind there a contradiction. A value the evidence states only in an unrelated
 * sentence ("20 projects" for "20% off", "30 days" of log retention for "restored within 30
 * days") supports nothing and contradicts nothing: it is missing, and `elsewhere` names it.
 * `aligned` holds the quantities of the aligned sentences, `unrelated` those of the rest.
 */
export function matchAlignedQuantity(q: Quantity, aligned: readonly Quantity[], unrelated: readonly Quantity[]): AlignedQuantityMatch {
  const m = matchQuantity(q, aligned);
  if (m.match !== "missing") return m;
  const elsewhere = unrelated.find((e) => sameQuantity(q, e));
  return elsewhere ? { match: "missing", elsewhere } : { match: "missing" };
}
