import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/errors.ts";
import { parseBoolean, parseInteger, parseNonEmpty, parseNumber, parseOneOf, parseRate } from "../../src/config/parse.ts";
import { pickSource } from "../../src/config/resolve.ts";

describe("the one parser set", () => {
  it("reads the same boolean words everywhere, trimmed and in any case", () => {
    for (const word of ["true", "1", "yes", "on", " YES ", "On"]) expect(parseBoolean("f", word)).toBe(true);
    for (const word of ["false", "0", "no", "off", "No\n"]) expect(parseBoolean("f", word)).toBe(false);
    expect(parseBoolean("f", true)).toBe(true);
    expect(() => parseBoolean("GROUNDWATCH_X", "maybe")).toThrow('invalid GROUNDWATCH_X: "maybe" (expected true or false)');
    expect(() => parseBoolean("f", 1)).toThrow(ConfigError);
  });

  it("treats an absent, empty or blank value as not set", () => {
    for (const raw of [undefined, "", "  "]) {
      expect(parseBoolean("f", raw)).toBeUndefined();
      expect(parseNumber("f", raw, { min: 0, max: 1 })).toBeUndefined();
      expect(parseOneOf("f", raw, ["a"])).toBeUndefined();
      expect(parseNonEmpty("f", raw)).toBeUndefined();
    }
  });

  it("reads numbers from numbers and trimmed strings, in range, naming the field", () => {
    expect(parseInteger("n", " 42 ", 1, 50)).toBe(42);
    expect(parseRate("r", "0.25")).toBe(0.25);
    expect(() => parseInteger("n", "4.5", 1, 50)).toThrow("invalid n: 4.5 (expected an integer from 1 to 50)");
    expect(() => parseInteger("n", "lots", 1, 50)).toThrow('invalid n: "lots" (expected an integer from 1 to 50)');
    expect(() => parseNumber("t", 3, { min: 0, max: 2, what: "a temperature" })).toThrow("invalid t: 3 (expected a temperature from 0 to 2)");
    expect(() => parseRate("r", "Infinity", "a sampling rate")).toThrow('(expected a sampling rate from 0 to 1)');
    expect(() => parseNumber("n", null, { min: 0, max: 1 })).toThrow(ConfigError);
  });

  it("reads choices and strings trimmed", () => {
    expect(parseOneOf("b", " onnx ", ["offline", "onnx"])).toBe("onnx");
    expect(() => parseOneOf("b", "gpu", ["offline", "onnx"])).toThrow('invalid b: "gpu" (expected one of offline, onnx)');
    expect(parseNonEmpty("m", " org/model\n")).toBe("org/model");
    expect(() => parseNonEmpty("m", 5)).toThrow("expected a non-empty string");
  });
});

describe("pickSource", () => {
  const env = { GROUNDWATCH_X: "2", GROUNDWATCH_BLANK: "  " };
  it("resolves option > environment > config file > default, naming the field and where it came from", () => {
    expect(pickSource({ key: "x", option: 1, env, envName: "GROUNDWATCH_X", file: { x: 3 }, section: "monitor" })).toEqual({ field: "x", value: 1, source: "option" });
    expect(pickSource({ key: "x", option: undefined, env, envName: "GROUNDWATCH_X", file: { x: 3 }, section: "monitor" })).toEqual({ field: "GROUNDWATCH_X", value: "2", source: "env" });
    expect(pickSource({ key: "x", option: undefined, env, envName: "GROUNDWATCH_BLANK", file: { x: 3 }, section: "monitor" })).toEqual({ field: "config file monitor.x", value: 3, source: "file" });
    expect(pickSource({ key: "x", option: undefined, env, file: {}, section: "monitor" })).toEqual({ field: "x", value: undefined, source: "default" });
  });
});
