import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveCollectorOptions } from "../../src/collector/options.ts";
import { startupBanner } from "../../src/cli/serve.ts";
import { loadOfflineModel } from "../../src/nli/offline/backend.ts";
import { resolveMonitorOptions } from "../../src/sdk/options.ts";
import { runCli, tempDir } from "../helpers/cli.ts";

const EXAMPLE = join(import.meta.dirname, "../../examples/labelled.jsonl");

/** A passing calibration.json as calibrate writes it, fitted on a set of the user's own unless `extra` says otherwise. */
function passing(extra: Record<string, unknown> = {}): string {
  const path = join(tempDir(), "calibration.json");
  const record = {
    version: 1,
    createdAt: "2026-11-01T00:00:00.000Z",
    backend: { name: "offline", version: loadOfflineModel().version, tier: "triage" },
    threshold: 0.42,
    dataset: { path: "labelled.jsonl", rows: 40, positives: 20, negatives: 20, unscorable: 0, sha256: "b".repeat(64), bundled: false },
    auroc: { value: 0.96, low: 0.9, high: 1 },
    verdict: "pass",
    referenceScores: Array.from({ length: 30 }, (_, i) => i / 30),
    ...extra,
  };
  writeFileSync(path, JSON.stringify(record));
  return path;
}

// Issue 25: doctor said "[PASS] threshold … AUROC 0.960" for a calibration fitted on groundwatch's own examples.
describe("doctor on where a calibration came from", () => {
  it("warns, never passes, a calibration fitted on groundwatch's bundled examples, and says drift will refuse it", async () => {
    const dir = tempDir();
    const cal = join(dir, "calibration.json");
    expect((await runCli(["calibrate", "--set", EXAMPLE, "--out", cal, "--backend", "offline"])).code).toBe(0);
    const run = await runCli(["doctor", "--backend", "offline", "--calibration", cal]);
    expect(run.stdout).not.toMatch(/\[PASS\] threshold/);
    expect(run.stdout).toMatch(/\[WARN\] threshold +calibrated .* but not on evidence about your service/);
    expect(run.stdout).toMatch(/\[WARN\] calibration data +calibrated on groundwatch's bundled examples \(.*labelled\.jsonl\), not your data/);
    expect(run.stdout).toMatch(/\[WARN\] drift reference +refused: fitted on groundwatch's bundled examples/);
  });

  it("warns when the calibration was fitted with another backend or model than the one that loads", async () => {
    const run = await runCli(["doctor", "--backend", "offline", "--calibration", passing({ backend: { name: "onnx", version: "nli-deberta:model.onnx@abc", tier: "production" } })]);
    expect(run.stdout).toContain(`fitted with backend onnx/nli-deberta:model.onnx@abc, scoring uses offline/${loadOfflineModel().version}`);
    expect(run.stdout).not.toMatch(/\[PASS\] threshold/);
    const model = await runCli(["doctor", "--backend", "offline", "--calibration", passing({ backend: { name: "offline", version: "an-older-offline-model", tier: "triage" } })]);
    expect(model.stdout).toContain("fitted with backend offline/an-older-offline-model, scoring uses offline/");
  });

  it("says fingerprint unknown for a file written before fingerprints, and passes one fitted on the user's data with the backend that scores", async () => {
    const old = await runCli(["doctor", "--backend", "offline", "--calibration", passing({ dataset: { rows: 40 } })]);
    expect(old.stdout).toMatch(/\[WARN\] calibration data +fingerprint unknown/);
    const own = await runCli(["doctor", "--backend", "offline", "--calibration", passing()]);
    expect(own.stdout).toMatch(/\[PASS\] threshold +calibrated 0\.42 from 40 labels, AUROC 0\.960/);
    expect(own.stdout).not.toContain("calibration data");
  });
});

describe("serve's banner on where a calibration came from", () => {
  const banner = (calibrationFile: string): string => {
    const env = { HF_HOME: "/nonexistent" };
    const monitor = resolveMonitorOptions({ env, calibrationFile, scoring: { backend: "offline" } });
    return startupBanner({ url: "http://127.0.0.1:4319", collector: resolveCollectorOptions({ env }), monitor, env, logEvaluations: false });
  };

  it("warns about a calibration on the bundled examples and refuses its drift reference", () => {
    const text = banner(passing({ dataset: { path: "examples/labelled.jsonl", rows: 40, sha256: "c".repeat(64), bundled: true } }));
    expect(text).toMatch(/WARNING +calibration: calibrated on groundwatch's bundled examples \(examples\/labelled\.jsonl\), not your data/);
    expect(text).toMatch(/drift +no reference — REFUSED, the calibration's reference is refused: it was fitted on groundwatch's bundled examples/);
  });

  it("warns about a calibration made with another backend, and is quiet about one of the user's own", () => {
    expect(banner(passing({ backend: { name: "judge", version: "gpt-4o-mini", tier: "production" } }))).toMatch(/WARNING +calibration: fitted with backend judge\/gpt-4o-mini, scoring uses offline/);
    const own = banner(passing());
    expect(own).not.toContain("WARNING");
    expect(own).toMatch(/drift +reference from the calibration \(30 scores\)/);
  });
});

describe("serve's banner with --backend auto", () => {
  it("compares the calibration with the backend auto will load (offline here: no model is cached)", () => {
    const env = { HF_HOME: "/nonexistent" };
    const calibrationFile = passing({ backend: { name: "onnx", version: "nli-deberta:model.onnx@abc", tier: "production" } });
    const monitor = resolveMonitorOptions({ env, calibrationFile });
    const text = startupBanner({ url: "http://127.0.0.1:4319", collector: resolveCollectorOptions({ env }), monitor, env, logEvaluations: false });
    expect(text).toMatch(/WARNING +calibration: fitted with backend onnx\/nli-deberta:model\.onnx@abc, scoring uses offline:/);
    expect(text).toMatch(/drift +no reference — REFUSED, the calibration's reference is refused: it was fitted with another backend or model/);
  });
});
