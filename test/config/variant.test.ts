import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/errors.ts";
import { VARIANT_NAMES, checkVariant } from "../../src/config/variant.ts";

describe("checkVariant: a variant name or a safe relative .onnx path, nothing else", () => {
  it.each([...VARIANT_NAMES])("takes the name %j", (name) => {
    expect(checkVariant(name)).toBe(name);
  });

  it.each(["model.onnx", "onnx/model_quint8_avx2.onnx", "a/b/c.onnx"])("takes the relative graph path %j", (path) => {
    expect(checkVariant(path)).toBe(path);
  });

  it.each([
    ["a parent directory", "../model.onnx"],
    ["a parent directory inside", "onnx/../../model.onnx"],
    ["an absolute path", "/etc/model.onnx"],
    ["a backslash", "onnx\\model.onnx"],
    ["a Windows absolute path", "\\\\host\\share\\model.onnx"],
    ["an empty segment", "onnx//model.onnx"],
    ["a dot segment", "./model.onnx"],
    ["a control character", "onnx/mo\u0000del.onnx"],
    ["an escape sequence", "onnx/\u001b[31mmodel.onnx"],
    ["DEL", "onnx/model\u007f.onnx"],
    ["another file type", "onnx/model.bin"],
    ["an unknown name", "int4"],
    ["the empty string", ""],
    ["over 512 characters", `${"a/".repeat(255)}ab.onnx`],
  ])("refuses %s: %j", (_what, value) => {
    expect(() => checkVariant(value)).toThrow(ConfigError);
  });

  it("names the field it was given in the error", () => {
    expect(() => checkVariant("../x.onnx", "nli.variant")).toThrow(expect.objectContaining({ field: "nli.variant", value: "../x.onnx" }));
    expect(() => checkVariant("nope")).toThrow(expect.objectContaining({ field: "variant" }));
  });

  it("takes a path of exactly 512 characters", () => {
    const path = `${"a".repeat(507)}.onnx`;
    expect(path).toHaveLength(512);
    expect(checkVariant(path)).toBe(path);
  });
});
