import { CAUSES } from "../../core/cause.ts";
import type { AnswerSpan, ClaimResult } from "../../core/result.ts";
import { citationErrors, citationLines, citationSummaryText } from "../report/citations.ts";
import { labelSummary, labelSummaryText, verdictRatesText } from "../report/labels.ts";
import { fixed3, pct, plain } from "./format.ts";
import { criterionLimit, describeGateSource } from "./gate.ts";
import type { CauseSummary, CriterionName, EvalReport, EvalRow, SpanSummary } from "./types.ts";
import { REPORT_ONLY } from "./types.ts";

/** The run's outcome as a heading word. */
export function outcome(r: EvalReport): string {
  return r.gate.status === "report-only" ? REPORT_ONLY : r.gate.passed ? "PASSED" : "FAILED";
}

/** The citation lines of a row's claim (its status beside each marker), naming the row's documents. */
export function rowCitations(x: EvalRow, claim: ClaimResult): string[] {
  return citationLines(claim, x.sources?.length ?? 0, x.sources);
}

/**
 * The claim a row's finding is about: its lowest-scoring claim not supported (the first of equal
 * scores), else its first claim with a citation error.
 */
export function findingClaim(x: EvalRow): ClaimResult | undefined {
  const lowest = x.claims.reduce<ClaimResult | undefined>((low, c) => (c.verdict !== "supported" && (low === undefined || c.score < low.score) ? c : low), undefined);
  return lowest ?? x.claims.find((c) => (c.citations ?? []).some((k) => k.status === "not_retrieved" || k.status === "misattributed"));
}

/** A row's finding in one line: its verdict, score, cause and lowest-scoring unsupported claim with its citations (or why it is unscorable). */
export function finding(x: EvalRow): string {
  const cited = x.citations ? `; ${citationSummaryText(x.citations)}` : "";
  if (x.verdict === "unscorable") return `unscorable: ${x.reason ?? ""}${x.error ? ` (${x.error})` : ""}${cited}`;
  const claim = findingClaim(x);
  const citations = claim ? rowCitations(x, claim) : [];
  const marked = x.spans && x.spans.length > 0 ? `; marked: ${spansText(x.spans)}` : "";
  return `${x.verdict} (score ${fixed3(x.score)}${x.cause ? `, cause ${x.cause}` : ""})${claim ? `: ${claim.verdict} claim "${claim.text}"${citations.length > 0 ? ` (${citations.join("; ")})` : ""}` : ""}${cited}${marked}`;
}

/** Spans a report lists per row or claim (the rest are counted). */
export const REPORT_SPANS_SHOWN = 10;
/** Characters of one span's words a report shows. */
export const REPORT_SPAN_TEXT = 120;

/** A span's words, offsets and probability in plain text: "Lyon" [25, 29) p=0.91 (each format escapes it). */
export function spanText(s: AnswerSpan): string {
  const words = s.text.length > REPORT_SPAN_TEXT ? `${s.text.slice(0, REPORT_SPAN_TEXT - 1)}…` : s.text;
  return `"${words}" [${s.start}, ${s.end}) p=${s.probability.toFixed(2)}`;
}

/** The spans of a claim (its indexes into the row's spans), in answer order. */
export function claimSpans(x: EvalRow, claim: ClaimResult): AnswerSpan[] {
  return (claim.spans ?? []).flatMap((i) => (x.spans?.[i] ? [x.spans[i]] : []));
}

/** Spans in plain text, the first REPORT_SPANS_SHOWN, "(N more)" after: "Lyon" [25, 29) p=0.91; …. */
export function spansText(spans: readonly AnswerSpan[]): string {
  const shown = spans.slice(0, REPORT_SPANS_SHOWN).map(spanText).join("; ");
  return spans.length > REPORT_SPANS_SHOWN ? `${shown} (${spans.length - REPORT_SPANS_SHOWN} more)` : shown;
}

/** The set's spans in words, for the measures tables: "3 of 10 answers, 4 claims (5 spans, 10 detector calls)". */
export function spanMeasure(s: SpanSummary): string {
  return `${s.answers} of ${s.rows} answer${s.rows === 1 ? "" : "s"}, ${s.claims} claim${s.claims === 1 ? "" : "s"} (${s.spans} span${s.spans === 1 ? "" : "s"}, ${s.calls} detector call${s.calls === 1 ? "" : "s"})`;
}

/** Every cited claim of the set, rows with citation errors first (then in set order). */
export function citedClaims(r: EvalReport): Array<{ row: EvalRow; claim: ClaimResult; errors: boolean }> {
  const out = r.rows.flatMap((row) => row.claims.filter((c) => (c.citations ?? []).length > 0).map((claim) => ({ row, claim, errors: (claim.citations ?? []).some((k) => k.status === "not_retrieved" || k.status === "misattributed") })));
  return [...out.filter((c) => c.errors), ...out.filter((c) => !c.errors)];
}

/** The set's citations in words, for the measures tables: "12.5% (1 of 8 citations: 1 not retrieved, 0 misattributed)". */
export function citationMeasure(c: NonNullable<EvalReport["summary"]["citations"]>): string {
  return c.errorRate === null ? "– (no citations)" : `${pct(c.errorRate)} (${citationErrors(c)} of ${c.found} citations: ${c.invalid} not retrieved, ${c.misattributed} misattributed)`;
}

/** The failing answers by cause in words, causes with none left out: "2 retrieval, 1 generation" ("none" when no answer failed). */
export function causeCounts(a: CauseSummary): string {
  const parts = CAUSES.filter((c) => a.causes[c] > 0).map((c) => `${a.causes[c]} ${c}`);
  return parts.length > 0 ? parts.join(", ") : "none";
}

/** The set's answer relevance in words: "0.812 mean over 4 answers with a question, 1 off-topic" ("–" when none had a question). */
export function answerRelevanceMeasure(a: CauseSummary): string {
  const r = a.answerRelevance;
  return r.mean === null ? "– (no row with a question)" : `${fixed3(r.mean)} mean over ${r.measured} answer${r.measured === 1 ? "" : "s"} with a question, ${r.offTopic} off-topic`;
}

/** A row's relevance in words: "context 0.15 (off-topic documents), answer 0.81"; "" when none was measured. */
export function rowRelevance(x: EvalRow): string {
  const rel = x.relevance;
  if (!rel) return "";
  const parts = [
    ...(rel.context ? [`context ${rel.context.best.toFixed(2)}${rel.context.addressed ? "" : " (off-topic documents)"}`] : []),
    ...(rel.answer ? [`answer ${rel.answer.refusal ? "1.00 (a refusal)" : `${rel.answer.score.toFixed(2)}${rel.answer.onTopic ? "" : " (off-topic)"}`}`] : []),
    ...(rel.unmeasured ? [`not measured (${rel.unmeasured.reason})`] : []),
  ];
  return parts.length > 0 ? `relevance: ${parts.join(", ")}` : "";
}

/** The set and backend in one sentence, as every report states them; `text` escapes the user's parts. */
export function describeRun(r: EvalReport, text: (value: string) => string): string {
  return `Set ${text(r.set)}, ${r.summary.rows} rows, backend ${text(`${r.backend.name} ${r.backend.version}`)} (tier ${text(r.backend.tier)}).`;
}

/** One row of the summary's "measure" table, as every report shows it. */
export interface MeasureRow {
  /** What is measured, e.g. "hallucination rate". */
  readonly measure: string;
  readonly value: string;
  /** The criterion's condition ("≤ 10.0%"), "–" when no criterion applies to the measure. */
  readonly gate: string;
  /** Where the gate's number (or the threshold) came from, "–" when none applies. */
  readonly from: string;
  /** The criterion's result; undefined when no criterion applies. */
  readonly passed: boolean | undefined;
}

/**
 * The summary's "measure" table, which report.md and report.html both render: one function, so
 * the two never show different rows or labels. `user` escapes the parts the user wrote (file paths).
 */
export function measureRows(r: EvalReport, user: (text: string) => string = plain): MeasureRow[] {
  const s = r.summary;
  const crit = new Map(r.gate.criteria.map((c) => [c.name, c]));
  const labels = labelSummary(r.rows);
  const row = (measure: string, value: string, name?: CriterionName): MeasureRow => {
    const c = name === undefined ? undefined : crit.get(name);
    return c ? { measure, value, gate: criterionLimit(c), from: describeGateSource(c.source, user), passed: c.passed } : { measure, value, gate: "–", from: "–", passed: undefined };
  };
  return [
    { measure: "answer threshold", value: String(r.threshold), gate: "–", from: describeGateSource(r.thresholdSource, user), passed: undefined },
    row("hallucination rate", `${pct(s.hallucinationRate)}${s.hallucinationInterval ? ` (95% CI ${pct(s.hallucinationInterval.low)}–${pct(s.hallucinationInterval.high)})` : ""}`, "maxHallucinationRate"),
    row("grounded share", `${pct(s.groundedShare)} (${s.grounded} of ${s.rows})`, "minGroundedShare"),
    row("unscorable share", `${pct(s.rows > 0 ? s.unscorable / s.rows : null)} (${s.unscorable} of ${s.rows})`, "maxUnscorableShare"),
    row("mean score (raw, backend-specific)", fixed3(s.meanGroundedness), "minMeanScore"),
    // Only for sets with citations, or a citation gate: other sets read as before.
    ...(crit.has("maxCitationErrorRate") || (s.citations?.found ?? 0) > 0 ? [row("citation error rate (not retrieved + misattributed)", s.citations ? citationMeasure(s.citations) : "–", "maxCitationErrorRate")] : []),
    row("unscorable", String(s.unscorable)),
    row("regressions vs baseline", String(r.regressions.length), "noRegressions"),
    // Only when relevance was measured: failing answers by cause, and answer relevance.
    ...(s.attribution ? [row("failing answers by cause", causeCounts(s.attribution)), row("answer relevance", answerRelevanceMeasure(s.attribution))] : []),
    // Only when a span detector ran: answers and claims it marked words in.
    ...(s.spans ? [row("marked by the span detector", spanMeasure(s.spans))] : []),
    ...(labels || crit.has("minLabelAgreement") ? [row("label agreement (label 1 grounded, 0 not)", labels ? labelSummaryText(labels) : "–", "minLabelAgreement")] : []),
    // The threshold's rates on the labelled rows scored, in calibrate's words.
    ...(labels ? [row("verdicts by label", verdictRatesText(labels.verdicts))] : []),
  ];
}
