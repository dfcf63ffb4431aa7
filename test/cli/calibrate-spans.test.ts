import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { ScoredToken, SpanDetector, SpanInput } from "../../src/core/backend.ts";
import { readCalibrationFile, withCalibratedThresholds } from "../../src/config/calibration-file.ts";
import { resolveScoreOptions } from "../../src/config/score-options.ts";
import { spanCollector, spanLines } from "../../src/cli/calibrate/spans.ts";
import type { GroundednessResult } from "../../src/core/result.ts";
import { runCli, tempDir } from "../helpers/cli.ts";

/** The engine is another part of issue 40: here every "pNN" word of an answer is unsupported with probability NN/100, every other word 0.05. */
vi.mock("../../src/nli/onnx/span-detector.ts", () => ({
  createOnnxSpanDetector: (): Promise<SpanDetector> =>
    Promise.resolve({
      name: "fake-spans",
      version: "1",
      tier: "production",
      detect: (inputs: readonly SpanInput[]) =>
        Promise.resolve(
          inputs.map((i) => {
            const tokens: ScoredToken[] = [];
            for (const m of i.answer.matchAll(/\S+/g)) {
              const p = /^p(\d\d)\b/.exec(m[0]);
              tokens.push({ start: m.index, end: m.index + m[0].length, probability: p ? Number(p[1]) / 100 : 0.05 });
            }
            return { tokens, runs: 1 };
          }),
        ),
      close: () => Promise.resolve(),
    }),
}));

const DOC = "Returns: unopened items may be returned within 30 days of delivery for a full refund.";

/** 40 rows: grounded answers carry a word at p 0.10–0.29, the others one at p 0.70–0.89. */
function labelledSet(): string {
  const rows: unknown[] = [];
  for (let i = 0; i < 40; i++) {
    const grounded = i % 2 === 0;
    const p = grounded ? 10 + (i % 20) : 70 + (i % 20);
    rows.push({ id: `r${i}`, context: [DOC], answer: `Unopened items may be returned within 30 days p${p}.`, label: grounded ? 1 : 0 });
  }
  const path = join(tempDir(), "labelled.jsonl");
  writeFileSync(path, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  return path;
}

interface SpansField {
  spans: { mode: string; threshold: number | null; rows?: number; auroc?: { value: number } };
  threshold: number;
}

describe("calibrate with a span detector", () => {
  it("alone (--backend spans): writes and prints the span threshold as 1 − the fitted threshold", async () => {
    const out = join(tempDir(), "calibration.json");
    const run = await runCli(["calibrate", "--set", labelledSet(), "--out", out, "--backend", "spans", "--span-model", tempDir()]);
    expect(run.code).toBe(0);
    const cal = JSON.parse(readFileSync(out, "utf8")) as SpansField;
    // Grounded answers score 0.71–0.90, the others 0.11–0.30: the threshold falls between them.
    expect(cal.threshold).toBeGreaterThan(0.3);
    expect(cal.threshold).toBeLessThanOrEqual(0.71);
    expect(cal.spans.mode).toBe("alone");
    expect(cal.spans.threshold).toBeCloseTo(1 - cal.threshold, 10);
    expect(run.stdout).toContain(`span threshold: ${cal.spans.threshold} (= 1 − the answer threshold`);
    // Nothing goes to a model with the span detector alone: the cascade is not offered.
    expect(run.stdout).toContain("with --backend spans the cascade is off");
    expect(run.stdout).not.toMatch(/cascade thresholds: supportAbove/);
    // Read back: alone, the calibration's threshold is the span threshold's complement already; nothing else is set.
    const read = readCalibrationFile(out);
    expect(read.spanThreshold).toEqual({ mode: "alone", threshold: cal.spans.threshold });
    expect(withCalibratedThresholds(resolveScoreOptions({ backend: "spans", spanModel: "/m" }), read).spanThreshold).toBeUndefined();
  });

  it("refining a claim backend: fits the span threshold on the answer labels, and a scorer reads it where none is set", async () => {
    const out = join(tempDir(), "calibration.json");
    const run = await runCli(["calibrate", "--set", labelledSet(), "--out", out, "--backend", "offline", "--span-model", tempDir()]);
    expect(run.code === 0 || run.code === 1).toBe(true);
    const cal = JSON.parse(readFileSync(out, "utf8")) as SpansField;
    expect(cal.spans.mode).toBe("refine");
    // Highest token probabilities: grounded ≤ 0.29, the others ≥ 0.70; the span threshold separates them.
    expect(cal.spans.threshold).toBeGreaterThan(0.29);
    expect(cal.spans.threshold).toBeLessThanOrEqual(0.7);
    expect(cal.spans.rows).toBe(40);
    expect(cal.spans.auroc?.value).toBe(1);
    expect(run.stdout).toMatch(/span threshold: [\d.]+ \(refine: .*fitted on 40 answers/);
    const read = readCalibrationFile(out);
    expect(withCalibratedThresholds(resolveScoreOptions({ spanModel: "/m" }), read).spanThreshold).toBe(cal.spans.threshold);
    expect(withCalibratedThresholds(resolveScoreOptions({ spanModel: "/m", spanThreshold: 0.9 }), read).spanThreshold).toBe(0.9);
    expect(withCalibratedThresholds(resolveScoreOptions({}), read).spanThreshold).toBeUndefined();
  });

  it("refuses a file whose span threshold is not a number from 0 to 1, naming the field", () => {
    const path = join(tempDir(), "calibration.json");
    writeFileSync(path, JSON.stringify({ threshold: 0.5, referenceScores: [0.5], spans: { mode: "refine", threshold: 2 } }));
    expect(() => readCalibrationFile(path)).toThrow(/calibrationFile.*"spans.threshold" is not a number from 0 to 1/);
  });
});

describe("the refine-mode span fit", () => {
  const result = (p: number | undefined): GroundednessResult =>
    ({ verdict: "grounded", score: 0.9, threshold: 0.5, claims: [], skipped: [], backend: { name: "x", version: "1", tier: "production" }, limits: [], entailmentCalls: 1, ...(p === undefined ? {} : { spans: [{ start: 0, end: 1, probability: p, claim: 0, text: "a" }] }) }) as GroundednessResult;

  it("says it is not fitted, and why, when the answers whose spans were measured have one label", () => {
    const c = spanCollector({ spans: { mode: "refine", threshold: 0, detector: { name: "d", version: "1", tier: "production" } } });
    c.add(1, result(0.2));
    c.add(1, result(0.3));
    // Spans not measured (the detector failed on it): no evidence either way.
    c.add(0, result(undefined));
    const fit = c.fit(0.5, "youden", 0.05);
    expect(fit).toMatchObject({ mode: "refine", threshold: null, rows: 2 });
    expect(spanLines(fit)[0]).toMatch(/span threshold: not fitted \(.*2 grounded and 0 not\)/);
  });

  it("records nothing without a span detector", () => {
    expect(spanCollector({ spans: undefined }).fit(0.5, "youden", 0.05)).toBeUndefined();
  });
});
