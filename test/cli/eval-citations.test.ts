import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { EvalReport } from "../../src/cli/eval/types.ts";
import { CITED_ANSWERS, CITED_DOCS, judgeEnv, judgeFlags, startCitingJudge } from "../helpers/citations.ts";
import type { CliRun } from "../helpers/cli.ts";
import { runCli, tempDir } from "../helpers/cli.ts";
import type { Reports } from "../helpers/eval.ts";
import { junitFailures, reports, rows, set } from "../helpers/eval.ts";

const QUESTION = "What are the refund and shipping terms?";
const row = (id: string, answer: string): unknown => ({ id, question: QUESTION, context: CITED_DOCS, answer });
/** 4 citations: [3] not retrieved, [2] misattributed, and two supported ones. */
const MIXED = [row("invented", CITED_ANSWERS.invented), row("misattributed", CITED_ANSWERS.misattributed), row("cited", CITED_ANSWERS.cited)];

/** Runs eval with the citing judge into a fresh --out; the hallucination limit is lifted so the citation gate stands alone. */
async function evalWithJudge(rowsOfSet: unknown[], flags: string[]): Promise<CliRun & Reports> {
  const judge = await startCitingJudge();
  const out = tempDir();
  const run = await runCli(["eval", "--set", set(rowsOfSet), "--out", out, ...judgeFlags(judge.url), "--max-hallucination-rate", "1", ...flags], { env: judgeEnv() });
  expect(existsSync(join(out, "report.json")), run.stderr).toBe(true);
  return { ...run, ...reports(out) };
}

const criterion = (r: EvalReport) => r.gate.criteria.find((c) => c.name === "maxCitationErrorRate");

describe("groundwatch eval --max-citation-error-rate", () => {
  it("fails a set whose not-retrieved and misattributed citations exceed the limit, in every report", async () => {
    const r = await evalWithJudge(MIXED, ["--max-citation-error-rate", "0.25"]);
    expect(r.code).toBe(1);
    expect(r.json.summary.citations).toEqual({ found: 4, valid: 3, invalid: 1, misattributed: 1, errorRate: 0.5 });
    expect(criterion(r.json)).toEqual({
      name: "maxCitationErrorRate",
      limit: 0.25,
      measured: 0.5,
      source: { kind: "flag", flag: "--max-citation-error-rate" },
      passed: false,
      failure: "citation error rate 50.0% (2 of 4 citations: 1 not retrieved, 1 misattributed) is above the maximum 25.0%",
    });
    expect(r.json.gate.description).toContain("citation error rate ≤ 25.0% (flag --max-citation-error-rate)");
    // stdout and report.md: the criterion's row, the failure, and each cited claim with its citations' statuses.
    for (const md of [r.stdout, r.md]) {
      expect(md).toContain("| citation error rate (not retrieved + misattributed) | 50.0% (2 of 4 citations: 1 not retrieved, 1 misattributed) | ≤ 25.0% | flag --max-citation-error-rate | **FAIL** |");
      expect(md).toContain("| misattributed | Refunds are paid within 30 days of delivery. | misattributed | \\[2\\] misattributed — supported by document 1 \\(refunds\\), not by document 2 \\(shipping\\) |");
      expect(md).toContain('| invented | Gift cards never expire. | unsupported | \\[3\\] not retrieved — names "3", not among the 2 retrieved documents |');
      expect(md).toContain("| cited | Refunds are paid within 30 days of delivery. | supported | \\[1\\] supported \\(1.000\\) by document 1 \\(refunds\\) |");
    }
    // junit.xml: the criterion's testcase fails, and so do the rows that count against it.
    expect(r.junit).toMatch(/<testcase classname="groundwatch\.eval\.gate" name="citation error rate">\s*<failure message="citation error rate 50\.0%/);
    expect(r.junit).toContain('<property name="groundwatch.gate.maxCitationErrorRate.source" value="flag --max-citation-error-rate"/>');
    expect(junitFailures(r.junit, "groundwatch eval: gate")).toBe(1);
    expect(junitFailures(r.junit, "groundwatch eval: rows")).toBe(2);
    expect(r.junit).toMatch(/name="misattributed">\s*<failure message="counts against the failed gate \(citation error rate\): ungrounded \(score 0\.000, cause citation\): misattributed claim &quot;Refunds are paid within 30 days of delivery\.&quot; \(\[2\] misattributed — supported by document 1 \(refunds\), not by document 2 \(shipping\)\); citations: 1 found, 0 not retrieved, 1 misattributed" type="ungrounded">supported instead by: Refunds are paid within 30 days of delivery\.\ncitations: \[2\] misattributed/);
    // report.html: the criterion, and the statuses beside each cited claim.
    expect(r.html).toContain("<td>citation error rate (not retrieved + misattributed)</td><td>50.0% (2 of 4 citations: 1 not retrieved, 1 misattributed)</td><td>≤ 25.0%</td><td>flag --max-citation-error-rate</td><td class=\"fail\">FAIL</td>");
    expect(r.html).toContain('<li class="misattributed">[2] misattributed — supported by document 1 (refunds), not by document 2 (shipping)</li>');
    expect(r.html).toContain('<li class="not_retrieved">[3] not retrieved — names &quot;3&quot;, not among the 2 retrieved documents</li>');
    // report.json: each cited claim carries its citations.
    const misattributed = r.json.rows.find((x) => x.id === "misattributed");
    expect(misattributed).toMatchObject({ citations: { found: 1, valid: 1, invalid: 0, misattributed: 1 }, sources: ["refunds", "shipping"] });
    expect(misattributed?.claims[0]).toMatchObject({ verdict: "misattributed", evidence: { doc: 0 }, citations: [{ marker: "[2]", status: "misattributed", docs: [1] }] });
  });

  it("passes a correctly cited set", async () => {
    const r = await evalWithJudge([row("a", CITED_ANSWERS.cited), row("b", CITED_ANSWERS.cited)], ["--max-citation-error-rate", "0"]);
    expect(r.code, r.stdout).toBe(0);
    expect(criterion(r.json)).toMatchObject({ measured: 0, passed: true });
    expect(r.json.rows.map((x) => x.verdict)).toEqual(["grounded", "grounded"]);
    expect(r.md).toContain("| citation error rate (not retrieved + misattributed) | 0.0% (0 of 4 citations: 0 not retrieved, 0 misattributed) | ≤ 0.0% | flag --max-citation-error-rate | pass |");
    expect(junitFailures(r.junit)).toBe(0);
  });

  it("fails a set whose answers cite nothing: the citation error rate cannot be measured", async () => {
    const out = tempDir();
    const run = await runCli(["eval", "--set", set(rows(0, 3)), "--out", out, "--backend", "offline", "--max-citation-error-rate", "0.1"]);
    const r = reports(out);
    expect(run.code).toBe(1);
    expect(criterion(r.json)).toMatchObject({ measured: null, passed: false, failure: expect.stringContaining("citation error rate not measurable: no answer in the set cites a document") as unknown });
    expect(r.json.summary.citations).toEqual({ found: 0, valid: 0, invalid: 0, misattributed: 0, errorRate: null });
    expect(r.md).toContain("| citation error rate (not retrieved + misattributed) | – (no citations) | ≤ 10.0% | flag --max-citation-error-rate | **FAIL** |");
    // No row is to blame for a set without citations: only the criterion's testcase fails.
    expect(junitFailures(r.junit, "groundwatch eval: gate")).toBe(1);
    expect(junitFailures(r.junit, "groundwatch eval: rows")).toBe(0);
  });

  it("takes the limit from the config file's eval.maxCitationErrorRate, the flag before it, and applies none by default", async () => {
    const config = join(tempDir(), "groundwatch.json");
    writeFileSync(config, JSON.stringify({ eval: { maxCitationErrorRate: 0.6 } }));
    const fromConfig = await evalWithJudge(MIXED, ["--config", config]);
    expect(fromConfig.code, fromConfig.stdout).toBe(0);
    expect(criterion(fromConfig.json)).toMatchObject({ limit: 0.6, measured: 0.5, passed: true, source: { kind: "config", file: config, key: "eval.maxCitationErrorRate" } });
    const flag = await evalWithJudge(MIXED, ["--config", config, "--max-citation-error-rate", "0.4"]);
    expect(flag.code).toBe(1);
    expect(criterion(flag.json)).toMatchObject({ limit: 0.4, source: { kind: "flag", flag: "--max-citation-error-rate" } });
    const none = await evalWithJudge(MIXED, []);
    expect(none.code).toBe(0);
    expect(criterion(none.json)).toBeUndefined();
    // Without the criterion, a set with citations still reports its citation error rate.
    expect(none.md).toContain("| citation error rate (not retrieved + misattributed) | 50.0% (2 of 4 citations: 1 not retrieved, 1 misattributed) | – | – | – |");
  });

  it("refuses --max-citation-error-rate with --no-gate, out of range, or as a bad config value", async () => {
    const a = await runCli(["eval", "--set", set(rows(0, 1)), "--no-gate", "--max-citation-error-rate", "0.2"]);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain("--no-gate runs without a gate, so --max-citation-error-rate would not apply");
    const b = await runCli(["eval", "--set", set(rows(0, 1)), "--max-citation-error-rate", "1.5"]);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('--max-citation-error-rate must be a number from 0 to 1 (got "1.5")');
    const config = join(tempDir(), "groundwatch.json");
    writeFileSync(config, JSON.stringify({ eval: { maxCitationErrorRate: "low" } }));
    const c = await runCli(["eval", "--set", set(rows(0, 1)), "--config", config]);
    expect(c.code).toBe(2);
    expect(c.stderr).toContain("eval.maxCitationErrorRate");
  });

  it("leaves the reports of a set without citations and without the criterion as they were", async () => {
    const out = tempDir();
    await runCli(["eval", "--set", set(rows(1, 3)), "--out", out, "--backend", "offline", "--no-gate"]);
    const r = reports(out);
    expect(r.md).not.toContain("citation");
    expect(r.html).not.toContain("citation error rate");
  });
});
