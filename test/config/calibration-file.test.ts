import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readCalibrationFile } from "../../src/config/calibration-file.ts";
import { tempDir } from "../helpers/cli.ts";

const write = (content: unknown): string => {
  const path = join(tempDir(), "calibration.json");
  writeFileSync(path, JSON.stringify(content));
  return path;
};

describe("readCalibrationFile", () => {
  it("refuses a file without reference scores by default (the SDK and serve use them for drift)", () => {
    const path = write({ threshold: 0.4 });
    expect(() => readCalibrationFile(path)).toThrow(`invalid calibrationFile: ${JSON.stringify(path)} (no "referenceScores" array of numbers)`);
  });

  it("reads a file without reference scores as having none when the caller needs only the threshold", () => {
    const cal = readCalibrationFile(write({ threshold: 0.4, auroc: { value: 0.8, low: 0.45, high: 0.9 } }), "--calibration", { requireReferenceScores: false });
    expect(cal).toMatchObject({ threshold: 0.4, referenceScores: [], verdict: "weak" });
    // Reference scores that are there are still checked.
    expect(() => readCalibrationFile(write({ threshold: 0.4, referenceScores: ["x"] }), "--calibration", { requireReferenceScores: false })).toThrow('no "referenceScores" array of numbers');
  });
});
