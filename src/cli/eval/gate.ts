import { citationErrors } from "../report/citations.ts";
import type { LabelSummary } from "../report/labels.ts";
import { labelAgreement } from "../report/labels.ts";
import { pct, plain } from "./format.ts";
import type { CriterionName, EvalGate, EvalReport, EvalRow, GateCriterion, GateSource, GateSpec } from "./types.ts";
import { REPORT_ONLY } from "./types.ts";

/** The default limit on the hallucination rate when no flag or config file sets one. */
export const DEFAULT_MAX_HALLUCINATION_RATE = 0.1;

/** The default limit on the share of unscorable rows when no flag or config file sets one. */
export const DEFAULT_MAX_UNSCORABLE_SHARE = 0.1;

/** Where a gate number came from, in report.json's words (a flag, a file with its key), not config/resolve.ts describeSource's setting names; `user` escapes the parts the user wrote (file paths). */
export function describeGateSource(s: GateSource, user: (text: string) => string = plain): string {
  switch (s.kind) {
    case "flag":
      return `flag ${s.flag}`;
    case "env":
      return `environment ${s.variable}`;
    case "calibration":
      return `calibration file ${user(s.file)}`;
    case "config":
      return `config file ${user(s.file)} (${s.key})`;
    case "backend":
      return `the ${s.backend} backend's default`;
    case "default":
      return "groundwatch default";
  }
}

/** What a criterion measures, in words. */
export function criterionMeasure(name: CriterionName): string {
  switch (name) {
    case "maxHallucinationRate":
      return "hallucination rate";
    case "maxUnscorableShare":
      return "unscorable share";
    case "minGroundedShare":
      return "grounded share";
    case "minMeanScore":
      return "mean score (raw)";
    case "maxCitationErrorRate":
      return "citation error rate";
    case "minLabelAgreement":
      return "label agreement";
    case "noRegressions":
      return "regressions vs baseline";
  }
}

/** The criterion's condition, e.g. "≤ 10.0%" or "≥ 0.800". */
export function criterionLimit(c: Pick<GateCriterion, "name" | "limit">): string {
  switch (c.name) {
    case "maxHallucinationRate":
    case "maxUnscorableShare":
    case "maxCitationErrorRate":
      return `≤ ${pct(c.limit)}`;
    case "minGroundedShare":
    case "minLabelAgreement":
      return `≥ ${pct(c.limit)}`;
    case "minMeanScore":
      return `≥ ${c.limit.toFixed(3)}`;
    case "noRegressions":
      return "none";
  }
}

/**
 * Applies the gate to the measures. Every criterion that cannot be measured (no scorable row)
 * fails: a gate never passes on nothing. `labels` is the set's label agreement (for minLabelAgreement).
 */
export function evaluateGate(spec: GateSpec | "report-only", summary: EvalReport["summary"], regressions: number, threshold: { readonly value: number; readonly source: GateSource }, labels?: LabelSummary): EvalGate {
  if (spec === "report-only") return { status: "report-only", passed: null, description: describeGate([], threshold), criteria: [], failures: [] };
  const criteria: GateCriterion[] = [];
  const add = (name: CriterionName, limit: number, measured: number | null, source: GateSource, passed: boolean, failure: string): void => {
    criteria.push({ name, limit, measured, source, passed, ...(passed ? {} : { failure }) });
  };
  const rate = summary.hallucinationRate;
  const maxRate = spec.maxHallucinationRate;
  add("maxHallucinationRate", maxRate.value, rate, maxRate.source, rate !== null && rate <= maxRate.value, `hallucination rate ${rate === null ? "not measurable (no scorable row)" : pct(rate)} is above the maximum ${pct(maxRate.value)}`);
  const unscorable = summary.rows > 0 ? summary.unscorable / summary.rows : null;
  const maxUnscorable = spec.maxUnscorableShare;
  add("maxUnscorableShare", maxUnscorable.value, unscorable, maxUnscorable.source, unscorable !== null && unscorable <= maxUnscorable.value, `${unscorable === null ? "no rows were read" : `${pct(unscorable)} of the rows (${summary.unscorable} of ${summary.rows}) could not be scored`}, above the maximum ${pct(maxUnscorable.value)}: the rates would rest on the rest`);
  if (spec.minGroundedShare) {
    const s = spec.minGroundedShare;
    add("minGroundedShare", s.value, summary.groundedShare, s.source, summary.groundedShare >= s.value, `grounded share ${pct(summary.groundedShare)} (${summary.grounded} of ${summary.rows}) is below the minimum ${pct(s.value)}`);
  }
  if (spec.minMeanScore) {
    const m = spec.minMeanScore;
    const mean = summary.meanGroundedness;
    add("minMeanScore", m.value, mean, m.source, mean !== null && mean >= m.value, `mean score ${mean === null ? "not measurable (no scorable row)" : mean.toFixed(3)} is below the floor ${m.value}`);
  }
  if (spec.maxCitationErrorRate) {
    const m = spec.maxCitationErrorRate;
    const c = summary.citations;
    const errorRate = c?.errorRate ?? null;
    const measured = c && errorRate !== null ? `citation error rate ${pct(errorRate)} (${citationErrors(c)} of ${c.found} citations: ${c.invalid} not retrieved, ${c.misattributed} misattributed)` : "";
    add("maxCitationErrorRate", m.value, errorRate, m.source, errorRate !== null && errorRate <= m.value, errorRate === null ? "citation error rate not measurable: no answer in the set cites a document ([1], (source: name)), so there is nothing to check; drop --max-citation-error-rate for sets without citations" : `${measured} is above the maximum ${pct(m.value)}`);
  }
  if (spec.minLabelAgreement) {
    const m = spec.minLabelAgreement;
    const share = labels?.share ?? null;
    add("minLabelAgreement", m.value, share, m.source, share !== null && share >= m.value, share === null || !labels ? "label agreement not measurable: no row has a label and a verdict to compare it with" : `label agreement ${pct(share)} (${labels.agree} of ${labels.agree + labels.disagree} labelled rows scored agree with their label) is below the minimum ${pct(m.value)}`);
  }
  if (spec.baseline) add("noRegressions", 0, regressions, spec.baseline.source, regressions === 0, `${regressions} row(s) regressed against the baseline`);
  const failures = criteria.flatMap((c) => (c.failure ? [c.failure] : []));
  return { status: failures.length === 0 ? "passed" : "failed", passed: failures.length === 0, description: describeGate(criteria, threshold), criteria, failures };
}

/** The gate in one line, each number with its source; no criteria means report-only. */
export function describeGate(criteria: readonly GateCriterion[], threshold: { readonly value: number; readonly source: GateSource }, user: (text: string) => string = plain): string {
  const at = `answers judged at threshold ${threshold.value} (${describeGateSource(threshold.source, user)})`;
  if (criteria.length === 0) return `${REPORT_ONLY} (--no-gate): nothing fails the run; ${at}`;
  return `${criteria.map((c) => `${criterionMeasure(c.name)} ${criterionLimit(c)} (${describeGateSource(c.source, user)})`).join("; ")}; ${at}`;
}

/**
 * The failed criteria a row counts against: ungrounded rows against the hallucination rate,
 * every row not grounded against the grounded share, rows scoring under the floor against the
 * mean, regressed rows against the baseline, and unscorable rows against a criterion that
 * could not be measured. Empty when the gate passed or did not apply.
 */
export function rowFailsGate(r: Pick<EvalReport, "gate" | "regressions">, row: EvalRow): GateCriterion[] {
  return r.gate.criteria.filter((c) => {
    if (c.passed) return false;
    switch (c.name) {
      case "maxHallucinationRate":
        return row.verdict === "ungrounded" || (c.measured === null && row.verdict === "unscorable");
      case "maxUnscorableShare":
        return row.verdict === "unscorable";
      case "minGroundedShare":
        return row.verdict !== "grounded";
      case "minMeanScore":
        return row.score !== null ? row.score < c.limit : c.measured === null;
      case "maxCitationErrorRate":
        // Unmeasurable (nothing cited anywhere): no row is to blame.
        return row.citations !== undefined && citationErrors(row.citations) > 0;
      case "minLabelAgreement":
        return labelAgreement(row) === "disagree";
      case "noRegressions":
        return r.regressions.some((g) => String(g.id) === String(row.id));
    }
  });
}
