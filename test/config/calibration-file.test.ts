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

  it("reads a per-route drift reference with every field checked, and a file without one as before", () => {
    const base = { threshold: 0.4, referenceScores: [] };
    const routes = [{ route: "/a", scores: [0.1, 0.9], weights: [1, 20] }];
    expect(readCalibrationFile(write({ ...base, driftReference: { weighting: "sample_rate", routes } })).driftReference).toEqual({ kind: "per_route", routes });
    expect(readCalibrationFile(write({ ...base, driftReference: { refused: { reason: "mixed_set", rows: 3 } } })).driftReference).toEqual({ kind: "refused", reason: "mixed_set", rows: 3 });
    // A file written before (or from a plain set): the pooled referenceScores, no driftReference.
    expect(readCalibrationFile(write({ threshold: 0.4, referenceScores: [0.5] }))).toMatchObject({ referenceScores: [0.5], driftReference: undefined });
    const refusedWith = (driftReference: unknown): string => {
      const path = write({ ...base, driftReference });
      try {
        readCalibrationFile(path);
      } catch (error) {
        return (error as Error).message.replace(JSON.stringify(path), "PATH");
      }
      return "read";
    };
    expect(refusedWith([1])).toBe('invalid calibrationFile: PATH ("driftReference" is not a JSON object)');
    expect(refusedWith({ weighting: "copies", routes })).toBe('invalid calibrationFile: PATH ("driftReference.weighting" is not "sample_rate")');
    expect(refusedWith({ weighting: "sample_rate" })).toBe('invalid calibrationFile: PATH ("driftReference.routes" is not an array)');
    expect(refusedWith({ weighting: "sample_rate", routes: [7] })).toBe('invalid calibrationFile: PATH ("driftReference.routes[0]" is not a JSON object)');
    expect(refusedWith({ weighting: "sample_rate", routes: [{ ...routes[0], route: "" }] })).toBe('invalid calibrationFile: PATH ("driftReference.routes[0].route" is not a route label)');
    expect(refusedWith({ weighting: "sample_rate", routes: [routes[0], routes[0]] })).toBe('invalid calibrationFile: PATH ("driftReference.routes[1].route" names a route listed before)');
    expect(refusedWith({ weighting: "sample_rate", routes: [{ ...routes[0], scores: [0.1, "x"] }] })).toBe('invalid calibrationFile: PATH ("driftReference.routes[0].scores" is not an array of numbers)');
    expect(refusedWith({ weighting: "sample_rate", routes: [{ ...routes[0], weights: [1] }] })).toBe('invalid calibrationFile: PATH ("driftReference.routes[0].weights" is not an array of positive numbers, one per score)');
    expect(refusedWith({ weighting: "sample_rate", routes: [{ ...routes[0], weights: [1, 0] }] })).toBe('invalid calibrationFile: PATH ("driftReference.routes[0].weights" is not an array of positive numbers, one per score)');
    expect(refusedWith({ refused: { reason: "because", rows: 1 } })).toBe('invalid calibrationFile: PATH ("driftReference.refused.reason" is not one of selected_by_label, mixed_set, no_sample_rate)');
    expect(refusedWith({ refused: { reason: "mixed_set", rows: -1 } })).toBe('invalid calibrationFile: PATH ("driftReference.refused.rows" is not a whole number)');
  });
});
