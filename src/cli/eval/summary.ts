import { resolve } from "node:path";
import { wilsonInterval } from "../../core/calibration.ts";
import { UsageError } from "../shared/command.ts";
import { readTextFile } from "../shared/files.ts";
import type { CommandIo } from "../shared/io.ts";
import { CAUSES } from "../../core/cause.ts";
import type { AnswerCause } from "../../core/result.ts";
import type { CauseSummary, EvalReport, EvalRow, SpanSummary } from "./types.ts";

/** The set's failing answers by cause and its answer relevance; undefined when no row was attributed or measured (relevance off). */
export function summariseCauses(results: readonly EvalRow[]): CauseSummary | undefined {
  if (!results.some((r) => r.relevance !== undefined || r.cause !== undefined)) return undefined;
  const causes = Object.fromEntries(CAUSES.map((c) => [c, 0])) as Record<AnswerCause, number>;
  for (const r of results) if (r.verdict === "ungrounded" && r.cause) causes[r.cause]++;
  const answers = results.flatMap((r) => (r.relevance?.answer ? [r.relevance.answer] : []));
  return {
    causes,
    answerRelevance: { measured: answers.length, mean: answers.length > 0 ? answers.reduce((n, a) => n + a.score, 0) / answers.length : null, offTopic: answers.filter((a) => !a.onTopic).length },
  };
}

/** What a span detector marked over the set; undefined when it ran on no row (no row has `spans`). */
export function summariseSpans(results: readonly EvalRow[]): SpanSummary | undefined {
  const ran = results.filter((r) => r.spans !== undefined);
  if (ran.length === 0) return undefined;
  let answers = 0;
  let claims = 0;
  let spans = 0;
  let calls = 0;
  for (const r of ran) {
    const n = r.spans?.length ?? 0;
    spans += n;
    if (n > 0) answers++;
    claims += r.claims.filter((c) => (c.spans ?? []).length > 0).length;
    calls += r.callsByEngine?.spans ?? 0;
  }
  return { rows: ran.length, answers, claims, spans, calls };
}

/** The set's measures over its scored rows: shares, rates, the mean score and the citations. */
export function summarise(results: readonly EvalRow[]): EvalReport["summary"] {
  const scorable = results.filter((r) => r.verdict !== "unscorable");
  const ungrounded = scorable.filter((r) => r.verdict === "ungrounded").length;
  const grounded = scorable.length - ungrounded;
  const cited = { found: 0, valid: 0, invalid: 0, misattributed: 0 };
  for (const r of results) {
    if (!r.citations) continue;
    cited.found += r.citations.found;
    cited.valid += r.citations.valid;
    cited.invalid += r.citations.invalid;
    cited.misattributed += r.citations.misattributed;
  }
  const attribution = summariseCauses(results);
  const spans = summariseSpans(results);
  return {
    rows: results.length,
    scorable: scorable.length,
    unscorable: results.length - scorable.length,
    grounded,
    groundedShare: grounded / results.length,
    meanGroundedness: scorable.length ? scorable.reduce((a, r) => a + (r.score ?? 0), 0) / scorable.length : null,
    hallucinationRate: scorable.length ? ungrounded / scorable.length : null,
    hallucinationInterval: scorable.length ? wilsonInterval(ungrounded, scorable.length) : null,
    // Citation errors over every citation the answers make: markers naming a document that was not retrieved, and misattributed ones.
    citations: { ...cited, errorRate: cited.found > 0 ? (cited.invalid + cited.misattributed) / cited.found : null },
    ...(attribution ? { attribution } : {}),
    ...(spans ? { spans } : {}),
  };
}

/** Reads a previous report.json for --baseline; a bad file is a UsageError naming it. */
export function readBaseline(path: string, io: CommandIo): EvalReport {
  try {
    const baseline = JSON.parse(readTextFile(resolve(io.cwd, path))) as EvalReport;
    if (!Array.isArray(baseline.rows)) throw new Error('no "rows"');
    return baseline;
  } catch (error) {
    throw new UsageError(`cannot read --baseline ${path}: ${(error as Error).message}`);
  }
}

/** The rows that regressed against the baseline: were grounded and are not, or scored more than 0.1 lower (or no longer scored). */
export function regressionsAgainst(baseline: EvalReport, results: readonly EvalRow[]): Array<EvalReport["regressions"][number]> {
  const regressions: Array<EvalReport["regressions"][number]> = [];
  const before = new Map(baseline.rows.map((r) => [String(r.id), r]));
  for (const r of results) {
    const b = before.get(String(r.id));
    if (!b) continue;
    const worse = (b.verdict === "grounded" && r.verdict !== "grounded") || (b.score !== null && r.score !== null && r.score < b.score - 0.1) || (b.score !== null && r.score === null);
    if (worse) regressions.push({ id: r.id, before: b.verdict, after: r.verdict, scoreBefore: b.score, scoreAfter: r.score });
  }
  return regressions;
}
