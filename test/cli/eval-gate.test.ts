import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, tempDir } from "../helpers/cli.ts";
import { DOC, evalRun, junitFailures, rows, set } from "../helpers/eval.ts";

// Issue 14 (release gate): with no gate flags eval printed PASSED at a 71% hallucination rate,
// and the README's --floor 0.8 failed a fully grounded set on the default backend. Agreement
// between the formats and the triage notice are in eval-agreement.test.ts.

describe("groundwatch eval: a gate always applies", () => {
  it("fails a high-hallucination set with no gate flags, naming the default gate", async () => {
    const r = await evalRun(set(rows(7)), []);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("## groundwatch eval — FAILED");
    expect(r.stdout).toContain("**Gate:** hallucination rate ≤ 10.0% (groundwatch default); unscorable share ≤ 10.0% (groundwatch default); answers judged at threshold");
    expect(r.stdout).toContain("| hallucination rate | 70.0% (95% CI");
    expect(r.stdout).toContain("| ≤ 10.0% | groundwatch default | **FAIL** |");
    expect(r.json.gate).toMatchObject({
      status: "failed",
      passed: false,
      criteria: [
        { name: "maxHallucinationRate", limit: 0.1, measured: 0.7, source: { kind: "default" }, passed: false },
        { name: "maxUnscorableShare", limit: 0.1, measured: 0, source: { kind: "default" }, passed: true },
      ],
    });
  });

  it("passes a clean set under the default gate", async () => {
    const r = await evalRun(set(rows(0)), []);
    expect(r.code).toBe(0);
    expect(r.json.gate).toMatchObject({ status: "passed", passed: true });
  });

  it("--no-gate reports only: exit 0, and every format says so", async () => {
    const r = await evalRun(set(rows(7)), ["--no-gate"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("## groundwatch eval — report only, no gate");
    expect(r.stdout).toContain("**Gate:** report only, no gate (--no-gate): nothing fails the run;");
    expect(r.json.gate).toEqual({ status: "report-only", passed: null, description: expect.stringContaining("report only, no gate") as unknown, criteria: [], failures: [] });
    expect(r.html).toContain("<title>groundwatch eval — report only, no gate");
    expect(r.junit).toContain('<skipped message="report only, no gate (--no-gate)"/>');
    expect(r.junit).toContain('<property name="groundwatch.gate" value="report-only"/>');
    expect(junitFailures(r.junit)).toBe(0);
  });

  it("refuses --no-gate with a gate limit, and --floor with --min-mean-score", async () => {
    const a = await runCli(["eval", "--set", set(rows(0, 1)), "--no-gate", "--max-hallucination-rate", "0.2"]);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain("--no-gate runs without a gate, so --max-hallucination-rate would not apply");
    const b = await runCli(["eval", "--set", set(rows(0, 1)), "--floor", "0.5", "--min-mean-score", "0.5"]);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain("--floor is the deprecated name of --min-mean-score");
    const c = await runCli(["eval", "--set", set(rows(0, 1)), "--min-grounded-share", "1.5"]);
    expect(c.code).toBe(2);
    expect(c.stderr).toContain('--min-grounded-share must be a number from 0 to 1 (got "1.5")');
  });
});

describe("groundwatch eval: a floor that transfers across backends", () => {
  // On the offline backend grounded answers score about 0.4–0.7: a raw floor of 0.8 fails them all.
  it("--min-grounded-share passes a fully grounded set where --min-mean-score 0.8 fails it", async () => {
    const share = await evalRun(set(rows(0)), ["--min-grounded-share", "1"]);
    expect(share.code).toBe(0);
    expect(share.json.summary).toMatchObject({ grounded: 10, groundedShare: 1 });
    expect(share.stdout).toContain("| grounded share | 100.0% (10 of 10) | ≥ 100.0% | flag --min-grounded-share | pass |");
    const raw = await evalRun(set(rows(0)), ["--min-mean-score", "0.8"]);
    expect(raw.code).toBe(1);
    expect(raw.stdout).toMatch(/mean score 0\.\d{3} is below the floor 0\.8/);
  });

  it("counts unscorable rows as not grounded in the grounded share", async () => {
    const r = await evalRun(set([...rows(0, 3), { id: "empty", context: [DOC], answer: "" }]), ["--min-grounded-share", "0.8"]);
    expect(r.json.summary).toMatchObject({ rows: 4, grounded: 3, unscorable: 1, groundedShare: 0.75, hallucinationRate: 0 });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("grounded share 75.0% (3 of 4) is below the minimum 80.0%");
  });

  it("--floor still works as the raw-score floor, with a deprecation warning in stderr and the reports", async () => {
    const r = await evalRun(set(rows(0)), ["--floor", "0.8"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("groundwatch eval: WARNING: --floor is deprecated");
    expect(r.json.gate.criteria).toContainEqual(expect.objectContaining({ name: "minMeanScore", limit: 0.8, source: { kind: "flag", flag: "--floor (deprecated)" } }));
    expect(r.json.notices.some((n) => n.startsWith("--floor is deprecated"))).toBe(true);
    expect(r.md).toContain("**Note:** --floor is deprecated");
  });
});

describe("groundwatch eval: where each gate number came from", () => {
  it("the threshold: --threshold, else the environment, else the config file, else --calibration, else the backend's default (as the SDK and serve)", async () => {
    const dir = tempDir();
    const config = join(dir, "groundwatch.json");
    writeFileSync(config, JSON.stringify({ scoring: { threshold: 0.33 } }));
    const cal = join(dir, "calibration.json");
    writeFileSync(cal, JSON.stringify({ threshold: 0.25, backend: { name: "offline", version: "x", tier: "triage" }, auroc: { value: 0.8, low: 0.7, high: 0.9 }, verdict: "pass" }));
    const path = set(rows(0, 2));

    const backend = await evalRun(path, []);
    expect(backend.json.thresholdSource).toEqual({ kind: "backend", backend: "offline" });
    expect(backend.stdout).toMatch(/\| answer threshold \| 0\.\d+ \| – \| the offline backend's default \| – \|/);

    const fromCal = await evalRun(path, ["--calibration", cal]);
    expect(fromCal.json).toMatchObject({ threshold: 0.25, thresholdSource: { kind: "calibration", file: cal } });
    expect(fromCal.md).toContain("| answer threshold | 0.25 | – | calibration file");
    expect(fromCal.html).toContain(`<td>calibration file ${cal}</td>`);
    expect(fromCal.junit).toContain(`<property name="groundwatch.threshold.source" value="calibration file ${cal}"/>`);
    expect(fromCal.stderr).not.toContain("did not establish a signal");

    const fromConfig = await evalRun(path, ["--config", config, "--calibration", cal]);
    expect(fromConfig.json).toMatchObject({ threshold: 0.33, thresholdSource: { kind: "config", file: config, key: "scoring.threshold" } });
    expect(fromConfig.stderr).toContain(`WARNING: the threshold of --calibration ${cal} (0.25) is not used: config file`);

    const fromEnv = await evalRun(path, ["--config", config, "--calibration", cal], { env: { GROUNDWATCH_THRESHOLD: "0.3" } });
    expect(fromEnv.json).toMatchObject({ threshold: 0.3, thresholdSource: { kind: "env", variable: "GROUNDWATCH_THRESHOLD" } });

    const fromFlag = await evalRun(path, ["--calibration", cal, "--threshold", "0.2"], { env: { GROUNDWATCH_THRESHOLD: "0.3" } });
    expect(fromFlag.json).toMatchObject({ threshold: 0.2, thresholdSource: { kind: "flag", flag: "--threshold" } });
    expect(fromFlag.stderr).toContain(`WARNING: the threshold of --calibration ${cal} (0.25) is not used: flag --threshold`);
  });

  it("the hallucination limit: the flag, else the default; each source in every format", async () => {
    const path = set(rows(1));
    const flag = await evalRun(path, ["--max-hallucination-rate", "0.2"]);
    expect(flag.code).toBe(0);
    expect(flag.json.gate.criteria[0]).toMatchObject({ name: "maxHallucinationRate", limit: 0.2, source: { kind: "flag", flag: "--max-hallucination-rate" } });
    expect(flag.md).toContain("| ≤ 20.0% | flag --max-hallucination-rate | pass |");
    expect(flag.html).toContain("<td>≤ 20.0%</td><td>flag --max-hallucination-rate</td>");
    expect(flag.junit).toContain('<property name="groundwatch.gate.maxHallucinationRate.source" value="flag --max-hallucination-rate"/>');
    const byDefault = await evalRun(path, []);
    expect(byDefault.md).toContain("| ≤ 10.0% | groundwatch default | pass |");
    expect(byDefault.html).toContain("<td>≤ 10.0%</td><td>groundwatch default</td>");
    expect(byDefault.junit).toContain('<property name="groundwatch.gate.maxHallucinationRate.source" value="groundwatch default"/>');
  });

  it("refuses a calibration file without a threshold, naming it", async () => {
    const cal = join(tempDir(), "calibration.json");
    writeFileSync(cal, JSON.stringify({ auroc: 0.8 }));
    const r = await runCli(["eval", "--set", set(rows(0, 1)), "--calibration", cal, "--backend", "offline", "--out", tempDir()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`cannot read --calibration ${cal}: no "threshold" from 0 to 1`);
  });

  it("warns when the calibration was made with another backend, or established no signal", async () => {
    const cal = join(tempDir(), "calibration.json");
    writeFileSync(cal, JSON.stringify({ threshold: 0.5, backend: { name: "onnx" }, auroc: { value: 0.6, low: 0.45, high: 0.75 }, verdict: "pass" }));
    const r = await evalRun(set(rows(0, 1)), ["--calibration", cal]);
    expect(r.stderr).toContain("was made with the onnx backend, but this run scores with offline: its threshold may not transfer");
    // The interval decides, as in calibrate: a hand-edited "pass" does not make it evidence.
    expect(r.stderr).toContain(`--calibration ${cal} did not establish a signal: its verdict is weak (AUROC 0.600, 95% interval 0.450–0.750), so its threshold 0.5 is not evidence`);
    expect(r.json.notices).toEqual([expect.stringContaining("tier triage"), expect.stringContaining("did not establish a signal"), expect.stringContaining("its threshold may not transfer")]);
  });

  it("the config file's eval section sets the limits a flag does not", async () => {
    const config = join(tempDir(), "groundwatch.json");
    writeFileSync(config, JSON.stringify({ eval: { maxHallucinationRate: 0.2, minGroundedShare: 0.5 } }));
    const r = await evalRun(set(rows(1)), ["--config", config, "--min-grounded-share", "0.6"]);
    expect(r.code).toBe(0);
    expect(r.json.gate.criteria).toEqual([
      expect.objectContaining({ name: "maxHallucinationRate", limit: 0.2, source: { kind: "config", file: config, key: "eval.maxHallucinationRate" } }),
      expect.objectContaining({ name: "maxUnscorableShare", limit: 0.1, source: { kind: "default" } }),
      expect.objectContaining({ name: "minGroundedShare", limit: 0.6, source: { kind: "flag", flag: "--min-grounded-share" } }),
    ]);
  });

  it("reads the eval section's rates as every other config file rate: a quoted number is a number, a blank one unset", async () => {
    // Regression: the eval section had its own rate parser, which refused "0.2" (a quoted YAML or JSON number) that every other section reads.
    const config = join(tempDir(), "groundwatch.json");
    writeFileSync(config, JSON.stringify({ eval: { maxHallucinationRate: "0.2", maxUnscorableShare: " " } }));
    const r = await evalRun(set(rows(1)), ["--config", config]);
    expect(r.code).toBe(0);
    expect(r.json.gate.criteria).toEqual([
      expect.objectContaining({ name: "maxHallucinationRate", limit: 0.2, source: { kind: "config", file: config, key: "eval.maxHallucinationRate" } }),
      expect.objectContaining({ name: "maxUnscorableShare", limit: 0.1, source: { kind: "default" } }),
    ]);
    writeFileSync(config, JSON.stringify({ eval: { maxHallucinationRate: 1.5 } }));
    const bad = await runCli(["eval", "--set", set(rows(1)), "--backend", "offline", "--config", config, "--out", tempDir()]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("invalid config file eval.maxHallucinationRate: 1.5 (expected a number from 0 to 1)");
  });

  it("fails a run where too many rows could not be scored, even when the scored ones are grounded (a --target mostly down)", async () => {
    const unscorable = { context: [], answer: "The museum opens at nine." };
    const path = set([...rows(0).slice(0, 8), { id: "u1", ...unscorable }, { id: "u2", ...unscorable }]);
    const r = await evalRun(path, []);
    expect(r.code).toBe(1);
    expect(r.json.gate.criteria.find((c) => c.name === "maxUnscorableShare")).toMatchObject({ measured: 0.2, passed: false, source: { kind: "default" } });
    expect(r.stdout).toContain("20.0% of the rows (2 of 10) could not be scored, above the maximum 10.0%");
    expect(r.junit).toContain('<failure message="counts against the failed gate (unscorable share)');
    const allowed = await evalRun(path, ["--max-unscorable-share", "0.25"]);
    expect(allowed.code).toBe(0);
  });
});

describe("groundwatch eval --help", () => {
  it("states the threshold order in full (regression: a line of the help was lost)", async () => {
    const { runCli } = await import("../helpers/cli.ts");
    const help = (await runCli(["eval", "--help"])).stdout;
    expect(help).toContain("--threshold T, else\nGROUNDWATCH_THRESHOLD, else the config file's scoring.threshold, else the --calibration file's,\nelse the backend's default.");
    expect(help).not.toMatch(/^XX$/m);
  });
});
