import { escapeXml } from "../shared/escape.ts";
import { evidenceText, shownEvidence } from "../report/evidence.ts";
import { claimSpans, finding, findingClaim, rowCitations, spansText } from "./findings.ts";
import { fixed3, pct } from "./format.ts";
import { criterionLimit, criterionMeasure, describeGateSource, rowFailsGate } from "./gate.ts";
import type { EvalReport } from "./types.ts";
import { REPORT_ONLY } from "./types.ts";

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
    ["groundwatch.threshold.source", describeGateSource(r.thresholdSource)],
    ...r.gate.criteria.flatMap((c): Array<[string, string]> => [
      [`groundwatch.gate.${c.name}`, String(c.limit)],
      [`groundwatch.gate.${c.name}.source`, describeGateSource(c.source)],
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
      const line = `${criterionMeasure(c.name)} ${measured}, gate ${criterionLimit(c)} (${describeGateSource(c.source)})`;
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
    const marked = claim ? claimSpans(x, claim) : [];
    const body = claim && shown ? `${shown.label}: ${evidenceText(shown.evidence)}${claim.citations ? `\ncitations: ${rowCitations(x, claim).join("; ")}` : ""}${marked.length > 0 ? `\nmarked: ${spansText(marked)}` : ""}` : full;
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
