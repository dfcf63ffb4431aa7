import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfigFile } from "../../src/config/file.ts";
import { readTextFile, stripBom } from "../../src/config/text-file.ts";
import { readCalibrationFile } from "../../src/config/calibration-file.ts";
import { tempDir } from "../helpers/cli.ts";

describe("files saved with a UTF-8 byte order mark", () => {
  it("reads a config file that starts with a BOM", () => {
    const path = join(tempDir(), "groundwatch.json");
    writeFileSync(path, `\uFEFF${JSON.stringify({ sampling: { default: 0.5 } })}`);
    expect(loadConfigFile(path).sampling?.default).toBe(0.5);
  });

  it("reads a calibration file that starts with a BOM", () => {
    const path = join(tempDir(), "calibration.json");
    writeFileSync(path, `\uFEFF${JSON.stringify({ threshold: 0.4, referenceScores: [0.1, 0.9] })}`);
    expect(readCalibrationFile(path).threshold).toBe(0.4);
  });

  it("drops one leading byte order mark and nothing else", () => {
    expect(stripBom("\uFEFF{}")).toBe("{}");
    expect(stripBom("\uFEFF\uFEFF{}")).toBe("\uFEFF{}");
    expect(stripBom("{\uFEFF}")).toBe("{\uFEFF}");
    expect(stripBom("")).toBe("");
    const path = join(tempDir(), "rows.jsonl");
    writeFileSync(path, "\uFEFF{\"id\":1}\n");
    expect(readTextFile(path)).toBe('{"id":1}\n');
  });
});
