import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/errors.ts";
import { MAX_RELATIVE_PATH_CHARS, isSafeRelativePath } from "../../src/config/safe-path.ts";
import { checkVariant } from "../../src/config/variant.ts";

describe("isSafeRelativePath: one check for hub file names and --variant paths", () => {
  it("accepts relative '/'-separated paths", () => {
    for (const ok of ["config.json", "onnx/model.onnx", "a..b/c", "dir.with.dots/file-1_2.onnx"]) expect(isSafeRelativePath(ok), ok).toBe(true);
  });

  it("refuses paths that climb out, start at a root or drive, or hold backslashes or controls", () => {
    for (const bad of ["../x", "onnx/../../x", "/etc/passwd", "C:/x", "c:model.onnx", "a\\b", "a/./b", "a//b", "a/", "a/\u0000", "a\u007fb", "", 7, null, undefined]) {
      expect(isSafeRelativePath(bad), String(bad)).toBe(false);
    }
  });

  it(`caps the length at ${MAX_RELATIVE_PATH_CHARS} characters, for hub names as for --variant`, () => {
    const longest = `${"d/".repeat((MAX_RELATIVE_PATH_CHARS - 5) / 2)}m.onnx`.slice(-MAX_RELATIVE_PATH_CHARS);
    expect(longest).toHaveLength(MAX_RELATIVE_PATH_CHARS);
    expect(isSafeRelativePath(longest)).toBe(true);
    // The hub check allowed 1,024 characters, --variant 512.
    expect(isSafeRelativePath(`x${longest}`)).toBe(false);
    expect(isSafeRelativePath(`${"d/".repeat(400)}model.onnx`)).toBe(false);
  });
});

describe("checkVariant: file names", () => {
  it("accepts the variant names and safe relative .onnx paths", () => {
    for (const ok of ["auto", "int8", "onnx/model_quint8_avx2.onnx", "model.onnx"]) expect(checkVariant(ok)).toBe(ok);
  });

  it("refuses a Windows drive prefix, as the hub check always did", () => {
    for (const bad of ["C:/models/model.onnx", "c:model.onnx"]) expect(() => checkVariant(bad, "--variant"), bad).toThrow(ConfigError);
  });

  it("refuses a path that is not .onnx, or not safe, naming the field", () => {
    for (const bad of ["model.bin", "../model.onnx", "/abs/model.onnx", "a\\model.onnx", ""]) {
      expect(() => checkVariant(bad, "--variant"), bad).toThrow(`invalid --variant: ${JSON.stringify(bad)}`);
    }
  });
});
