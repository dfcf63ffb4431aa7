import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chat, startJudgeServer } from "../helpers/judge-server.ts";
import type { CliRun } from "../helpers/cli.ts";
import { runCli, tempDir } from "../helpers/cli.ts";
import type { Reports } from "../helpers/eval.ts";
import { DOC, evalRun, junitFailures, reports, rows, set } from "../helpers/eval.ts";

// Issue 14 (release gate): junit.xml listed a failure per ungrounded row while the gate passed,
// and a triage-grade run looked like any other.

describe("groundwatch eval: junit.xml, report.md, report.html and the exit code agree", () => {
  /** The outcome each format states. */
  function outcomes(r: CliRun & Reports): { exit: number; json: string; md: string; html: string; junitFailures: number } {
    return {
      exit: r.code,
      json: r.json.gate.status,
      md: /^## groundwatch eval — (.*)$/m.exec(r.md)?.[1] ?? "",
      html: /<h1>groundwatch eval — <span class="[^"]+">([^<]*)<\/span><\/h1>/.exec(r.html)?.[1] ?? "",
      junitFailures: junitFailures(r.junit),
    };
  }

  // Regression (issue 14): a passing gate wrote one JUnit failure per ungrounded row.
  it("a passing gate with ungrounded rows: no JUnit failure; the rows' findings are in system-out", async () => {
    const r = await evalRun(set(rows(2)), ["--max-hallucination-rate", "0.25"]);
    expect(outcomes(r)).toEqual({ exit: 0, json: "passed", md: "PASSED", html: "PASSED", junitFailures: 0 });
    expect(r.junit).not.toContain("<failure");
    expect(r.junit).toMatch(/<testcase classname="groundwatch\.eval" name="q0">\n {6}<system-out>ungrounded \(score 0\.\d{3}, cause generation\): contradicted claim &quot;Items may be returned within 90 days in any condition\.&quot; — does not fail the gate<\/system-out>/);
    expect(r.junit).toMatch(/<testcase classname="groundwatch\.eval\.gate" name="hallucination rate">\n {6}<system-out>hallucination rate 20\.0%, gate ≤ 25\.0% \(flag --max-hallucination-rate\)/);
    expect(r.md).not.toContain("fails it");
    expect(r.html).not.toContain("fails the gate");
  });

  it("a failing gate: the criterion and the rows that failed it, in every format", async () => {
    const r = await evalRun(set(rows(3)), ["--max-hallucination-rate", "0.25", "--min-grounded-share", "0.5"]);
    expect(outcomes(r)).toEqual({ exit: 1, json: "failed", md: "FAILED", html: "FAILED", junitFailures: 4 });
    expect(junitFailures(r.junit, "groundwatch eval: gate")).toBe(1);
    expect(junitFailures(r.junit, "groundwatch eval: rows")).toBe(3);
    // The grounded-share criterion held: its testcase passes.
    expect(r.junit).toMatch(/<testcase classname="groundwatch\.eval\.gate" name="grounded share">\n {6}<system-out>/);
    expect(r.junit).toMatch(/<testcase classname="groundwatch\.eval\.gate" name="hallucination rate">\n {6}<failure message="hallucination rate 30\.0% is above the maximum 25\.0%" type="gate">/);
    for (const id of ["q0", "q1", "q2"]) expect(r.md).toContain(`| ${id} | ungrounded | 0.`);
    expect(r.md.match(/\| fails it \(hallucination rate\) \|/g)).toHaveLength(3);
    expect(r.html.match(/fails the gate \(hallucination rate\)/g)).toHaveLength(3);
  });

  it("a gate failed by regressions fails only the regressed rows", async () => {
    const base = tempDir();
    await runCli(["eval", "--set", set(rows(1, 4)), "--out", base, "--backend", "offline", "--no-gate"]);
    // q0 was ungrounded already; q1 regresses.
    const r = await evalRun(set(rows(2, 4)), ["--baseline", join(base, "report.json"), "--max-hallucination-rate", "0.5"]);
    expect(outcomes(r)).toEqual({ exit: 1, json: "failed", md: "FAILED", html: "FAILED", junitFailures: 2 });
    expect(r.junit).toMatch(/name="q1">\n {6}<failure message="counts against the failed gate \(regressions vs baseline\)/);
    expect(r.junit).toMatch(/name="q0">\n {6}<system-out>ungrounded/);
    expect(r.junit).toContain('<property name="groundwatch.gate.noRegressions.source" value="flag --baseline"/>');
  });

  it("a report-only run: exit 0, no JUnit failure, and every format says report only", async () => {
    const r = await evalRun(set(rows(9)), ["--no-gate"]);
    expect(outcomes(r)).toEqual({ exit: 0, json: "report-only", md: "report only, no gate", html: "report only, no gate", junitFailures: 0 });
    expect(r.junit).toMatch(/<system-out>ungrounded \(score 0\.\d{3}, cause \w+\): [^<]* — report only, no gate<\/system-out>/);
  });

  it("fails a gate that has nothing to measure (every row unscorable), and fails those rows", async () => {
    const r = await evalRun(set([{ id: "a", context: [DOC], answer: "" }, { id: "b", context: [DOC], answer: "" }]), []);
    // Two criteria fail (nothing measurable; every row unscorable) and both rows fail them.
    expect(outcomes(r)).toEqual({ exit: 1, json: "failed", md: "FAILED", html: "FAILED", junitFailures: 4 });
    expect(r.stdout).toContain("hallucination rate not measurable (no scorable row) is above the maximum 10.0%");
    expect(r.stdout).toContain("100.0% of the rows (2 of 2) could not be scored");
  });
});

describe("groundwatch eval: a triage-tier backend says so in every format", () => {
  it("offline: at the top of report.md, stdout and report.html, and as a property in junit.xml and report.json", async () => {
    const r = await evalRun(set(rows(0, 2)), []);
    expect(r.code).toBe(0);
    // The notice comes right after the heading, before the gate and the numbers.
    expect(r.md.split("\n")[2]).toMatch(/^> \*\*TRIAGE-GRADE\*\* scored with the offline backend, tier triage: .*not for release decisions on its own/);
    expect(r.stdout.startsWith(r.md)).toBe(true);
    expect(r.html.indexOf('<div class="notice triage"><b>TRIAGE-GRADE</b> scored with the offline backend')).toBeGreaterThan(0);
    expect(r.html.indexOf('class="notice triage"')).toBeLessThan(r.html.indexOf('<table class="summary">'));
    expect(r.html).toContain("<title>groundwatch eval — PASSED (triage-grade)</title>");
    expect(r.junit).toContain('<property name="groundwatch.backend.tier" value="triage"/>');
    expect(r.junit).toContain('<property name="groundwatch.triage" value="true"/>');
    expect(r.junit).toMatch(/<property name="groundwatch\.notice\.1" value="scored with the offline backend, tier triage: /);
    expect(r.json).toMatchObject({ triage: true, backend: { tier: "triage" } });
    expect(r.json.notices[0]).toContain("tier triage");
  });

  it("a production backend: no triage notice anywhere", async () => {
    const judge = await startJudgeServer(() => ({ body: chat("ENTAILMENT") }));
    const out = tempDir();
    const run = await runCli(["eval", "--set", set(rows(0, 2)), "--out", out, "--backend", "judge", "--judge-url", judge.url, "--judge-model", "m"], { env: { GROUNDWATCH_JUDGE_API_KEY: "test-key" } });
    expect(run.code, run.stderr).toBe(0);
    const r = reports(out);
    expect(r.json).toMatchObject({ triage: false, backend: { name: "judge", tier: "production" }, notices: [], thresholdSource: { kind: "backend", backend: "judge" } });
    for (const text of [run.stdout, r.md, r.html, r.junit]) expect(text).not.toMatch(/triage-grade/i);
    expect(r.junit).toContain('<property name="groundwatch.triage" value="false"/>');
  });
});
