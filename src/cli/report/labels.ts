import type { EvalRow } from "../eval/types.ts";

// A labelled set (label 1 grounded, 0 not) says what each answer should have been: the eval
// reports show, per row and over the set, whether groundwatch's verdict agrees with it.

/** How a row's verdict compares with its label; undefined for a row without a label. */
export type LabelAgreement = "agree" | "disagree" | "unscorable";

/** agree: label 1 and grounded, or label 0 and ungrounded; unscorable rows are not compared. */
export function labelAgreement(x: Pick<EvalRow, "label" | "verdict">): LabelAgreement | undefined {
  if (x.label === undefined) return undefined;
  if (x.verdict === "unscorable") return "unscorable";
  return (x.label === 1) === (x.verdict === "grounded") ? "agree" : "disagree";
}

/** Label agreement over a set; undefined when no row has a label. */
export interface LabelSummary {
  readonly labelled: number;
  readonly agree: number;
  readonly disagree: number;
  /** Labelled rows that could not be scored: not compared. */
  readonly unscorable: number;
  /** agree / (agree + disagree); null when no labelled row was scored. */
  readonly share: number | null;
  /** The scored labelled rows by label and verdict: what calibrate's TPR and FPR count. */
  readonly verdicts: VerdictCounts;
}

/** Labelled answers by label and verdict: grounded-labelled ones passed or flagged, not-grounded ones passed (missed) or flagged (caught). */
export interface VerdictCounts {
  readonly groundedPassed: number;
  readonly groundedFlagged: number;
  readonly ungroundedPassed: number;
  readonly ungroundedFlagged: number;
}

export function labelSummary(rows: readonly EvalRow[]): LabelSummary | undefined {
  const counts = { agree: 0, disagree: 0, unscorable: 0 };
  const verdicts = { groundedPassed: 0, groundedFlagged: 0, ungroundedPassed: 0, ungroundedFlagged: 0 };
  let labelled = 0;
  for (const x of rows) {
    const a = labelAgreement(x);
    if (a === undefined) continue;
    labelled++;
    counts[a]++;
    if (a === "unscorable") continue;
    const passed = x.verdict === "grounded";
    if (x.label === 1) verdicts[passed ? "groundedPassed" : "groundedFlagged"]++;
    else verdicts[passed ? "ungroundedPassed" : "ungroundedFlagged"]++;
  }
  if (labelled === 0) return undefined;
  const compared = counts.agree + counts.disagree;
  return { labelled, ...counts, share: compared === 0 ? null : counts.agree / compared, verdicts };
}

/** The summary in words: "85.7% (6 of 7 labelled rows scored agree with their label; 1 disagrees; 1 unscorable, not compared)". */
export function labelSummaryText(s: LabelSummary): string {
  const compared = s.agree + s.disagree;
  const share = s.share === null ? "–" : `${(100 * s.share).toFixed(1)}%`;
  return `${share} (${s.agree} of ${compared} labelled rows scored agree with their label; ${s.disagree} ${s.disagree === 1 ? "disagrees" : "disagree"}${s.unscorable > 0 ? `; ${s.unscorable} unscorable, not compared` : ""})`;
}

/** A row's label and agreement in a few words: "agree (label 1)", "disagree (label 0)", "unscorable (label 1)"; "–" without a label. */
export function labelCell(x: Pick<EvalRow, "label" | "verdict">): string {
  const a = labelAgreement(x);
  return a === undefined ? "–" : `${a} (label ${x.label})`;
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;

/**
 * The verdicts' rates in counts, grounded as the positive class — the words calibrate prints for its
 * threshold and eval for the labelled rows it scored, so the two can be read side by side:
 * "TPR 33.6% (44 of 131 grounded answers pass), FPR 0.9% (3 of 341 not-grounded answers pass), precision 93.6%".
 */
export function verdictRatesText(v: VerdictCounts): string {
  const pos = v.groundedPassed + v.groundedFlagged;
  const neg = v.ungroundedPassed + v.ungroundedFlagged;
  const passed = v.groundedPassed + v.ungroundedPassed;
  const rate = (k: number, n: number): string => (n === 0 ? "–" : pct(k / n));
  return `TPR ${rate(v.groundedPassed, pos)} (${v.groundedPassed} of ${pos} grounded answers pass), FPR ${rate(v.ungroundedPassed, neg)} (${v.ungroundedPassed} of ${neg} not-grounded answers pass), precision ${passed === 0 ? "–" : pct(v.groundedPassed / passed)}`;
}
