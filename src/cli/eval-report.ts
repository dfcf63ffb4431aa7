import type { AnswerVerdict, CitationSummary, ClaimResult } from "../core/result.ts";
import type { BackendInfo } from "../core/backend.ts";
import { escapeHtml, escapeXml, mdText } from "./escape.ts";
import { citationErrors, citationLines, citationSummaryText } from "./report-citations.ts";
import { evidenceLocation, shownEvidence } from "./report-evidence.ts";
import { labelAgreement, labelCell, labelSummary, labelSummaryText } from "./report-labels.ts";

/** One evaluated row of the set, as stored in report.json. */
export interface EvalRow {
  readonly id: string | number;
  readonly question: string | undefined;
  readonly answer: string;
  readonly verdict: AnswerVerdict;
  readonly score: number | null;
  readonly reason?: string;
  readonly claims: readonly ClaimResult[];
  readonly label?: 0 | 1;
  readonly combined?: string;
  readonly error?: string;
  /** "reply" when the documents came from the service's reply (--context-path), not the set. */
  readonly contextFrom?: "reply";
  /** The answer's citation markers and how they checked out; absent when it cites nothing. */
  readonly citations?: CitationSummary;
  /**
   * With citations: one entry per retrieved document, its name as a citation may give it (id, else
   * title, else URL; null when unnamed), so the reports can say which document supports a claim.
   */
  readonly sources?: ReadonlyArray<string | null>;
}

/** Where a gate number came from; every report states it next to the number. */
export type GateSource =
  | { readonly kind: "flag"; readonly flag: string }
  | { readonly kind: "env"; readonly variable: string }
  | { readonly kind: "calibration"; readonly file: string }
  | { readonly kind: "config"; readonly file: string; readonly key: string }
  | { readonly kind: "backend"; readonly backend: string }
  | { readonly kind: "default" };

/** The gate's criteria, by the name report.json gives them. */
export type CriterionName = "maxHallucinationRate" | "maxUnscorableShare" | "minGroundedShare" | "minMeanScore" | "maxCitationErrorRate" | "noRegressions";

/** One criterion of the gate, with what was measured and whether it held. */
export interface GateCriterion {
  readonly name: CriterionName;
  /** The limit: a rate, share or raw score from 0 to 1; for noRegressions, the most regressed rows allowed (0). */
  readonly limit: number;
  /** null when nothing could be measured (no scorable row), which fails the criterion. */
  readonly measured: number | null;
  readonly source: GateSource;
  readonly passed: boolean;
  /** Why it failed, in groundwatch's words; only when it failed. */
  readonly failure?: string;
}

/** The gate that applied. "report-only" (--no-gate) has no criteria and never fails. */
export interface EvalGate {
  readonly status: "passed" | "failed" | "report-only";
  /** null for report-only: nothing was gated. */
  readonly passed: boolean | null;
  /** The gate in one line, with where each number came from (or "report only, no gate"). */
  readonly description: string;
  readonly criteria: readonly GateCriterion[];
  readonly failures: readonly string[];
}

export interface EvalReport {
  readonly version: 2;
  readonly createdAt: string;
  readonly set: string;
  readonly backend: BackendInfo;
  /** The backend is triage-tier: results are for trends and review, not decisions on their own. */
  readonly triage: boolean;
  /** The answer threshold: an answer is grounded when its score reaches it (and every claim is supported). */
  readonly threshold: number;
  readonly thresholdSource: GateSource;
  /** Things the reader must know about this run (triage backend first), in groundwatch's words. */
  readonly notices: readonly string[];
  readonly summary: {
    readonly rows: number;
    readonly scorable: number;
    readonly unscorable: number;
    readonly grounded: number;
    /** grounded / rows: unscorable rows count as not grounded. Backend-independent, unlike the mean score. */
    readonly groundedShare: number;
    /** The mean raw score of scorable rows; its scale depends on the backend. */
    readonly meanGroundedness: number | null;
    /** ungrounded / scorable. */
    readonly hallucinationRate: number | null;
    readonly hallucinationInterval: { readonly low: number; readonly high: number } | null;
    /**
     * Citation markers over the set's answers (found, valid, invalid: naming a document that was
     * not retrieved, misattributed), and the citation error rate: (invalid + misattributed) / found,
     * null when no answer cites anything. Absent in reports written before citations were checked.
     */
    readonly citations?: CitationSummary & { readonly errorRate: number | null };
  };
  readonly gate: EvalGate;
  readonly regressions: ReadonlyArray<{ readonly id: string | number; readonly before: string; readonly after: string; readonly scoreBefore: number | null; readonly scoreAfter: number | null }>;
  readonly rows: readonly EvalRow[];
}

/** The limits a gated run applies, each with its source; undefined criteria do not apply. */
export interface GateSpec {
  readonly maxHallucinationRate: { readonly value: number; readonly source: GateSource };
  /** Most rows allowed unscorable (no context, a failed --target call…): a gate must not pass on the few rows that could be scored. */
  readonly maxUnscorableShare: { readonly value: number; readonly source: GateSource };
  readonly minGroundedShare?: { readonly value: number; readonly source: GateSource };
  readonly minMeanScore?: { readonly value: number; readonly source: GateSource };
  /** Most citation errors (not retrieved or misattributed) among the citations found in the set. */
  readonly maxCitationErrorRate?: { readonly value: number; readonly source: GateSource };
  /** Present when --baseline was given: no row may regress. */
  readonly baseline?: { readonly source: GateSource };
}

/** The default limit on the hallucination rate when no flag or config file sets one. */
export const DEFAULT_MAX_HALLUCINATION_RATE = 0.1;

/** The default limit on the share of unscorable rows when no flag or config file sets one. */
export const DEFAULT_MAX_UNSCORABLE_SHARE = 0.1;

/** The one-line text of a report-only run, the same in every format. */
export const REPORT_ONLY = "report only, no gate";

const pct = (x: number | null): string => (x === null ? "–" : `${(100 * x).toFixed(1)}%`);

/** A score as the reports print it; anything but a finite number (a hand-edited baseline) is "–". */
const fixed3 = (x: unknown): string => (typeof x === "number" && Number.isFinite(x) ? x.toFixed(3) : "–");

/** Passes user text (file paths) through unchanged; the Markdown report passes mdText instead. */
const plain = (text: string): string => text;

/** Where a number came from, in words; `user` escapes the parts the user wrote (file paths). */
export function describeSource(s: GateSource, user: (text: string) => string = plain): string {
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
      return `≥ ${pct(c.limit)}`;
    case "minMeanScore":
      return `≥ ${c.limit.toFixed(3)}`;
    case "noRegressions":
      return "none";
  }
}

/**
 * Applies the gate to the measures. Every criterion that cannot be measured (no scorable row)
 * fails: a gate never passes on nothing.
 */
export function evaluateGate(spec: GateSpec | "report-only", summary: EvalReport["summary"], regressions: number, threshold: { readonly value: number; readonly source: GateSource }): EvalGate {
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
  if (spec.baseline) add("noRegressions", 0, regressions, spec.baseline.source, regressions === 0, `${regressions} row(s) regressed against the baseline`);
  const failures = criteria.flatMap((c) => (c.failure ? [c.failure] : []));
  return { status: failures.length === 0 ? "passed" : "failed", passed: failures.length === 0, description: describeGate(criteria, threshold), criteria, failures };
}

/** The gate in one line, each number with its source; no criteria means report-only. */
export function describeGate(criteria: readonly GateCriterion[], threshold: { readonly value: number; readonly source: GateSource }, user: (text: string) => string = plain): string {
  const at = `answers judged at threshold ${threshold.value} (${describeSource(threshold.source, user)})`;
  if (criteria.length === 0) return `${REPORT_ONLY} (--no-gate): nothing fails the run; ${at}`;
  return `${criteria.map((c) => `${criterionMeasure(c.name)} ${criterionLimit(c)} (${describeSource(c.source, user)})`).join("; ")}; ${at}`;
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
      case "noRegressions":
        return r.regressions.some((g) => String(g.id) === String(row.id));
    }
  });
}

/** The run's outcome as a heading word. */
function outcome(r: EvalReport): string {
  return r.gate.status === "report-only" ? REPORT_ONLY : r.gate.passed ? "PASSED" : "FAILED";
}

/** The citation lines of a row's claim (its status beside each marker), naming the row's documents. */
function rowCitations(x: EvalRow, claim: ClaimResult): string[] {
  return citationLines(claim, x.sources?.length ?? 0, x.sources);
}

/**
 * The claim a row's finding is about: its lowest-scoring claim not supported (the first of equal
 * scores), else its first claim with a citation error.
 */
function findingClaim(x: EvalRow): ClaimResult | undefined {
  const lowest = x.claims.reduce<ClaimResult | undefined>((low, c) => (c.verdict !== "supported" && (low === undefined || c.score < low.score) ? c : low), undefined);
  return lowest ?? x.claims.find((c) => (c.citations ?? []).some((k) => k.status === "not_retrieved" || k.status === "misattributed"));
}

/** A row's finding in one line: its verdict, score and lowest-scoring unsupported claim with its citations (or why it is unscorable). */
function finding(x: EvalRow): string {
  const cited = x.citations ? `; ${citationSummaryText(x.citations)}` : "";
  if (x.verdict === "unscorable") return `unscorable: ${x.reason ?? ""}${x.error ? ` (${x.error})` : ""}${cited}`;
  const claim = findingClaim(x);
  const citations = claim ? rowCitations(x, claim) : [];
  return `${x.verdict} (score ${fixed3(x.score)})${claim ? `: ${claim.verdict} claim "${claim.text}"${citations.length > 0 ? ` (${citations.join("; ")})` : ""}` : ""}${cited}`;
}

/** Every cited claim of the set, rows with citation errors first (then in set order). */
function citedClaims(r: EvalReport): Array<{ row: EvalRow; claim: ClaimResult; errors: boolean }> {
  const out = r.rows.flatMap((row) => row.claims.filter((c) => (c.citations ?? []).length > 0).map((claim) => ({ row, claim, errors: (claim.citations ?? []).some((k) => k.status === "not_retrieved" || k.status === "misattributed") })));
  return [...out.filter((c) => c.errors), ...out.filter((c) => !c.errors)];
}

/** The set's citations in words, for the measures tables: "12.5% (1 of 8 citations: 1 not retrieved, 0 misattributed)". */
function citationMeasure(c: NonNullable<EvalReport["summary"]["citations"]>): string {
  return c.errorRate === null ? "– (no citations)" : `${pct(c.errorRate)} (${citationErrors(c)} of ${c.found} citations: ${c.invalid} not retrieved, ${c.misattributed} misattributed)`;
}

/**
 * The summary as GitHub-flavoured Markdown (report.md, $GITHUB_STEP_SUMMARY and stdout). Every
 * value that did not come from groundwatch itself (ids, answers, claims, file paths, the backend,
 * the baseline's rows) goes through mdText: one line, markup escaped, no HTML.
 */
export function reportMarkdown(r: EvalReport): string {
  const s = r.summary;
  const lines = [`## groundwatch eval — ${outcome(r)}`, ""];
  // Notices first: a triage-grade result must not be read as a release decision.
  if (r.notices.length > 0) lines.push(r.notices.map((n, i) => `> ${r.triage && i === 0 ? "**TRIAGE-GRADE** " : "**Note:** "}${mdText(n)}`).join("\n>\n"), "");
  // Only the user's parts (file paths) are escaped, so the line stays readable on a terminal too.
  const md = (text: string): string => mdText(text);
  lines.push(`**Gate:** ${describeGate(r.gate.criteria, { value: r.threshold, source: r.thresholdSource }, md)}.`, "");
  lines.push(`Set ${mdText(r.set)}, ${s.rows} rows, backend ${mdText(`${r.backend.name} ${r.backend.version}`)} (tier ${mdText(r.backend.tier)}).`, "");
  const crit = new Map(r.gate.criteria.map((c) => [c.name, c]));
  const labels = labelSummary(r.rows);
  const cells = (name: CriterionName): string => {
    const c = crit.get(name);
    return c ? `${criterionLimit(c)} | ${describeSource(c.source, md)} | ${c.passed ? "pass" : "**FAIL**"}` : "– | – | –";
  };
  lines.push(
    "| measure | value | gate | gate from | result |",
    "|---|---|---|---|---|",
    `| answer threshold | ${r.threshold} | – | ${describeSource(r.thresholdSource, md)} | – |`,
    `| hallucination rate | ${pct(s.hallucinationRate)}${s.hallucinationInterval ? ` (95% CI ${pct(s.hallucinationInterval.low)}–${pct(s.hallucinationInterval.high)})` : ""} | ${cells("maxHallucinationRate")} |`,
    `| grounded share | ${pct(s.groundedShare)} (${s.grounded} of ${s.rows}) | ${cells("minGroundedShare")} |`,
    `| unscorable share | ${pct(s.rows > 0 ? s.unscorable / s.rows : null)} (${s.unscorable} of ${s.rows}) | ${cells("maxUnscorableShare")} |`,
    `| mean score (raw, backend-specific) | ${fixed3(s.meanGroundedness)} | ${cells("minMeanScore")} |`,
    // Only for sets with citations, or a citation gate: other sets read as before.
    ...(crit.has("maxCitationErrorRate") || (s.citations?.found ?? 0) > 0 ? [`| citation error rate (not retrieved + misattributed) | ${s.citations ? citationMeasure(s.citations) : "–"} | ${cells("maxCitationErrorRate")} |`] : []),
    `| unscorable | ${s.unscorable} | – | – | – |`,
    `| regressions vs baseline | ${r.regressions.length} | ${cells("noRegressions")} |`,
    ...(labels ? [`| label agreement (label 1 grounded, 0 not) | ${labelSummaryText(labels)} | – | – | – |`] : []),
  );
  // The failures are groundwatch's own sentences (numbers and flags), not user text.
  if (r.gate.failures.length > 0) lines.push("", "**Why it failed:**", "", ...r.gate.failures.map((f) => `- ${f}`));
  // Rows not grounded, and grounded rows that fail the gate (a misattributed citation).
  const bad = r.rows.filter((x) => x.verdict !== "grounded" || rowFailsGate(r, x).length > 0).slice(0, 20);
  if (bad.length > 0) {
    lines.push("", "| id | verdict | score | gate | lowest-scoring unsupported claim | evidence |", "|---|---|---|---|---|---|");
    for (const x of bad) {
      const first = findingClaim(x);
      const citations = first ? rowCitations(x, first) : [];
      const claim = first ? `${first.text}${citations.length > 0 ? ` — ${citations.join("; ")}` : ""}` : (x.reason ?? x.error ?? "");
      const shown = first ? shownEvidence(first) : undefined;
      const evidence = shown ? mdText(`${shown.label} [${evidenceLocation(shown.evidence)}]: ${shown.evidence.text}`, 240) : "–";
      const against = rowFailsGate(r, x);
      lines.push(`| ${mdText(x.id, 80)} | ${mdText(x.verdict)} | ${fixed3(x.score)} | ${against.length > 0 ? `fails it (${against.map((c) => criterionMeasure(c.name)).join(", ")})` : "–"} | ${mdText(claim, 240)} | ${evidence} |`);
    }
  }
  // Labelled rows whose verdict disagrees with their label, grounded ones included (a missed hallucination).
  const disagree = r.rows.filter((x) => labelAgreement(x) === "disagree");
  if (disagree.length > 0) {
    lines.push("", "| id | label | verdict | score |", "|---|---|---|---|");
    for (const x of disagree.slice(0, 50)) lines.push(`| ${mdText(x.id, 80)} | ${x.label} (${x.label === 1 ? "grounded" : "not grounded"}) | ${mdText(x.verdict)} | ${fixed3(x.score)} |`);
    if (disagree.length > 50) lines.push("", `${disagree.length - 50} more rows disagree with their label in report.html.`);
  }
  // Each cited claim with its citations' statuses beside it, errors first.
  const cited = citedClaims(r);
  if (cited.length > 0) {
    lines.push("", "| id | cited claim | verdict | citations |", "|---|---|---|---|");
    for (const { row, claim } of cited.slice(0, 50)) lines.push(`| ${mdText(row.id, 80)} | ${mdText(claim.text, 120)} | ${mdText(claim.verdict)} | ${mdText(rowCitations(row, claim).join("; "), 300)} |`);
    if (cited.length > 50) lines.push("", `${cited.length - 50} more cited claims in report.json and report.html.`);
  }
  if (r.regressions.length > 0) {
    lines.push("", "| regressed row | before | after |", "|---|---|---|");
    for (const g of r.regressions.slice(0, 50)) lines.push(`| ${mdText(g.id, 80)} | ${mdText(g.before)} (${fixed3(g.scoreBefore)}) | ${mdText(g.after)} (${fixed3(g.scoreAfter)}) |`);
  }
  return lines.join("\n") + "\n";
}

/**
 * JUnit XML in two suites, so that it always agrees with the exit code:
 * - "groundwatch eval: gate": one testcase per criterion, failing exactly when that criterion
 *   fails (report-only: one skipped testcase), with the run's facts as properties;
 * - "groundwatch eval: rows": one testcase per row, failing only when the gate failed and the
 *   row counts against a failed criterion (rowFailsGate). Any other finding (an ungrounded row
 *   in a passing gate) is reported in the testcase's system-out, never as a failure.
 * XML-escaped, with characters XML 1.0 cannot carry dropped.
 */
export function reportJunit(r: EvalReport): string {
  const attr = (v: string): string => escapeXml(v, true);
  const props: Array<[string, string]> = [
    ["groundwatch.gate", r.gate.status],
    ["groundwatch.gate.description", r.gate.description],
    ["groundwatch.backend", `${r.backend.name} ${r.backend.version}`],
    ["groundwatch.backend.tier", r.backend.tier],
    ["groundwatch.triage", String(r.triage)],
    ["groundwatch.threshold", String(r.threshold)],
    ["groundwatch.threshold.source", describeSource(r.thresholdSource)],
    ...r.gate.criteria.flatMap((c): Array<[string, string]> => [
      [`groundwatch.gate.${c.name}`, String(c.limit)],
      [`groundwatch.gate.${c.name}.source`, describeSource(c.source)],
    ]),
    ...r.notices.map((n, i): [string, string] => [`groundwatch.notice.${i + 1}`, n]),
  ];
  const properties = `    <properties>\n${props.map(([k, v]) => `      <property name="${attr(k)}" value="${attr(v)}"/>`).join("\n")}\n    </properties>`;
  const summary = escapeXml([...r.notices, `gate: ${r.gate.description}`].join("\n"));
  let gateCases: string[];
  if (r.gate.status === "report-only") {
    gateCases = [`    <testcase classname="groundwatch.eval.gate" name="gate">\n      <skipped message="${attr(`${REPORT_ONLY} (--no-gate)`)}"/>\n      <system-out>${summary}</system-out>\n    </testcase>`];
  } else {
    gateCases = r.gate.criteria.map((c) => {
      const measured = c.name === "noRegressions" ? String(c.measured) : c.name === "minMeanScore" ? fixed3(c.measured) : pct(c.measured);
      const line = `${criterionMeasure(c.name)} ${measured}, gate ${criterionLimit(c)} (${describeSource(c.source)})`;
      const body = c.failure ? `\n      <failure message="${attr(c.failure)}" type="gate">${escapeXml(line)}</failure>` : "";
      return `    <testcase classname="groundwatch.eval.gate" name="${attr(criterionMeasure(c.name))}">${body}\n      <system-out>${escapeXml(`${line}\n`)}${summary}</system-out>\n    </testcase>`;
    });
  }
  const gateFailures = r.gate.criteria.filter((c) => !c.passed).length;
  let rowFailures = 0;
  const rowCases = r.rows.map((x) => {
    const name = attr(String(x.id));
    const against = rowFailsGate(r, x);
    // A grounded row fails only through its citations (a misattributed one, under a citation gate).
    if (x.verdict === "grounded" && against.length === 0) return `    <testcase classname="groundwatch.eval" name="${name}"/>`;
    const message = finding(x);
    if (against.length === 0) {
      const why = r.gate.status === "report-only" ? REPORT_ONLY : "does not fail the gate";
      return `    <testcase classname="groundwatch.eval" name="${name}">\n      <system-out>${escapeXml(`${message} — ${why}`)}</system-out>\n    </testcase>`;
    }
    rowFailures++;
    const claim = findingClaim(x);
    const shown = claim ? shownEvidence(claim) : undefined;
    const full = `counts against the failed gate (${against.map((c) => criterionMeasure(c.name)).join(", ")}): ${message}`;
    const body = claim && shown ? `${shown.label}: ${shown.evidence.text}${claim.citations ? `\ncitations: ${rowCitations(x, claim).join("; ")}` : ""}` : full;
    return `    <testcase classname="groundwatch.eval" name="${name}">\n      <failure message="${attr(full.slice(0, 500))}" type="${attr(x.verdict)}">${escapeXml(body)}</failure>\n    </testcase>`;
  });
  const skipped = r.gate.status === "report-only" ? 1 : 0;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="groundwatch eval" tests="${gateCases.length + rowCases.length}" failures="${gateFailures + rowFailures}" skipped="${skipped}">`,
    `  <testsuite name="groundwatch eval: gate" tests="${gateCases.length}" failures="${gateFailures}" skipped="${skipped}">`,
    properties,
    ...gateCases,
    "  </testsuite>",
    `  <testsuite name="groundwatch eval: rows" tests="${rowCases.length}" failures="${rowFailures}">`,
    ...rowCases,
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}

/** The answer with every unsupported, misattributed or contradicted claim highlighted (offsets are into the answer). */
function highlighted(answer: string, claims: readonly ClaimResult[]): string {
  const marks = claims.filter((c) => c.verdict !== "supported").sort((a, b) => a.start - b.start);
  let out = "";
  let at = 0;
  for (const c of marks) {
    if (c.start < at) continue;
    out += escapeHtml(answer.slice(at, c.start));
    out += `<mark class="${c.verdict}" title="${escapeHtml(`${c.verdict}, score ${c.score.toFixed(3)}`)}">${escapeHtml(answer.slice(c.start, c.end))}</mark>`;
    at = c.end;
  }
  return out + escapeHtml(answer.slice(at));
}

/** Score histogram as inline SVG: ten bins, the threshold drawn. */
export function histogramSvg(scores: readonly number[], threshold: number): string {
  const bins = Array.from({ length: 10 }, () => 0);
  for (const s of scores) bins[Math.min(9, Math.floor(s * 10))]! += 1;
  const max = Math.max(1, ...bins);
  const w = 400;
  const h = 160;
  const bars = bins
    .map((n, i) => {
      const bh = (n / max) * (h - 30);
      return `<rect class="bar" x="${20 + i * 37}" y="${h - 20 - bh}" width="33" height="${bh}" fill="${(i + 1) / 10 <= threshold ? "#c0392b" : "#2e86c1"}"><title>${(i / 10).toFixed(1)}–${((i + 1) / 10).toFixed(1)}: ${n}</title></rect>`;
    })
    .join("");
  const tx = 20 + threshold * 370;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" role="img" aria-label="score distribution"><line x1="20" y1="${h - 20}" x2="390" y2="${h - 20}" stroke="#555"/>${bars}<line class="threshold" x1="${tx}" y1="5" x2="${tx}" y2="${h - 20}" stroke="#000" stroke-dasharray="4 3"/><text x="20" y="${h - 5}" font-size="10">0</text><text x="380" y="${h - 5}" font-size="10">1</text><text x="${tx + 3}" y="14" font-size="10">threshold ${threshold.toFixed(2)}</text></svg>`;
}

export function reportHtml(r: EvalReport): string {
  const s = r.summary;
  const labels = labelSummary(r.rows);
  const rows = r.rows
    .map((x) => {
      // Claims not supported, and cited claims (each citation's status beside its marker).
      const evidence = x.claims
        .filter((c) => c.verdict !== "supported" || (c.citations ?? []).length > 0)
        .map((c) => {
          const citations = rowCitations(x, c);
          const cites = citations.length > 0 ? `<ul class="cites">${citations.map((line, k) => `<li class="${escapeHtml(c.citations?.[k]?.status ?? "")}">${escapeHtml(line)}</li>`).join("")}</ul>` : "";
          const shown = shownEvidence(c);
          return `<li><b>${escapeHtml(c.verdict)}</b> (${c.score.toFixed(3)}): “${escapeHtml(c.text)}”${shown ? `<br><span class="ev">${shown.label} [${evidenceLocation(shown.evidence)}]: ${escapeHtml(shown.evidence.text.slice(0, 400))}</span>` : ""}${c.notes.length ? `<br><span class="why">${escapeHtml(c.notes.join("; "))}</span>` : ""}${cites}</li>`;
        })
        .join("");
      const against = rowFailsGate(r, x);
      const gate = against.length > 0 ? `<span class="fail">fails the gate (${escapeHtml(against.map((c) => criterionMeasure(c.name)).join(", "))})</span>` : "–";
      const label = labels ? `<td class="${labelAgreement(x) === "disagree" ? "fail" : ""}">${escapeHtml(labelCell(x))}</td>` : "";
      return `<tr class="${escapeHtml(x.verdict)}"><td>${escapeHtml(String(x.id))}</td><td>${escapeHtml(x.verdict)}</td><td>${x.score === null ? "–" : x.score.toFixed(3)}</td>${label}<td>${gate}</td><td><div class="answer">${highlighted(x.answer, x.claims)}</div>${x.citations ? `<div class="why">${escapeHtml(citationSummaryText(x.citations))}</div>` : ""}${evidence ? `<ul>${evidence}</ul>` : ""}${x.reason ? `<div class="why">${escapeHtml(x.reason)}</div>` : ""}${x.error ? `<div class="why">${escapeHtml(x.error)}</div>` : ""}</td></tr>`;
    })
    .join("\n");
  const scores = r.rows.filter((x) => x.score !== null).map((x) => x.score as number);
  const crit = new Map(r.gate.criteria.map((c) => [c.name, c]));
  const gateCells = (name: CriterionName): string => {
    const c = crit.get(name);
    return c ? `<td>${escapeHtml(criterionLimit(c))}</td><td>${escapeHtml(describeSource(c.source))}</td><td class="${c.passed ? "pass" : "fail"}">${c.passed ? "pass" : "FAIL"}</td>` : "<td>–</td><td>–</td><td>–</td>";
  };
  const word = outcome(r);
  const cls = r.gate.status === "report-only" ? "report-only" : r.gate.passed ? "pass" : "fail";
  const notices = r.notices.map((n, i) => `<div class="${r.triage && i === 0 ? "notice triage" : "notice"}">${r.triage && i === 0 ? "<b>TRIAGE-GRADE</b> " : "<b>Note:</b> "}${escapeHtml(n)}</div>`).join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>groundwatch eval — ${escapeHtml(word)}${r.triage ? " (triage-grade)" : ""}</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#222}h1{font-size:1.4em}.pass{color:#1e7e34}.fail{color:#c0392b}.report-only{color:#555}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:6px;vertical-align:top;text-align:left}
mark.unsupported{background:#ffe08a}mark.contradicted{background:#f5a3a3}mark.misattributed{background:#f9c98b}.cites li.not_retrieved,.cites li.misattributed{color:#c0392b}.ev{color:#555}.why{color:#777;font-size:12px}
.summary td,.summary th{border:none;padding:2px 12px 2px 0}.notice{border:2px solid #b9770e;background:#fef5e7;padding:8px 12px;margin:0 0 10px}.notice.triage{border-color:#c0392b;background:#fdedec;font-size:1.1em}
.gate{margin:0 0 12px}
</style></head><body>
<h1>groundwatch eval — <span class="${cls}">${escapeHtml(word)}</span></h1>
${notices}
<p class="gate"><b>Gate:</b> ${escapeHtml(r.gate.description)}.</p>
<table class="summary">
<tr><th>measure</th><th>value</th><th>gate</th><th>gate from</th><th>result</th></tr>
<tr><td>set</td><td>${escapeHtml(r.set)} (${s.rows} rows)</td><td></td><td></td><td></td></tr>
<tr><td>backend</td><td>${escapeHtml(`${r.backend.name} ${r.backend.version}`)} (tier ${escapeHtml(r.backend.tier)})</td><td></td><td></td><td></td></tr>
<tr><td>answer threshold</td><td>${r.threshold}</td><td>–</td><td>${escapeHtml(describeSource(r.thresholdSource))}</td><td>–</td></tr>
<tr><td>hallucination rate</td><td>${pct(s.hallucinationRate)}${s.hallucinationInterval ? ` (95% CI ${pct(s.hallucinationInterval.low)}–${pct(s.hallucinationInterval.high)})` : ""}</td>${gateCells("maxHallucinationRate")}</tr>
<tr><td>grounded share</td><td>${pct(s.groundedShare)} (${s.grounded} of ${s.rows})</td>${gateCells("minGroundedShare")}</tr>
<tr><td>unscorable share</td><td>${pct(s.rows > 0 ? s.unscorable / s.rows : null)} (${s.unscorable} of ${s.rows})</td>${gateCells("maxUnscorableShare")}</tr>
<tr><td>mean score (raw, backend-specific)</td><td>${fixed3(s.meanGroundedness)}</td>${gateCells("minMeanScore")}</tr>
${crit.has("maxCitationErrorRate") || (s.citations?.found ?? 0) > 0 ? `<tr><td>citation error rate (not retrieved + misattributed)</td><td>${s.citations ? escapeHtml(citationMeasure(s.citations)) : "–"}</td>${gateCells("maxCitationErrorRate")}</tr>\n` : ""}<tr><td>unscorable</td><td>${s.unscorable}</td><td>–</td><td>–</td><td>–</td></tr>
<tr><td>regressions</td><td>${r.regressions.length}</td>${gateCells("noRegressions")}</tr>
${labels ? `<tr><td>label agreement (label 1 grounded, 0 not)</td><td>${escapeHtml(labelSummaryText(labels))}</td><td>–</td><td>–</td><td>–</td></tr>\n` : ""}</table>
${r.gate.failures.length ? `<ul class="fail">${r.gate.failures.map((f) => `<li>${escapeHtml(f)}</li>`).join("")}</ul>` : ""}
<h2>Score distribution</h2>
${histogramSvg(scores, r.threshold)}
<h2>Rows</h2>
<p>Unsupported claims are <mark class="unsupported">highlighted</mark>, misattributed ones (supported by another document than the one cited) <mark class="misattributed">in orange</mark>, contradicted ones <mark class="contradicted">in red</mark>. Each cited claim lists its citations, each with its status.</p>
<table><tr><th>id</th><th>verdict</th><th>score</th>${labels ? "<th>label</th>" : ""}<th>gate</th><th>answer and evidence</th></tr>
${rows}
</table>
<p class="why">Generated ${escapeHtml(r.createdAt)} by groundwatch.</p>
</body></html>
`;
}
