import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, tempDir } from "../helpers/cli.ts";
import { evalRun, rows, set } from "../helpers/eval.ts";

const calibration = (content: unknown): string => {
  const path = join(tempDir(), "calibration.json");
  writeFileSync(path, JSON.stringify(content));
  return path;
};

describe("groundwatch eval: the threshold's source is the resolver's", () => {
  // Issue 26: eval peeked at GROUNDWATCH_THRESHOLD (a blank value was "set": source env) while the
  // resolver read it as no number (exit 2). A blank variable is unset for both: the calibration applies.
  it("treats a blank GROUNDWATCH_THRESHOLD as unset, so --calibration's threshold applies", async () => {
    const cal = calibration({ threshold: 0.25, backend: { name: "offline" }, auroc: { value: 0.8, low: 0.7, high: 0.9 } });
    const r = await evalRun(set(rows(0, 2)), ["--calibration", cal], { env: { GROUNDWATCH_THRESHOLD: "  " } });
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ threshold: 0.25, thresholdSource: { kind: "calibration", file: cal } });
  });
});

describe("groundwatch eval reads calibration.json through the one reader", () => {
  it("accepts a file without reference scores: the gate needs only the threshold", async () => {
    const cal = calibration({ threshold: 0.4, auroc: { value: 0.8, low: 0.7, high: 0.9 } });
    const r = await evalRun(set(rows(0, 2)), ["--calibration", cal]);
    expect(r.json).toMatchObject({ threshold: 0.4, thresholdSource: { kind: "calibration" } });
  });

  it("refuses a file that is not JSON, or has a verdict calibrate never writes, with exit 2", async () => {
    const notJson = join(tempDir(), "calibration.json");
    writeFileSync(notJson, "{threshold: 0.4");
    const bad = await runCli(["eval", "--set", set(rows(0, 1)), "--calibration", notJson, "--backend", "offline", "--out", tempDir()]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`cannot read --calibration ${notJson}: not valid JSON`);
    const verdict = calibration({ threshold: 0.4, verdict: "great" });
    const odd = await runCli(["eval", "--set", set(rows(0, 1)), "--calibration", verdict, "--backend", "offline", "--out", tempDir()]);
    expect(odd.code).toBe(2);
    expect(odd.stderr).toContain(`cannot read --calibration ${verdict}: "verdict" is not one of pass, weak, anti-correlated`);
  });
});
